/// A string operator: `BEGINSWITH ENDSWITH CONTAINS LIKE MATCHES`.
enum StringOperator: Sendable, Hashable, CustomStringConvertible {
    case beginsWith, endsWith, contains, like, matches

    var description: String {
        switch self {
        case .beginsWith: "BEGINSWITH"
        case .endsWith: "ENDSWITH"
        case .contains: "CONTAINS"
        case .like: "LIKE"
        case .matches: "MATCHES"
        }
    }
}
