import GRDBSQLite
import Synchronization

/// Remembers which customers ``Customers/isActive(_:)`` found active, for as long as the SQLite ledger has not
/// changed since: `serve` asks on every request whether the session's customer is still in the ledger (a removal or a
/// new key by `customers` in another process ends the session), and a full read transaction for an answer that has not
/// changed was the largest cost of a request after the HTTP work itself.
///
/// "Not changed" is SQLite's own word for it: `PRAGMA data_version` on a connection of the memo's own changes whenever
/// any other connection, of this process or another, commits to the file (SQLite reads it from the WAL index: no file
/// is read). A memo is kept only under the version read *before* the ledger was asked, so a commit that lands between
/// the two only makes the next check ask again. Only "active" is remembered; any error of the memo's connection asks
/// the ledger as before. PostgreSQL's ledger has no memo (another host's commit is not visible this way).
final class StandingMemo: Sendable {
    private struct State: @unchecked Sendable {
        /// The memo's own connection (read-only) and its prepared `PRAGMA data_version`; nil once closed or failed.
        var connection: OpaquePointer?
        var statement: OpaquePointer?
        /// The version the remembered answers hold for, and the active customers' key ids by customer id.
        var version: Int64?
        var active: [Int64: String] = [:]
    }
    private let state: Mutex<State>

    /// Opens the memo's connection to the SQLite file at `path` (already opened by the ledger), or a memo that
    /// never remembers when it cannot be opened.
    init(path: String) {
        var state = State()
        var connection: OpaquePointer?
        if sqlite3_open_v2(path, &connection, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK {
            var statement: OpaquePointer?
            if sqlite3_prepare_v2(connection, "PRAGMA data_version", -1, &statement, nil) == SQLITE_OK {
                state.connection = connection
                state.statement = statement
            } else {
                sqlite3_close_v2(connection)
            }
        } else if connection != nil {
            sqlite3_close_v2(connection)
        }
        self.state = Mutex(state)
    }

    /// The ledger's version now, or nil when it cannot be read (then nothing is remembered or answered).
    func version() -> Int64? {
        state.withLock { state -> Int64? in
            guard let statement = state.statement else { return nil }
            defer { sqlite3_reset(statement) }
            guard sqlite3_step(statement) == SQLITE_ROW else { return nil }
            let version = sqlite3_column_int64(statement, 0)
            if version != state.version {
                state.version = version
                state.active = [:]
            }
            return version
        }
    }

    /// Whether `customer` (with this key) was found active at `version`.
    func knowsActive(_ customer: Customer, at version: Int64) -> Bool {
        state.withLock { $0.version == version && $0.active[customer.id] == customer.keyId }
    }

    /// Remembers that `customer` was found active by a read that began after `version` was read.
    func rememberActive(_ customer: Customer, at version: Int64) {
        state.withLock { state in
            if state.version == version { state.active[customer.id] = customer.keyId }
        }
    }

    /// Closes the memo's connection (before the ledger's last one closes, so that one still folds the WAL back).
    func close() {
        state.withLock { state in
            sqlite3_finalize(state.statement)
            sqlite3_close_v2(state.connection)
            state = State()
        }
    }

    deinit {
        close()
    }
}
