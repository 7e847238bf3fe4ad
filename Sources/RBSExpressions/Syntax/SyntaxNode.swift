/// A node of the parsed, not yet type-checked expression.
struct SyntaxNode: Sendable {
    indirect enum Kind: Sendable {
        case literal(ExprValue)
        /// `$name` (explicit) or a bare `name`, which may also be a zero-argument function.
        case name(String, explicitField: Bool)
        case call(String, [SyntaxNode])
        case and([SyntaxNode])
        case or([SyntaxNode])
        case not(SyntaxNode)
        case negate(SyntaxNode)
        case comparison(ComparisonOperator, SyntaxNode, SyntaxNode)
        case string(StringOperator, StringOptions, SyntaxNode, SyntaxNode)
        case `in`(SyntaxNode, [SyntaxNode])
        case between(SyntaxNode, SyntaxNode, SyntaxNode)
    }

    var kind: Kind
    /// 1-based column of the node's first token (for operators: the operator's token).
    var column: Int
}
