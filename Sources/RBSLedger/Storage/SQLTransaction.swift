import Foundation

/// The SQL dialect a store speaks, for the few statements that differ (schema steps mostly).
public enum SQLDialect: String, Sendable {
    case sqlite
    case postgres
}

/// One transaction of a ``LedgerStore``: what the ledger's code runs its statements through, whichever engine
/// holds the tables.
///
/// Statements use `?` placeholders, one per argument, in order (the PostgreSQL store numbers them). The SQL the
/// ledger writes is the common part of both dialects: `INSERT … ON CONFLICT … DO …`, `INSERT … RETURNING`,
/// `COALESCE`, no `rowid` outside the tables that declare one, no `INSERT OR …`. A statement that fails throws
/// the engine's error; the store maps it to a ``LedgerError`` naming where the ledger is.
public protocol SQLTransaction: AnyObject {
    var dialect: SQLDialect { get }

    /// Runs one statement for its effect.
    func execute(_ sql: String, arguments: [SQLValue]) throws

    /// Runs one query and reads every row of its result.
    func rows(_ sql: String, arguments: [SQLValue]) throws -> [SQLRow]

    /// Runs several statements without arguments (a schema step's DDL), in order.
    func executeScript(_ sql: String) throws

    /// Whether the journal's entries have ids and positions apart (PostgreSQL, schema step `v30-sequenced-apart`):
    /// the chain runs in `position` order, and `seq` is an id with gaps. Otherwise `seq` is both.
    var journalPositions: Bool { get }
}

extension SQLTransaction {
    public var journalPositions: Bool { false }
}

extension SQLTransaction {
    /// Runs one statement for its effect.
    public func execute(_ sql: String, _ arguments: any SQLArgument...) throws {
        try execute(sql, arguments: arguments.map(\.sqlValue))
    }

    /// Every row of one query.
    public func rows(_ sql: String, _ arguments: any SQLArgument...) throws -> [SQLRow] {
        try rows(sql, arguments: arguments.map(\.sqlValue))
    }

    /// The first row of one query, if any.
    public func row(_ sql: String, _ arguments: any SQLArgument...) throws -> SQLRow? {
        try rows(sql, arguments: arguments.map(\.sqlValue)).first
    }

    /// The first column of the first row, as a `T`; nil when there is no row or the value is NULL. A value of
    /// another kind throws ``SQLRowError``.
    public func value<T: SQLColumn>(_ type: T.Type = T.self, _ sql: String, _ arguments: any SQLArgument...) throws -> T? {
        guard let row = try rows(sql, arguments: arguments.map(\.sqlValue)).first, let first = row.values.first else {
            return nil
        }
        return try Self.read(first, as: T.self, column: row.columns.names.first ?? "?")
    }

    /// The first column of every row, as `T`s (NULLs left out).
    public func values<T: SQLColumn>(_ type: T.Type = T.self, _ sql: String, _ arguments: any SQLArgument...) throws -> [T] {
        try rows(sql, arguments: arguments.map(\.sqlValue)).compactMap { row in
            guard let first = row.values.first else { return nil }
            return try Self.read(first, as: T.self, column: row.columns.names.first ?? "?")
        }
    }

    /// Whether the query answers at least one row.
    public func exists(_ sql: String, _ arguments: any SQLArgument...) throws -> Bool {
        try !rows(sql, arguments: arguments.map(\.sqlValue)).isEmpty
    }

    private static func read<T: SQLColumn>(_ value: SQLValue, as type: T.Type, column: String) throws -> T? {
        if case .null = value { return nil }
        guard let read = T(sqlValue: value) else {
            throw SQLRowError.wrongKind(column: column, found: value, expected: String(describing: T.self))
        }
        return read
    }
}
