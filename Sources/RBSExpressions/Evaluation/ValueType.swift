/// The static type of a field, a function parameter or an expression's result.
///
/// Every value of every type may also be null (an empty or hidden field); see ``ExprValue``.
public enum ValueType: Sendable, Hashable, CustomStringConvertible {
    case bool, int, decimal, string

    public var description: String {
        switch self {
        case .bool: "bool"
        case .int: "int"
        case .decimal: "decimal"
        case .string: "string"
        }
    }
}
