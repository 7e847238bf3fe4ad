/// A comparison between two operands: `== = != <> < <= > >=`.
enum ComparisonOperator: Sendable, Hashable, CustomStringConvertible {
    case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual

    /// Whether the operator orders its operands (as opposed to testing equality).
    var isOrdering: Bool {
        switch self {
        case .equal, .notEqual: false
        default: true
        }
    }

    /// Applies an ordering operator to the result of a three-way comparison (-1, 0, 1).
    @inline(__always)
    func holds(_ order: Int) -> Bool {
        switch self {
        case .equal: order == 0
        case .notEqual: order != 0
        case .less: order < 0
        case .lessOrEqual: order <= 0
        case .greater: order > 0
        case .greaterOrEqual: order >= 0
        }
    }

    var description: String {
        switch self {
        case .equal: "=="
        case .notEqual: "!="
        case .less: "<"
        case .lessOrEqual: "<="
        case .greater: ">"
        case .greaterOrEqual: ">="
        }
    }
}
