/// A node of a compiled, type-checked expression: field references are slot indices.
indirect enum Node: Sendable {
    case constant(ExprValue)
    case field(Int)
    case and([Node])
    case or([Node])
    case not(Node)
    /// Any comparison, with null semantics and int/decimal promotion.
    case compare(ComparisonOperator, Node, Node)
    /// Fast path for `$field OP integer-literal` on an int or decimal field.
    case compareFieldInt(ComparisonOperator, slot: Int, Int64)
    /// Fast path for `$field == NIL` (negated: `!= NIL`).
    case fieldIsNull(slot: Int, negated: Bool)
    /// BEGINSWITH, ENDSWITH, CONTAINS.
    case stringTest(StringOperator, StringOptions, Node, Node)
    case like(Node, LikePattern)
    case likeDynamic(Node, Node, StringOptions)
    case matches(Node, RegexPattern)
    case matchesDynamic(Node, Node, StringOptions)
    case member(Node, [Node])
    case between(Node, Node, Node)
    case negate(Node)
    case builtin(Builtin, [Node])
    case foreign(ForeignFunction, [Node])
}
