import Foundation
import GRDB
import GRDBSQLite

/// Binds values straight to a GRDB statement's SQLite handle, for the few statements run once per document of a
/// batch: GRDB's `StatementArguments` box every value and bind through nested closures, which costs more than the
/// SQLite work of a small INSERT. Execution still goes through GRDB (`execute()`, `fetchOne`), which resets the
/// statement and keeps the bindings, so its error reporting and bookkeeping are unchanged.
struct RawBindings {
    private let statement: Statement
    private let handle: SQLiteStatement
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// Prepares `statement` for new values: after `prime`, GRDB takes its bindings as set.
    init(_ statement: Statement, prime: Bool) {
        self.statement = statement
        handle = statement.sqliteStatement
        // A statement stepped before must be reset before it can be bound again; resetting also clears the error
        // of a failed step (already reported), which GRDB's own reset in `setUncheckedArguments` would trap on.
        sqlite3_reset(handle)
        if prime {
            statement.setUncheckedArguments(StatementArguments(
                [DatabaseValue](repeating: .null, count: Int(sqlite3_bind_parameter_count(handle)))))
        }
    }

    func bind(_ index: Int32, _ value: String?) throws {
        guard var value else { return try check(sqlite3_bind_null(handle, index)) }
        // An empty text has no buffer to point at, and a null pointer would bind NULL.
        guard !value.isEmpty else { return try check(sqlite3_bind_text(handle, index, "", 0, Self.transient)) }
        try value.withUTF8 { utf8 in
            try utf8.withMemoryRebound(to: CChar.self) { chars in
                try check(sqlite3_bind_text(handle, index, chars.baseAddress, Int32(chars.count), Self.transient))
            }
        }
    }

    func bind(_ index: Int32, _ value: Data) throws {
        try value.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress, bytes.count > 0 else { return try check(sqlite3_bind_zeroblob(handle, index, 0)) }
            try check(sqlite3_bind_blob(handle, index, base, Int32(bytes.count), Self.transient))
        }
    }

    func bind(_ index: Int32, _ value: Int64) throws {
        try check(sqlite3_bind_int64(handle, index, value))
    }

    private func check(_ code: Int32) throws {
        guard code == SQLITE_OK else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "cannot bind a value", sql: statement.sql)
        }
    }
}
