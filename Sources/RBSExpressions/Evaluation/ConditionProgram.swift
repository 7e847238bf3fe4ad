/// A condition lowered to a tree of closures for the hot path of ``CompiledExpression/test(_:instance:)``.
///
/// AND, OR, NOT and the field-versus-constant comparisons become direct closures; anything else falls back
/// to ``Evaluator``. Measured faster than walking the indirect-enum tree, which pays for boxing and ARC.
enum ConditionProgram {
    typealias Test = @Sendable ([ExprValue], UnsafeMutableRawPointer?) -> Bool

    static func lower(_ node: Node) -> Test {
        switch node {
        case .compareFieldInt(let op, let slot, let k):
            return { values, _ in
                guard UInt(bitPattern: slot) < UInt(values.count) else { return op == .notEqual }
                if case .int(let v) = values[slot] {
                    switch op {
                    case .equal: return v == k
                    case .notEqual: return v != k
                    case .less: return v < k
                    case .lessOrEqual: return v <= k
                    case .greater: return v > k
                    case .greaterOrEqual: return v >= k
                    }
                }
                return Evaluator(values: values, instance: nil).truth(node)
            }
        case .fieldIsNull(let slot, let negated):
            return { values, _ in
                let isNull = UInt(bitPattern: slot) >= UInt(values.count) || values[slot].isNull
                return isNull != negated
            }
        case .not(let operand):
            let inner = lower(operand)
            return { values, instance in !inner(values, instance) }
        case .and(let operands) where operands.count == 2:
            let a = lower(operands[0]), b = lower(operands[1])
            return { values, instance in a(values, instance) && b(values, instance) }
        case .or(let operands) where operands.count == 2:
            let a = lower(operands[0]), b = lower(operands[1])
            return { values, instance in a(values, instance) || b(values, instance) }
        case .and(let operands):
            let parts = operands.map(lower)
            return { values, instance in
                for part in parts where !part(values, instance) { return false }
                return true
            }
        case .or(let operands):
            let parts = operands.map(lower)
            return { values, instance in
                for part in parts where part(values, instance) { return true }
                return false
            }
        case .constant(let value):
            let truth = value.isTrue
            return { _, _ in truth }
        default:
            return { values, instance in Evaluator(values: values, instance: instance).truth(node) }
        }
    }
}
