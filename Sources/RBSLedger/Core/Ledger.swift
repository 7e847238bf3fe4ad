import Crypto
import Foundation
import GRDB

/// The host's one entry point to documents, keys, codes, the journal and the core bank of one data directory.
///
/// Everything lives in the data directory: the key files (see ``KeyStore``) and `rbs.sqlite` (journal, accounts,
/// postings, registered public keys, one-time code state).
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
public final class Ledger: Sendable {
    public let dataDirectory: URL
    public let keys: KeyStore
    public let core: Core
    public let journal: Journal
    let database: LedgerDatabase
    let clock: @Sendable () -> Date

    /// Opens (creating and seeding on first use) the ledger of `dataDirectory`; `clock` gives the current time.
    public init(dataDirectory: URL, clock: @escaping @Sendable () -> Date = { Date() }) throws(LedgerError) {
        self.dataDirectory = dataDirectory
        self.clock = clock
        keys = KeyStore(dataDirectory: dataDirectory)
        database = try LedgerDatabase(dataDirectory: dataDirectory)
        core = Core(database: database, clock: clock)
        journal = Journal(database: database)
    }

    /// The one-time code verifier for the enrolled TOTP secret.
    public func codeVerifier() throws(LedgerError) -> CodeVerifier {
        CodeVerifier(database: database, secret: try identity().totpSecret, clock: clock)
    }

    /// A new document for the enrolled key: now (from the clock), a fresh nonce, the key id filled in.
    public func draft(
        operation: String, plugin: String, pluginVersion: String, fields: [DocumentField]
    ) throws(LedgerError) -> Document {
        let keyId = try identity().keyId
        do {
            return try Document(
                operation: operation, plugin: plugin, pluginVersion: pluginVersion, fields: fields,
                createdAt: clock(), nonce: Document.randomNonce(), keyId: keyId)
        } catch {
            throw .document(error)
        }
    }

    /// Checks the one-time code, signs the document, journals it and posts it — the code state, the journal
    /// entry and the posting in one transaction. A wrong code is recorded (towards the lock) and thrown.
    public func signAndPost(_ document: Document, code: String) throws(LedgerError) -> Outcome {
        let outcomes = try process(batch: [document], code: code)
        return outcomes[0]
    }

    /// Group commit: one code authorises the batch; every document is signed, then all are journaled and posted
    /// in ONE transaction, and each outcome is reported only after that commit.
    public func process(batch: [Document], code: String) throws(LedgerError) -> [Outcome] {
        let identity = try identity()
        var signed: [SignedDocument] = []
        var ids: [String] = []
        signed.reserveCapacity(batch.count)
        ids.reserveCapacity(batch.count)
        // Signed on all cores; the first failure in batch order is the one reported, as when signing in order.
        for result in identity.signAll(batch) {
            switch result {
            case .success(let prepared):
                signed.append(prepared.signed)
                ids.append(prepared.id)
            case .failure(let error):
                throw .keys(error)
            }
        }
        let verifier = CodeVerifier(database: database, secret: identity.totpSecret, clock: clock)
        let publicKey = identity.publicKey.rawRepresentation
        let core = self.core
        let result: Result<[Outcome], OneTimeCodeError> = try database.write { db in
            switch try verifier.check(code, in: db) {
            case .failure(let error):
                return .failure(error)  // committed: the wrong attempt counts
            case .success:
                return .success(try core.apply(batch: signed, ids: ids, publicKey: publicKey, in: db))
            }
        }
        switch result {
        case .success(let outcomes): return outcomes
        case .failure(let error): throw .code(error)
        }
    }

    /// Closes the database (checkpointing the WAL into the main file).
    public func close() throws(LedgerError) {
        try database.close()
    }

    private func identity() throws(LedgerError) -> SigningIdentity {
        do {
            return try keys.load()
        } catch {
            throw .keys(error)
        }
    }
}
