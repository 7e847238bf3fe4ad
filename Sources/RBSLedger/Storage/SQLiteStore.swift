import Foundation
import GRDB
import GRDBSQLite
import Synchronization

/// The ledger in the data folder's `rbs.sqlite`: one host, one file, nothing to install (the default).
///
/// A GRDB `DatabasePool` in WAL mode with `synchronous = FULL`, so a transaction reported committed survives
/// a power cut, not only a process crash; SQLite's one writer serialises every write transaction. Statements
/// run through ``SQLiteTransaction``, which binds and reads values with SQLite's C API on GRDB's cached
/// statements (GRDB's own argument boxing costs more than a small INSERT of group commit).
final class SQLiteStore: LedgerStore {
    let pool: DatabasePool
    let place: String
    var dialect: SQLDialect { .sqlite }

    /// Opens (or, with `create`, first makes, 0600) the SQLite file at `path`, checks its integrity and applies
    /// the schema steps it lacks. Without `create` the file must exist (the caller checked). The file and its
    /// `-wal`/`-shm` must be private to this user.
    init(path: String, create: Bool) throws(LedgerError) {
        place = path
        for file in [path, path + "-wal", path + "-shm"] {
            if let exposure = SecureFile.exposure(of: file) { throw .notPrivate(exposure) }
        }
        if create {
            // Made 0600 before SQLite sees it: SQLite gives the -wal and -shm files the database's mode.
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard fd >= 0 else {
                throw .dataDirectory(path: (path as NSString).deletingLastPathComponent,
                                     detail: "cannot create \(path): \(String(cString: strerror(errno)))")
            }
            Glibc.close(fd)
        }
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            // Checkpoint the WAL every ~32 MB rather than every 4 MB: fewer commits pay for a checkpoint (which
            // copies pages back into the main file and fsyncs it). Durability is the WAL's, unchanged.
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 8000")
            try db.execute(sql: "PRAGMA cache_size = -65536")
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
        }
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            // Again on the writer once the pool is open: GRDB puts every pool's writer in WAL mode after
            // `prepareDatabase` has run and sets `synchronous = NORMAL` there (DatabasePool.init, setUpWALMode), which
            // syncs the WAL only at a checkpoint — a commit reported done could be lost in a power cut. Every write
            // goes through this connection, so FULL here makes each commit fsync the WAL before it returns.
            try pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = FULL")
                let level = try Int.fetchOne(db, sql: "PRAGMA synchronous")
                guard level == 2 else {
                    throw LedgerError.database(path: path, detail: "SQLite would not sync each commit (synchronous = \(level.map(String.init) ?? "unknown"), 2 = FULL needed)")
                }
            }
            let check = try pool.read { db in try String.fetchOne(db, sql: "PRAGMA quick_check") }
            guard check == "ok" else {
                throw LedgerError.corruptDatabase(path: path, detail: "integrity check: \(check ?? "no answer")")
            }
        } catch {
            throw LedgerError.from(error, path: path)
        }
    }

    func write<T>(_ body: (any SQLTransaction) throws -> T) throws -> T {
        try pool.write { db in try body(SQLiteTransaction(db)) }
    }

    func read<T>(_ body: (any SQLTransaction) throws -> T) throws -> T {
        try pool.read { db in try body(SQLiteTransaction(db)) }
    }

    func holdsLedger() throws -> Bool {
        try pool.read { db in try db.tableExists("journal") }
    }

    /// GRDB's migrator records the steps in `grdb_migrations`, as every existing `rbs.sqlite` already has them;
    /// SQLite's one writer is the lock.
    func migrate() throws -> [String] {
        var migrator = DatabaseMigrator()
        for step in LedgerSchema.steps {
            migrator.registerMigration(step.name) { db in try step.apply(SQLiteTransaction(db)) }
        }
        let before = try pool.read { db in try migrator.appliedIdentifiers(db) }
        try migrator.migrate(pool)
        return LedgerSchema.steps.map(\.name).filter { !before.contains($0) }
    }

    func appliedSteps() throws -> [String] {
        let applied = try pool.read { db -> Set<String> in
            guard try db.tableExists("grdb_migrations") else { return [] }
            return Set(try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations"))
        }
        return LedgerSchema.steps.map(\.name).filter(applied.contains) + applied.subtracting(LedgerSchema.steps.map(\.name)).sorted()
    }

    /// Copies the WAL into the main file, truncates the WAL and closes every connection.
    func close() throws {
        _ = try pool.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
        try pool.close()
    }

    func ledgerError(_ error: any Error) -> LedgerError {
        LedgerError.from(error, path: place)
    }
}

/// One transaction on an SQLite connection: GRDB's cached statement for each SQL text, values bound and rows
/// read with SQLite's C API.
final class SQLiteTransaction: SQLTransaction {
    private let db: Database
    var dialect: SQLDialect { .sqlite }
    /// The bytes of the running statement's text and blob arguments, bound where they lie (no destructor: SQLite
    /// copies none of them). Binding each with SQLITE_TRANSIENT made SQLite allocate, copy and free every one — a
    /// journal entry has up to eleven — on group commit's committing thread. A statement is reset and its bindings
    /// cleared before the next one is bound here, so SQLite never reads bytes that are no longer its arguments.
    private var arena: UnsafeMutableRawBufferPointer

    init(_ db: Database) {
        self.db = db
        arena = .allocate(byteCount: 4096, alignment: 8)
    }

    deinit {
        arena.deallocate()
    }

    func execute(_ sql: String, arguments: [SQLValue]) throws {
        let statement = try prepared(sql, arguments)
        defer { Self.release(statement.handle) }
        while try step(statement) {}
    }

    func rows(_ sql: String, arguments: [SQLValue]) throws -> [SQLRow] {
        let statement = try prepared(sql, arguments)
        defer { Self.release(statement.handle) }
        let handle = statement.handle
        let count = sqlite3_column_count(handle)
        // The names are read once the first row is there: most lookups of group commit (is this document
        // journaled already?) answer no row, and naming 24 columns would cost more than the lookup itself.
        var columns: SQLColumns?
        var rows: [SQLRow] = []
        while try step(statement) {
            let named = columns ?? SQLColumns((0..<count).map { String(cString: sqlite3_column_name(handle, $0)) })
            columns = named
            var values: [SQLValue] = []
            values.reserveCapacity(Int(count))
            for index in 0..<count { values.append(Self.value(handle, index)) }
            rows.append(SQLRow(columns: named, values: values))
        }
        return rows
    }

    func executeScript(_ sql: String) throws {
        try db.execute(sql: sql)
    }

    private func prepared(_ sql: String, _ arguments: [SQLValue]) throws -> (statement: Statement, handle: SQLiteStatement) {
        let statement = try db.cachedStatement(sql: sql)
        let handle = statement.sqliteStatement
        // A statement stepped before is reset first (also clearing the error of a failed step, already reported).
        sqlite3_reset(handle)
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard expected == arguments.count else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE,
                                message: "the statement takes \(expected) arguments, \(arguments.count) given", sql: sql)
        }
        var needed = 0
        for value in arguments {
            switch value {
            case .text(let text): needed += text.utf8.count
            case .blob(let bytes): needed += bytes.count
            case .null, .integer: break
            }
        }
        if needed > arena.count {
            // No statement holds a pointer into it: each one's bindings are cleared when it is done.
            arena.deallocate()
            arena = .allocate(byteCount: max(needed, 2 * arena.count), alignment: 8)
        }
        // Never nil: allocated with at least 4096 bytes.
        let base = arena.baseAddress!
        var used = 0
        /// `bytes` copied to the arena: where they start there and how many.
        func place(_ bytes: UnsafeRawBufferPointer) -> (UnsafeMutableRawPointer, Int32) {
            let start = base + used
            if let source = bytes.baseAddress, bytes.count > 0 { start.copyMemory(from: source, byteCount: bytes.count) }
            used += bytes.count
            return (start, Int32(bytes.count))
        }
        for (offset, value) in arguments.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value {
            case .null:
                code = sqlite3_bind_null(handle, index)
            case .integer(let integer):
                code = sqlite3_bind_int64(handle, index, integer)
            case .text(var text):
                // An empty text binds the arena's address with no bytes: a null pointer would bind NULL.
                let (start, count) = text.withUTF8 { place(UnsafeRawBufferPointer($0)) }
                code = sqlite3_bind_text(handle, index, start.assumingMemoryBound(to: CChar.self), count, nil)
            case .blob(let bytes):
                if bytes.isEmpty {
                    code = sqlite3_bind_zeroblob(handle, index, 0)
                } else {
                    let (start, count) = bytes.withUnsafeBytes { place($0) }
                    code = sqlite3_bind_blob(handle, index, start, count, nil)
                }
            }
            guard code == SQLITE_OK else {
                Self.release(handle)
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "cannot bind argument \(index)", sql: sql)
            }
        }
        return (statement, handle)
    }

    /// Done with a statement: reset, and its arguments unbound, since they point into the arena the next
    /// statement's arguments are copied to.
    private static func release(_ handle: SQLiteStatement) {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Steps once: true while there is a row to read.
    private func step(_ statement: (statement: Statement, handle: SQLiteStatement)) throws -> Bool {
        switch sqlite3_step(statement.handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            throw DatabaseError(resultCode: ResultCode(rawValue: sqlite3_extended_errcode(db.sqliteConnection)),
                                message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: statement.statement.sql)
        }
    }

    private static func value(_ handle: SQLiteStatement, _ index: Int32) -> SQLValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_NULL:
            return .null
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(handle, index))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, index))
            guard count > 0, let base = sqlite3_column_blob(handle, index) else { return .blob(Data()) }
            return .blob(Data(bytes: base, count: count))
        default:
            // Text (and a float, which the ledger never stores: read as its text, so it is reported, not lost).
            let count = Int(sqlite3_column_bytes(handle, index))
            guard count > 0, let base = sqlite3_column_text(handle, index) else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self))
        }
    }
}

extension LedgerError {
    /// Maps an SQLite (GRDB) error to a ledger error naming the file.
    static func from(_ error: any Error, path: String) -> LedgerError {
        if let error = error as? LedgerError { return error }
        if let error = error as? DatabaseError {
            switch error.resultCode {
            case .SQLITE_NOTADB, .SQLITE_CORRUPT, .SQLITE_FORMAT:
                return .corruptDatabase(path: path, detail: error.message ?? "\(error.resultCode)")
            // The journal's once-only index (schema step v23-journal-unique-index) refuses what its trigger refused,
            // in the trigger's words (and PostgreSQL's).
            case .SQLITE_CONSTRAINT where error.message?.contains("journal_unique_document") == true:
                return .database(path: path, detail: "the document is already journaled")
            default:
                return .database(path: path, detail: error.message ?? "\(error)")
            }
        }
        return .database(path: path, detail: String(describing: error))
    }
}
