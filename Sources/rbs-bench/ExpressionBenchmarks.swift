import Foundation
import RBSExpressions

/// The RBSExpressions figures: incremental form recompute, expression evaluation, and libffi calls,
/// each next to its baseline measured in the same run.
func expressionBenchmarks() -> [BenchmarkFigure] {
    [formRecomputeFigure(), expressionEvaluationFigure(), foreignCallFigure()]
}

/// Runs `body` (which performs `iterations` operations and returns a checksum) a few times after a warm-up
/// and gives the median time per operation in nanoseconds. Checksums are accumulated so nothing is elided.
private func medianNanoseconds(iterations: Int, repetitions: Int = 7, _ body: () -> Int) -> Double {
    var sink = body()
    var samples: [Double] = []
    let clock = ContinuousClock()
    for _ in 0..<repetitions {
        let start = clock.now
        sink &+= body()
        let elapsed = clock.now - start
        let (seconds, attoseconds) = elapsed.components
        samples.append((Double(seconds) * 1e9 + Double(attoseconds) / 1e9) / Double(iterations))
    }
    if sink == 0x5eed_5eed { print("checksum \(sink)") }
    samples.sort()
    return samples[samples.count / 2]
}

/// A tiny deterministic generator, so that every run measures the same commits.
private struct BenchGenerator {
    var state: UInt64
    mutating func next(_ bound: Int) -> Int {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return Int((state >> 33) % UInt64(bound))
    }
}

/// (1) 2,000 atoms; atom i is shown while atom i-1 is empty/hidden or below 1,000, and valid while its own value
/// is at most 1,050. A commit writes a random value to a random atom.
private func formRecomputeFigure() -> BenchmarkFigure {
    let count = 2_000
    let scope = ExpressionScope(fields: (0..<count).map { (name: "a\($0)", type: ValueType.int) })
    var slots: [FormSlot] = []
    for i in 0..<count {
        let show = i == 0 ? nil : try? CompiledExpression.compile("$a\(i - 1) == NIL OR $a\(i - 1) < 1000", in: scope)
        let valid = try? CompiledExpression.compile("$a\(i) == NIL OR $a\(i) <= 1050", in: scope)
        slots.append(FormSlot(name: "a\(i)", type: .int, showIf: show, validIf: valid))
    }
    var rng = BenchGenerator(state: 2_000)
    let initial = (0..<count).map { _ in ExprValue.int(Int64(rng.next(1_000))) }
    guard var form = try? FormModel(slots: slots, values: initial) else {
        return BenchmarkFigure(name: "incremental recompute, 2,000 atoms", value: .nan, unit: "µs",
                               baselineName: "full re-evaluation", baselineValue: .nan,
                               target: "≤ 20 µs and ≥ 50× faster than full", met: false)
    }
    let commits = (0..<4_096).map { _ in (rng.next(count), ExprValue.int(Int64(rng.next(1_100)))) }
    var next = 0
    let perCommit = 2_000
    let incremental = medianNanoseconds(iterations: perCommit) {
        var changed = 0
        for _ in 0..<perCommit {
            let (slot, value) = commits[next & 4_095]
            next &+= 1
            changed &+= form.set(slot, to: value).appeared.count
        }
        return changed
    } / 1_000
    let fullRuns = 50
    let full = medianNanoseconds(iterations: fullRuns) {
        var changed = 0
        for _ in 0..<fullRuns { changed &+= form.recomputeAll().appeared.count &+ (form.isSubmittable ? 1 : 0) }
        return changed
    } / 1_000
    return BenchmarkFigure(name: "incremental recompute after one commit, 2,000 chained atoms", value: incremental,
                           unit: "µs", baselineName: "full re-evaluation", baselineValue: full,
                           target: "≤ 20 µs and ≥ 50× faster than full",
                           met: incremental <= 20 && full / incremental >= 50)
}

/// Hands out the closure through a call the optimiser does not see through, as a host would hold it.
@inline(never)
private func typeCondition() -> ([ExprValue]) -> Bool {
    { values in
        guard let first = values.first, case .int(let type) = first else { return false }
        return type == 1 || type == 2
    }
}

/// (2) The seed's `($type == 1) || ($type == 2)` compiled, against the same condition as a Swift closure.
private func expressionEvaluationFigure() -> BenchmarkFigure {
    let scope = ExpressionScope(fields: [(name: "type", type: .int), (name: "name", type: .string)])
    let inputs: [[ExprValue]] = (0..<64).map { i in [i % 5 == 4 ? .null : .int(Int64(i % 4)), .string("x")] }
    let closure = typeCondition()
    let iterations = 1_000_000
    guard let compiled = try? CompiledExpression.compile("($type == 1) || ($type == 2)", in: scope) else {
        return BenchmarkFigure(name: "compiled expression evaluation", value: .nan, unit: "ns",
                               baselineName: "Swift closure", baselineValue: .nan, target: "≤ 3× the closure", met: false)
    }
    let compiledNs = medianNanoseconds(iterations: iterations) {
        var hits = 0
        for i in 0..<iterations where compiled.test(inputs[i & 63]) { hits &+= 1 }
        return hits
    }
    let closureNs = medianNanoseconds(iterations: iterations) {
        var hits = 0
        for i in 0..<iterations where closure(inputs[i & 63]) { hits &+= 1 }
        return hits
    }
    return BenchmarkFigure(name: "compiled expression evaluation, ($type == 1) || ($type == 2)", value: compiledNs,
                           unit: "ns", baselineName: "the same condition as a Swift closure", baselineValue: closureNs,
                           target: "≤ 3× the closure", met: compiledNs <= 3 * closureNs)
}

/// (3) `int64(int64, int64)` through libffi against a direct call of the same C function pointer.
private func foreignCallFigure() -> BenchmarkFigure {
    let add: @convention(c) (Int64, Int64) -> Int64 = { $0 &+ $1 }
    let pointer = unsafeBitCast(add, to: UnsafeRawPointer.self)
    guard let function = try? ForeignFunction(name: "add", pointer: pointer, signature: "int64(int64, int64)") else {
        return BenchmarkFigure(name: "plugin function call through libffi", value: .nan, unit: "ns",
                               baselineName: "direct call", baselineValue: .nan, target: "≤ 100 ns per call", met: false)
    }
    let direct = unsafeBitCast(pointer, to: (@convention(c) (Int64, Int64) -> Int64).self)
    let iterations = 1_000_000
    let arguments: [[ExprValue]] = (0..<16).map { [.int(Int64($0)), .int(3)] }
    let ffiNs = medianNanoseconds(iterations: iterations) {
        var sum = 0
        for i in 0..<iterations {
            if case .int(let v) = function.call(instance: nil, arguments: arguments[i & 15]) { sum &+= Int(v) }
        }
        return sum
    }
    let directNs = medianNanoseconds(iterations: iterations) {
        var sum = 0
        for i in 0..<iterations { sum &+= Int(direct(Int64(i & 15), 3)) }
        return sum
    }
    return BenchmarkFigure(name: "plugin function call through libffi, int64(int64, int64)", value: ffiNs, unit: "ns",
                           baselineName: "direct call through the same C function pointer", baselineValue: directNs,
                           target: "≤ 100 ns per call", met: ffiNs <= 100)
}
