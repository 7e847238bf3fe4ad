/// An expression compiled once against an ``ExpressionScope`` and evaluated many times.
///
/// Null semantics (a field is null when it is empty or hidden):
/// - `x == NIL` is true exactly when x is null; `x == y` is true when both are null; `!=` is the negation of `==`
///   (so `$x != 1` is true for a null `$x`).
/// - `< <= > >=`, BEGINSWITH, ENDSWITH, CONTAINS, LIKE, MATCHES and BETWEEN with a null operand are false.
/// - `x IN {a, b}` is `x == a OR x == b`.
/// - A null string passed to a built-in function counts as "" (`len($x)` is 0); a null non-string argument
///   to a plugin function skips the call and gives null.
/// - AND, OR and NOT read null as false; ``test(_:instance:)`` reads anything but `.bool(true)` as false.
/// - int and decimal compare numerically; values of other mismatched types are unequal and unordered.
///
/// Evaluation never throws and never traps; its cost is bounded by the 1,024-node limit.
public final class CompiledExpression: Sendable {
    /// The text it was compiled from.
    public let source: String
    /// The static type of the result; nil when the expression is the bare NIL literal.
    public let resultType: ValueType?
    /// The slots the expression reads, ascending (for dependency tracking).
    public let reads: [Int]
    /// Whether it calls an instance-bound plugin function, so that it must be recomputed after every commit.
    public let isVolatile: Bool
    let root: Node
    /// The root lowered to closures, for ``test(_:instance:)``.
    private let condition: ConditionProgram.Test

    private init(source: String, resultType: ValueType?, reads: [Int], isVolatile: Bool, root: Node) {
        self.source = source
        self.resultType = resultType
        self.reads = reads
        self.isVolatile = isVolatile
        self.root = root
        condition = ConditionProgram.lower(root)
    }

    /// Compiles `source` against `scope`; `expecting` is the required result type (nil: any).
    ///
    /// Throws ``ExpressionError`` with the 1-based column for parse errors, unknown fields and functions,
    /// type mismatches, bad MATCHES patterns and the limits (4,096 bytes, 1,024 nodes, nesting 64).
    public static func compile(_ source: String, in scope: ExpressionScope,
                               expecting: ValueType? = .bool) throws(ExpressionError) -> CompiledExpression {
        let syntax = try Parser.parse(source)
        var checker = TypeChecker(scope: scope)
        let typed = try checker.check(syntax)
        if let expecting, !TypeChecker.assignable(typed.type, to: expecting) {
            throw .typeMismatch(column: syntax.column,
                                message: "the expression gives \(typed.type.map(\.description) ?? "NIL") but \(expecting) is expected")
        }
        return CompiledExpression(source: source, resultType: typed.type, reads: checker.reads.sorted(),
                                  isVolatile: checker.isVolatile, root: typed.node)
    }

    /// Evaluates over `values` (indexed by the scope's slots; a missing slot reads null).
    /// `instance` is passed to instance-bound plugin functions; without it they give null.
    public func evaluate(_ values: [ExprValue], instance: UnsafeMutableRawPointer? = nil) -> ExprValue {
        Evaluator(values: values, instance: instance).value(root)
    }

    /// Evaluates as a condition: true only when the result is `.bool(true)`.
    public func test(_ values: [ExprValue], instance: UnsafeMutableRawPointer? = nil) -> Bool {
        condition(values, instance)
    }
}
