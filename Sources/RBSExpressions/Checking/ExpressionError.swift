/// Why an expression did not compile. Every case carries the 1-based column (in Unicode scalars) in the source.
public enum ExpressionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text does not follow the grammar: what was expected and what was found instead.
    case parse(column: Int, expected: String, found: String)
    /// A literal that cannot be represented (an integer beyond Int64, an unterminated string, ...).
    case badLiteral(column: Int, text: String, reason: String)
    /// `$name` or a bare name that the scope does not declare.
    case unknownField(column: Int, name: String)
    /// A call of a function the scope does not declare.
    case unknownFunction(column: Int, name: String)
    /// A call with the wrong number of arguments.
    case argumentCount(column: Int, function: String, expected: Int, found: Int)
    /// Operands or arguments of types the operator or function does not accept.
    case typeMismatch(column: Int, message: String)
    /// A field compared with a literal it can never hold (an enum's non-option, letters for a digits-only field).
    /// `relation` says what can never hold: "be 'OTHER'", "begin with 'ab'".
    case neverTrue(column: Int, field: String, relation: String, explanation: String)
    /// A MATCHES pattern that is not a valid regular expression.
    case regex(column: Int, pattern: String, reason: String)
    /// Parentheses, NOT, unary minus and calls nested deeper than `limit`.
    case tooDeep(column: Int, limit: Int)
    /// More than `limit` syntax nodes.
    case tooManyNodes(column: Int, limit: Int)
    /// A source longer than `limit` bytes of UTF-8.
    case tooLong(column: Int, bytes: Int, limit: Int)

    /// The 1-based column the error points at.
    public var column: Int {
        switch self {
        case .parse(let c, _, _), .badLiteral(let c, _, _), .unknownField(let c, _), .unknownFunction(let c, _),
             .argumentCount(let c, _, _, _), .typeMismatch(let c, _), .neverTrue(let c, _, _, _), .regex(let c, _, _), .tooDeep(let c, _),
             .tooManyNodes(let c, _), .tooLong(let c, _, _):
            c
        }
    }

    public var description: String {
        switch self {
        case .parse(let c, let expected, let found):
            "column \(c): expected \(expected) but found \(found)"
        case .badLiteral(let c, let text, let reason):
            "column \(c): \(text): \(reason)"
        case .unknownField(let c, let name):
            "column \(c): unknown field '\(name)'; check the atom id or declare the field in the scope"
        case .unknownFunction(let c, let name):
            "column \(c): unknown function '\(name)'; it is neither built in nor exported by the plugin"
        case .argumentCount(let c, let function, let expected, let found):
            "column \(c): \(function)() takes \(expected) argument\(expected == 1 ? "" : "s") but was given \(found)"
        case .typeMismatch(let c, let message):
            "column \(c): type mismatch: \(message)"
        case .neverTrue(let c, let field, let relation, let explanation):
            "column \(c): \(field) can never \(relation): \(explanation)"
        case .regex(let c, let pattern, let reason):
            "column \(c): invalid regular expression '\(pattern)': \(reason)"
        case .tooDeep(let c, let limit):
            "column \(c): expression nested deeper than \(limit) levels; split it or remove parentheses"
        case .tooManyNodes(let c, let limit):
            "column \(c): expression has more than \(limit) nodes; simplify it"
        case .tooLong(let c, let bytes, let limit):
            "column \(c): expression is \(bytes) bytes long; the limit is \(limit)"
        }
    }
}
