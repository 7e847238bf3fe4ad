/// Resolves names against an ``ExpressionScope``, checks types and lowers syntax to evaluable ``Node``s.
///
/// A static type of `nil` means the NIL literal, which is compatible with every type.
struct TypeChecker {
    let scope: ExpressionScope
    /// Slots the expression reads.
    private(set) var reads: Set<Int> = []
    /// Whether the expression calls an instance-bound plugin function.
    private(set) var isVolatile = false

    init(scope: ExpressionScope) {
        self.scope = scope
    }

    typealias Typed = (node: Node, type: ValueType?)

    private static func name(_ type: ValueType?) -> String { type.map(\.description) ?? "NIL" }

    private static func isNumeric(_ type: ValueType?) -> Bool { type == .int || type == .decimal }

    /// Whether a value of type `from` may be passed where `to` is expected (NIL anywhere, int where decimal).
    static func assignable(_ from: ValueType?, to: ValueType) -> Bool {
        guard let from else { return true }
        return from == to || (from == .int && to == .decimal)
    }

    mutating func check(_ syntax: SyntaxNode) throws(ExpressionError) -> Typed {
        let column = syntax.column
        switch syntax.kind {
        case .literal(let value):
            return (.constant(value), value.type)
        case .name(let name, let explicitField):
            if let field = scope.fields[name] {
                reads.insert(field.slot)
                return (.field(field.slot), field.type)
            }
            if !explicitField, scope.functions[name] != nil || Builtin(rawValue: name) != nil {
                return try call(name, [], column: column)
            }
            throw .unknownField(column: column, name: name)
        case .call(let name, let arguments):
            return try call(name, arguments, column: column)
        case .and(let operands), .or(let operands):
            let word = if case .and = syntax.kind { "AND" } else { "OR" }
            var nodes: [Node] = []
            for operand in operands {
                let typed = try check(operand)
                guard Self.assignable(typed.type, to: .bool) else {
                    throw .typeMismatch(column: operand.column,
                                        message: "\(word) needs bool operands, but this one is \(Self.name(typed.type))")
                }
                nodes.append(typed.node)
            }
            if case .and = syntax.kind { return (.and(nodes), .bool) }
            return (.or(nodes), .bool)
        case .not(let operand):
            let typed = try check(operand)
            guard Self.assignable(typed.type, to: .bool) else {
                throw .typeMismatch(column: column, message: "NOT needs a bool operand, not \(Self.name(typed.type))")
            }
            return (.not(typed.node), .bool)
        case .negate(let operand):
            let typed = try check(operand)
            guard let type = typed.type, Self.isNumeric(type) else {
                throw .typeMismatch(column: column, message: "unary minus needs a number, not \(Self.name(typed.type))")
            }
            return (.negate(typed.node), type)
        case .comparison(let op, let leftSyntax, let rightSyntax):
            let left = try check(leftSyntax), right = try check(rightSyntax)
            try requireComparable(left.type, right.type, ordering: op.isOrdering, what: "'\(op)'", column: column)
            if !op.isOrdering {
                try requirePossible(leftSyntax, rightSyntax)
                try requirePossible(rightSyntax, leftSyntax)
            }
            return (Self.lowerComparison(op, left.node, right.node), .bool)
        case .string(let op, let options, let leftSyntax, let rightSyntax):
            let left = try check(leftSyntax), right = try check(rightSyntax)
            for (side, typed) in [("left", left), ("right", right)] where typed.type != .string {
                throw .typeMismatch(column: column,
                                    message: "\(op) needs strings, but the \(side) operand is \(Self.name(typed.type))")
            }
            try requirePossible(op, options, leftSyntax, rightSyntax)
            switch op {
            case .like:
                if case .constant(.string(let p)) = right.node {
                    return (.like(left.node, LikePattern(p, options: options)), .bool)
                }
                return (.likeDynamic(left.node, right.node, options), .bool)
            case .matches:
                if case .constant(.string(let p)) = right.node {
                    do {
                        return (.matches(left.node, try RegexPattern(p, options: options)), .bool)
                    } catch {
                        throw .regex(column: rightSyntax.column, pattern: p,
                                     reason: RegexPattern.problem(with: p, options: options) ?? "does not compile")
                    }
                }
                return (.matchesDynamic(left.node, right.node, options), .bool)
            default:
                return (.stringTest(op, options, left.node, right.node), .bool)
            }
        case .in(let operandSyntax, let elementSyntax):
            let operand = try check(operandSyntax)
            var elements: [Node] = []
            for syntax in elementSyntax {
                let element = try check(syntax)
                try requireComparable(operand.type, element.type, ordering: false, what: "IN", column: syntax.column)
                try requirePossible(operandSyntax, syntax)
                elements.append(element.node)
            }
            return (.member(operand.node, elements), .bool)
        case .between(let operandSyntax, let lowSyntax, let highSyntax):
            let operand = try check(operandSyntax)
            let low = try check(lowSyntax), high = try check(highSyntax)
            try requireComparable(operand.type, low.type, ordering: true, what: "BETWEEN", column: lowSyntax.column)
            try requireComparable(operand.type, high.type, ordering: true, what: "BETWEEN", column: highSyntax.column)
            return (.between(operand.node, low.node, high.node), .bool)
        }
    }

    /// Refuses `field == literal` (or IN) when the field's domain can never hold the literal.
    private func requirePossible(_ fieldSyntax: SyntaxNode, _ literalSyntax: SyntaxNode) throws(ExpressionError) {
        guard case .name(let name, _) = fieldSyntax.kind, let field = scope.fields[name], let domain = field.domain,
              case .literal(let literal) = literalSyntax.kind, !domain.admits(literal) else { return }
        let shown: String = switch literal {
        case .string(let text): "'\(text)'"
        default: "\(literal)"
        }
        throw .neverTrue(column: literalSyntax.column, field: name, relation: "be \(shown)", explanation: domain.explanation)
    }

    /// Refuses `field BEGINSWITH/ENDSWITH/CONTAINS literal` (without modifiers) when no value of the field's domain
    /// could ever match: letters in a digits-only field, a part of no option.
    private func requirePossible(_ op: StringOperator, _ options: StringOptions, _ fieldSyntax: SyntaxNode,
                                 _ literalSyntax: SyntaxNode) throws(ExpressionError) {
        guard options.isEmpty, op == .beginsWith || op == .endsWith || op == .contains,
              case .name(let name, _) = fieldSyntax.kind, let domain = scope.fields[name]?.domain,
              case .literal(.string(let part)) = literalSyntax.kind, !part.isEmpty else { return }
        let possible: Bool = switch domain {
        case .options(let values):
            values.contains { op == .beginsWith ? $0.hasPrefix(part) : op == .endsWith ? $0.hasSuffix(part) : $0.contains(part) }
        default: domain.admits(part: part)
        }
        guard !possible else { return }
        let verb = switch op {
        case .beginsWith: "begin with"
        case .endsWith: "end with"
        default: "contain"
        }
        throw .neverTrue(column: literalSyntax.column, field: name, relation: "\(verb) '\(part)'",
                         explanation: domain.explanation)
    }

    private func requireComparable(_ a: ValueType?, _ b: ValueType?, ordering: Bool, what: String,
                                   column: Int) throws(ExpressionError) {
        if ordering {
            guard a != nil, b != nil else {
                throw .typeMismatch(column: column, message: "\(what) cannot order NIL; test it with == NIL")
            }
            guard (Self.isNumeric(a) && Self.isNumeric(b)) || (a == .string && b == .string) else {
                throw .typeMismatch(column: column,
                                    message: "\(what) orders two numbers or two strings, not \(Self.name(a)) and \(Self.name(b))")
            }
        } else {
            guard a == nil || b == nil || a == b || (Self.isNumeric(a) && Self.isNumeric(b)) else {
                throw .typeMismatch(column: column, message: "\(what) cannot compare \(Self.name(a)) with \(Self.name(b))")
            }
        }
    }

    /// Picks a fast path for `field OP int-literal` and `field == NIL`, in either order.
    private static func lowerComparison(_ op: ComparisonOperator, _ left: Node, _ right: Node) -> Node {
        switch (left, right) {
        case (.field(let slot), .constant(.int(let k))):
            return .compareFieldInt(op, slot: slot, k)
        case (.constant(.int(let k)), .field(let slot)):
            let mirrored: ComparisonOperator = switch op {
            case .less: .greater
            case .lessOrEqual: .greaterOrEqual
            case .greater: .less
            case .greaterOrEqual: .lessOrEqual
            default: op
            }
            return .compareFieldInt(mirrored, slot: slot, k)
        case (.field(let slot), .constant(.null)) where !op.isOrdering,
             (.constant(.null), .field(let slot)) where !op.isOrdering:
            return .fieldIsNull(slot: slot, negated: op == .notEqual)
        default:
            return .compare(op, left, right)
        }
    }

    private mutating func call(_ name: String, _ argumentSyntax: [SyntaxNode],
                               column: Int) throws(ExpressionError) -> Typed {
        let parameters: [ValueType]
        if let function = scope.functions[name] {
            parameters = function.signature.parameters.map(\.valueType)
        } else if let builtin = Builtin(rawValue: name) {
            parameters = builtin.parameters
        } else {
            throw .unknownFunction(column: column, name: name)
        }
        guard argumentSyntax.count == parameters.count else {
            throw .argumentCount(column: column, function: name, expected: parameters.count, found: argumentSyntax.count)
        }
        var arguments: [Node] = []
        for (index, (syntax, parameter)) in zip(argumentSyntax, parameters).enumerated() {
            let typed = try check(syntax)
            guard Self.assignable(typed.type, to: parameter) else {
                throw .typeMismatch(column: syntax.column,
                                    message: "argument \(index + 1) of \(name)() must be \(parameter), not \(Self.name(typed.type))")
            }
            arguments.append(typed.node)
        }
        if let function = scope.functions[name] {
            if function.isInstanceBound { isVolatile = true }
            return (.foreign(function, arguments), function.signature.result.valueType)
        }
        guard let builtin = Builtin(rawValue: name) else { throw .unknownFunction(column: column, name: name) }
        return (.builtin(builtin, arguments), builtin.result)
    }
}
