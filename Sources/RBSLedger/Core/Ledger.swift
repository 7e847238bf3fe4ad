import Crypto
import Foundation

/// The host's one entry point to documents, keys, codes, the journal and the core bank of one data directory.
///
/// Everything lives in the data directory: the key files (see ``KeyStore``), `rbs.sqlite` (journal, accounts,
/// postings, registered public keys, one-time code state, request ids) and `ledger-tip` (see ``LedgerTip``).
///
/// The host signs, journals and posts in one call:
///
/// ```swift
/// let ledger = try Ledger(dataDirectory: dir)
/// let document = try ledger.draft(operation: "payment", plugin: "ru.example.pay", pluginVersion: "1.0",
///                                 fields: [.init("from", "40817810438000000001"), .init("amount", "100.00"), …])
/// // show the document to the user, read the code from the authenticator app
/// let outcome = try ledger.signAndPost(document, code: "123456")
/// ```
///
/// Crash safety: the code check, the journal entry, the posting and the outcome are written in ONE SQLite
/// transaction (WAL, `synchronous = FULL`). A process killed at any moment leaves the state before or after that
/// transaction, never between; an outcome is returned only after its commit is durable. A later test may kill a
/// process running `rbs-host run` in a loop and check that `journal.verify()` passes and every balance equals the
/// seed plus the journal's postings.
///
/// This file holds the ledger's parts and its construction; each use case is an extension of its own: drafting
/// (`+Drafting`), signing and posting (`+Signing`), the second signer (`+SecondSigner`), passkeys (`+Passkeys`),
/// signing challenges (`+Challenges`), creating and opening the database (`+Database`, `+Continuity`), health
/// (`+Health`), and beside them baskets, cards, duplicates, entry forms, parties, rates and statements in their folders.
public final class Ledger: Sendable {
    public let dataDirectory: URL
    public let keys: KeyStore
    public let bank: EmbeddedBank
    public let journal: Journal
    /// The customers of `rbs-host serve`, their accounts and what the host keeps to sign for them.
    public let customers: Customers
    let database: LedgerDatabase
    let clock: @Sendable () -> Date
    /// Where the ledger's tables are (the data folder's SQLite file, or a PostgreSQL database).
    public var location: LedgerLocation { database.location }

    /// Opens the ledger of `dataDirectory`; `clock` gives the current time. Never creates one: a folder with no
    /// ledger yet throws ``LedgerError/firstStart(directory:)``, and one whose database does not hold the history
    /// that `ledger-tip` or a signing key says existed throws ``LedgerError/historyMissing(directory:found:known:)``
    /// (see ``create(dataDirectory:clock:force:)`` and README, "Data folder").
    ///
    /// `location` says where the ledger's tables are: the data folder's SQLite file (the default) or a PostgreSQL
    /// database several hosts share; the keys and `ledger-tip` stay in the data folder either way.
    public convenience init(dataDirectory: URL, location: LedgerLocation = .dataFolder,
                            clock: @escaping @Sendable () -> Date = { Date() }) throws(LedgerError) {
        let database = try Self.openExisting(dataDirectory, location: location, clock: clock)
        self.init(dataDirectory: dataDirectory, database: database, clock: clock)
    }

    init(dataDirectory: URL, database: LedgerDatabase, clock: @escaping @Sendable () -> Date) {
        self.dataDirectory = dataDirectory
        self.clock = clock
        self.database = database
        keys = KeyStore(dataDirectory: dataDirectory)
        bank = EmbeddedBank(database: database, clock: clock)
        journal = Journal(database: database)
        customers = Customers(database: database, clock: clock)
    }

    /// Closes the database (checkpointing the WAL into the main file).
    public func close() throws(LedgerError) {
        try database.close()
    }
}
