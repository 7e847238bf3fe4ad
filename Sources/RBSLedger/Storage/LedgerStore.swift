import Foundation

/// Where a ledger's tables live and how its transactions run: the data folder's SQLite file (``SQLiteStore``,
/// the default: one host, nothing to install) or a PostgreSQL database that several hosts share.
///
/// Every guarantee the ledger gives across hosts is the database's, not one process's memory: each write
/// transaction is serialised with every other writer of the same ledger (SQLite: its one writer; PostgreSQL: a
/// transaction-scoped lock taken first), so the journal stays one hash chain, a document id is journaled once,
/// no balance passes its limit and a one-time code is accepted once, whichever host runs the transaction.
protocol LedgerStore: Sendable {
    /// Where the ledger is, as messages name it: the SQLite file's path, or `postgres://user@host:port/db`
    /// (never the password).
    var place: String { get }

    var dialect: SQLDialect { get }

    /// Runs `body` in one write transaction, serialised with every other writer of this ledger; commits when
    /// `body` returns, rolls back when it throws. Durable when it returns.
    func write<T>(_ body: (any SQLTransaction) throws -> T) throws -> T

    /// Runs `body` on a consistent snapshot.
    func read<T>(_ body: (any SQLTransaction) throws -> T) throws -> T

    /// The rows of one query, on its own snapshot: on PostgreSQL one round trip (a statement outside a transaction
    /// is its own snapshot, no BEGIN and COMMIT around it).
    func query(_ sql: String, arguments: [SQLValue]) throws -> [SQLRow]

    /// Whether the ledger's tables exist (a database made by `init`, not an empty one).
    func holdsLedger() throws -> Bool

    /// Applies the schema steps of ``LedgerSchema`` not yet applied, under a lock so that two hosts starting at
    /// once do not race. Returns the names of the steps applied now.
    @discardableResult
    func migrate() throws -> [String]

    /// The schema steps applied, in order.
    func appliedSteps() throws -> [String]

    /// Ends every connection (SQLite: after copying its WAL into the main file).
    func close() throws

    /// The ledger error for an error this store's engine threw, naming ``place``.
    func ledgerError(_ error: any Error) -> LedgerError

    /// Chains every journal entry stored and not integrated yet (PostgreSQL with schema step
    /// `v29-chain-integrated-apart`); SQLite chains each entry in the transaction that stores it.
    func integrate() throws
}

extension LedgerStore {
    func integrate() throws {}

    func query(_ sql: String, arguments: [SQLValue]) throws -> [SQLRow] {
        try read { db in try db.rows(sql, arguments: arguments) }
    }
}
