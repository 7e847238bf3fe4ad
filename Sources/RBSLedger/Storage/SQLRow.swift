/// One row of a result: its values in column order, looked up by column name.
public struct SQLRow: Sendable {
    /// The result's column names, shared by every row of one result.
    public let columns: SQLColumns
    public let values: [SQLValue]

    public init(columns: SQLColumns, values: [SQLValue]) {
        self.columns = columns
        self.values = values
    }

    /// The value of `column` as a `T`; a missing column or a value of another kind throws
    /// ``SQLRowError`` naming both, so a damaged row is reported, never trapped on.
    public func decode<T: SQLColumn>(_ type: T.Type = T.self, forColumn column: String) throws(SQLRowError) -> T {
        guard let index = columns.index(of: column) else { throw .noColumn(column, among: columns.names) }
        guard let value = T(sqlValue: values[index]) else {
            throw .wrongKind(column: column, found: values[index], expected: String(describing: T.self))
        }
        return value
    }

    /// The value of `column` as a `T` (``decode(_:forColumn:)`` in brief): a damaged row throws, naming the
    /// column, so `verify` and every reader report it instead of stopping the host.
    public subscript<T: SQLColumn>(_ column: String) -> T {
        get throws(SQLRowError) { try decode(T.self, forColumn: column) }
    }
}

/// The column names of one result, with their positions.
public final class SQLColumns: Sendable {
    public let names: [String]
    private let positions: [String: Int]

    public init(_ names: [String]) {
        self.names = names
        var positions: [String: Int] = [:]
        for (index, name) in names.enumerated() where positions[name] == nil {
            positions[name] = index
            positions[name.lowercased()] = positions[name.lowercased()] ?? index
        }
        self.positions = positions
    }

    /// The first column called `name` (SQL names are case-insensitive).
    public func index(of name: String) -> Int? {
        positions[name] ?? positions[name.lowercased()]
    }
}

/// A row read as something it does not hold.
public enum SQLRowError: Error, CustomStringConvertible {
    case noColumn(String, among: [String])
    case wrongKind(column: String, found: SQLValue, expected: String)

    public var description: String {
        switch self {
        case .noColumn(let column, let names):
            "the result has no column \(column) (it has \(names.joined(separator: ", ")))"
        case .wrongKind(let column, let found, let expected):
            "column \(column) holds \(found.kindDescription), not \(expected)"
        }
    }
}

extension SQLValue {
    /// What kind of value this is, for messages ("NULL", "the integer 5", "text of 12 characters", "4 bytes").
    var kindDescription: String {
        switch self {
        case .null: "NULL"
        case .integer(let value): "the integer \(value)"
        case .text(let text): "text of \(text.count) characters"
        case .blob(let bytes): "\(bytes.count) bytes"
        }
    }
}
