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
                switch values[slot] {
                case .int(let v):
                    switch op {
                    case .equal: return v == k
                    case .notEqual: return v != k
                    case .less: return v < k
                    case .lessOrEqual: return v <= k
                    case .greater: return v > k
                    case .greaterOrEqual: return v >= k
                    }
                case .null:
                    // A null field equals no number; orderings with null are false.
                    return op == .notEqual
                default:
                    return Evaluator(values: values, instance: nil).truth(node)
                }
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
        case .or(let operands) where equalities(operands) != nil:
            // `$x == 1 OR $x == 2` (and IN written out): the field is read once and matched against the constants.
            let (slot, constants) = equalities(operands)!
            if constants.count == 2 {
                // The seed's show-if: two constants compared inline, no loop over an array.
                let (first, second) = (constants[0], constants[1])
                return { values, _ in
                    guard UInt(bitPattern: slot) < UInt(values.count) else { return false }
                    switch values[slot] {
                    case .int(let v): return v == first || v == second
                    case .null: return false
                    default: return Evaluator(values: values, instance: nil).truth(node)
                    }
                }
            }
            return { values, _ in
                guard UInt(bitPattern: slot) < UInt(values.count) else { return false }
                switch values[slot] {
                case .int(let v): return constants.contains(v)
                case .null: return false
                default: return Evaluator(values: values, instance: nil).truth(node)
                }
            }
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

    /// The slot and the constants when every operand is `$field == integer` on one and the same field.
    private static func equalities(_ operands: [Node]) -> (slot: Int, constants: [Int64])? {
        var slot: Int?
        var constants: [Int64] = []
        for operand in operands {
            guard case .compareFieldInt(.equal, let s, let k) = operand, slot == nil || slot == s else { return nil }
            slot = s
            constants.append(k)
        }
        guard let slot, constants.count >= 2 else { return nil }
        return (slot, constants)
    }
}
