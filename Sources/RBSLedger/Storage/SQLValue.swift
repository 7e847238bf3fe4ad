import Foundation

/// A value bound to a statement or read from a row, the same whichever engine runs the statement.
///
/// The ledger stores four kinds of value: integers (sequence numbers, milliseconds, flags), text (amounts as
/// exact decimal text, identifiers), bytes (documents, signatures, hashes, keys) and NULL. Money is never a
/// floating-point column.
public enum SQLValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case text(String)
    case blob(Data)
}

/// A Swift value that can be a statement's argument.
public protocol SQLArgument {
    var sqlValue: SQLValue { get }
}

/// A Swift value a column can be read as. `init?(sqlValue:)` answers nil when the stored value is not of this
/// kind (a damaged row), so the reader reports it instead of trapping.
public protocol SQLColumn {
    init?(sqlValue: SQLValue)
}

extension SQLValue: SQLArgument, SQLColumn {
    public var sqlValue: SQLValue { self }
    public init?(sqlValue: SQLValue) { self = sqlValue }
}

extension String: SQLArgument, SQLColumn {
    public var sqlValue: SQLValue { .text(self) }
    public init?(sqlValue: SQLValue) {
        guard case .text(let text) = sqlValue else { return nil }
        self = text
    }
}

extension Int64: SQLArgument, SQLColumn {
    public var sqlValue: SQLValue { .integer(self) }
    public init?(sqlValue: SQLValue) {
        guard case .integer(let value) = sqlValue else { return nil }
        self = value
    }
}

extension Int: SQLArgument, SQLColumn {
    public var sqlValue: SQLValue { .integer(Int64(self)) }
    public init?(sqlValue: SQLValue) {
        guard case .integer(let value) = sqlValue, let int = Int(exactly: value) else { return nil }
        self = int
    }
}

extension Bool: SQLArgument, SQLColumn {
    public var sqlValue: SQLValue { .integer(self ? 1 : 0) }
    /// Any integer: zero is false (as SQLite and the ledger's 0/1 columns have it).
    public init?(sqlValue: SQLValue) {
        guard case .integer(let value) = sqlValue else { return nil }
        self = value != 0
    }
}

extension Data: SQLArgument, SQLColumn {
    public var sqlValue: SQLValue { .blob(self) }
    public init?(sqlValue: SQLValue) {
        guard case .blob(let bytes) = sqlValue else { return nil }
        self = bytes
    }
}

extension Optional: SQLArgument where Wrapped: SQLArgument {
    public var sqlValue: SQLValue { self?.sqlValue ?? .null }
}

extension Optional: SQLColumn where Wrapped: SQLColumn {
    /// NULL reads as nil; any other value must be a `Wrapped`.
    public init?(sqlValue: SQLValue) {
        if case .null = sqlValue {
            self = .none
            return
        }
        guard let value = Wrapped(sqlValue: sqlValue) else { return nil }
        self = .some(value)
    }
}
