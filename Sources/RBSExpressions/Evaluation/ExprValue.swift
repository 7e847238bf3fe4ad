import Foundation

/// A value an expression reads from a field or produces.
///
/// `null` stands for an empty field, a hidden field (hidden atoms never count) or a missing result.
public enum ExprValue: Sendable, Hashable, CustomStringConvertible {
    case null
    case bool(Bool)
    case int(Int64)
    case decimal(Decimal)
    case string(String)

    /// The value's type, or nil for null.
    public var type: ValueType? {
        switch self {
        case .null: nil
        case .bool: .bool
        case .int: .int
        case .decimal: .decimal
        case .string: .string
        }
    }

    /// Whether this is `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// True only for `.bool(true)`: how AND, OR, NOT and conditions read a value (null counts as false).
    public var isTrue: Bool {
        if case .bool(true) = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .null: "NIL"
        case .bool(let b): b ? "YES" : "NO"
        case .int(let i): String(i)
        case .decimal(let d): "\(d)"
        case .string(let s): "'\(s)'"
        }
    }
}
