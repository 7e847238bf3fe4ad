import Foundation

/// Walks a compiled ``Node`` tree over one array of field values. Never throws, never traps.
///
/// Null semantics (see ``CompiledExpression``): `==` is true when both sides are null, `!=` is its negation,
/// ordering, string operators and BETWEEN with a null operand are false, IN is "== some element",
/// a null string argument to a built-in counts as "", and AND / OR / NOT read null as false.
struct Evaluator {
    let values: [ExprValue]
    let instance: UnsafeMutableRawPointer?

    @inline(__always)
    func read(_ slot: Int) -> ExprValue {
        UInt(bitPattern: slot) < UInt(values.count) ? values[slot] : .null
    }

    /// The node's truth: `.bool(true)` is true, everything else (including null) is false.
    func truth(_ node: Node) -> Bool {
        switch node {
        case .compareFieldInt(let op, let slot, let k):
            guard UInt(bitPattern: slot) < UInt(values.count) else { return op == .notEqual }
            switch values[slot] {
            case .int(let v):
                return op.holds(v < k ? -1 : (v == k ? 0 : 1))
            case .decimal(let d):
                let k = Decimal(k)
                return op.holds(d < k ? -1 : (d == k ? 0 : 1))
            default:
                return op == .notEqual
            }
        case .fieldIsNull(let slot, let negated):
            return read(slot).isNull != negated
        case .and(let operands):
            for operand in operands where !truth(operand) { return false }
            return true
        case .or(let operands):
            for operand in operands where truth(operand) { return true }
            return false
        case .not(let operand):
            return !truth(operand)
        case .compare(let op, let left, let right):
            return Self.compare(op, value(left), value(right))
        case .stringTest(let op, let options, let left, let right):
            guard case .string(let a) = value(left), case .string(let b) = value(right) else { return false }
            let text = options.fold(a), part = options.fold(b)
            switch op {
            case .beginsWith: return text.hasPrefix(part)
            case .endsWith: return text.hasSuffix(part)
            default: return part.isEmpty || text.contains(part)
            }
        case .like(let operand, let pattern):
            guard case .string(let s) = value(operand) else { return false }
            return pattern.matches(s)
        case .likeDynamic(let operand, let patternNode, let options):
            guard case .string(let s) = value(operand), case .string(let p) = value(patternNode) else { return false }
            return LikePattern(p, options: options).matches(s)
        case .matches(let operand, let regex):
            guard case .string(let s) = value(operand) else { return false }
            return regex.matches(s)
        case .matchesDynamic(let operand, let patternNode, let options):
            guard case .string(let s) = value(operand), case .string(let p) = value(patternNode),
                  let regex = try? RegexPattern(p, options: options) else { return false }
            return regex.matches(s)
        case .member(let operand, let elements):
            let v = value(operand)
            for element in elements where Self.equal(v, value(element)) { return true }
            return false
        case .between(let operand, let low, let high):
            let v = value(operand)
            guard let a = Self.order(v, value(low)), a >= 0, let b = Self.order(v, value(high)) else { return false }
            return b <= 0
        default:
            return value(node).isTrue
        }
    }

    /// The node's value.
    func value(_ node: Node) -> ExprValue {
        switch node {
        case .constant(let v):
            return v
        case .field(let slot):
            return read(slot)
        case .negate(let operand):
            switch value(operand) {
            case .int(let v): return v == .min ? .null : .int(-v)
            case .decimal(let d): return .decimal(-d)
            default: return .null
            }
        case .builtin(let function, let arguments):
            let first = arguments.isEmpty ? .null : value(arguments[0])
            let second = arguments.count > 1 ? value(arguments[1]) : .null
            return function.apply(first, second)
        case .foreign(let function, let arguments):
            return function.call(instance: instance) { index in
                index < arguments.count ? value(arguments[index]) : .null
            }
        default:
            return .bool(truth(node))
        }
    }

    /// `a OP b` with the null semantics above.
    static func compare(_ op: ComparisonOperator, _ a: ExprValue, _ b: ExprValue) -> Bool {
        switch op {
        case .equal: return equal(a, b)
        case .notEqual: return !equal(a, b)
        default:
            guard let o = order(a, b) else { return false }
            return op.holds(o)
        }
    }

    /// Equality: null equals only null; int and decimal compare numerically; other mixed types are unequal.
    static func equal(_ a: ExprValue, _ b: ExprValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.int(let x), .int(let y)): return x == y
        case (.int(let x), .decimal(let y)): return Decimal(x) == y
        case (.decimal(let x), .int(let y)): return x == Decimal(y)
        case (.decimal(let x), .decimal(let y)): return x == y
        case (.string(let x), .string(let y)): return x == y
        case (.bool(let x), .bool(let y)): return x == y
        default: return false
        }
    }

    /// Three-way order of two numbers or two strings; nil for null or incomparable operands.
    static func order(_ a: ExprValue, _ b: ExprValue) -> Int? {
        func cmp<T: Comparable>(_ x: T, _ y: T) -> Int { x < y ? -1 : (x == y ? 0 : 1) }
        switch (a, b) {
        case (.int(let x), .int(let y)): return cmp(x, y)
        case (.int(let x), .decimal(let y)): return cmp(Decimal(x), y)
        case (.decimal(let x), .int(let y)): return cmp(x, Decimal(y))
        case (.decimal(let x), .decimal(let y)): return cmp(x, y)
        case (.string(let x), .string(let y)): return cmp(x, y)
        default: return nil
        }
    }
}
