import Foundation

/// Whether a ledger can be used now, as `GET /health` reports it: its data folder is the one opened and still
/// private, and its tables answer (the SQLite file, or the PostgreSQL server several hosts share).
public struct LedgerHealth: Sendable, Hashable {
    /// What happened to the data folder while the ledger was open; nil while it is as it was opened.
    public let folder: DataFolderChange?
    /// Where the tables are: the SQLite file's path, or `postgres://user@host:port/db` (never the password).
    public let place: String
    /// Why the tables cannot be read now (the server stopped, the connection refused); nil when they answer.
    public let database: LedgerError?

    public init(folder: DataFolderChange?, place: String, database: LedgerError?) {
        self.folder = folder
        self.place = place
        self.database = database
    }

    /// Both parts usable: what signing needs.
    public var isUsable: Bool { folder == nil && database == nil }
}

extension Ledger {
    /// Checks the data folder (``DataFolderWatch``: a change found here stops the ledger, as a transaction finding it
    /// would) and asks the tables a trivial question — each on its own, so a report says which part failed.
    public func health() -> LedgerHealth {
        var folder: DataFolderChange?
        do {
            try database.watch.check()
        } catch {
            if case .dataFolderChanged(let change) = error { folder = change }
        }
        var failure: LedgerError?
        do {
            _ = try database.probe()
        } catch {
            failure = error
        }
        return LedgerHealth(folder: folder, place: database.place, database: failure)
    }
}

extension LedgerDatabase {
    /// Reads one value from the store past the data folder's watch (which ``Ledger/health()`` reports on its own):
    /// it throws when the SQLite file cannot be read or the PostgreSQL server does not answer.
    func probe() throws(LedgerError) -> Int? {
        do {
            return try store.read { db in try db.value(Int.self, "SELECT 1") }
        } catch {
            throw store.ledgerError(error)
        }
    }
}
