import CBenchFloor
import Foundation
import RBSExpressions

/// The RBSExpressions figures: incremental form recompute, expression evaluation, and libffi calls,
/// each next to its baseline measured in the same run.
func expressionBenchmarks() -> [BenchmarkFigure] {
    // One figure alone, for a profile (`rbs-bench ffi --quick` under callgrind).
    if chosen.contains("ffi") { return foreignCallFigures() }
    if chosen.contains("seed") { return [expressionEvaluationFigure()] }
    return [formRecomputeFigure(), expressionEvaluationFigure(), mixedConditionFigure()] + foreignCallFigures()
}

/// Runs `body` (which performs `iterations` operations and returns a checksum) a few times after a warm-up
/// and gives the median time per operation in nanoseconds. Every checksum goes to a C sink the optimiser cannot
/// see into, so nothing the body computes can be dropped.
func medianNanoseconds(iterations: Int, repetitions: Int = 7, _ body: () -> Int) -> Double {
    rbs_bench_sink(Int64(body()))
    var samples: [Double] = []
    for _ in 0..<repetitions {
        let start = threadNanoseconds()
        let checksum = body()
        let elapsed = threadNanoseconds() - start
        rbs_bench_sink(Int64(checksum))
        samples.append(elapsed / Double(iterations))
    }
    samples.sort()
    return samples[samples.count / 2]
}

/// The CPU time this thread has used, in nanoseconds. The loops are timed with it rather than the wall clock: on a
/// shared machine (2 vCPUs, several builds at once) a loop of 30 ms is preempted many times, and the wall clock counts
/// the time other processes held the core — a bare ffi_call read 30 ns idle and 165-390 ns at a load of 13-16, while
/// a loop short enough to escape preemption did not move. Every figure and its baseline are timed the same way.
func threadNanoseconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) * 1e9 + Double(time.tv_nsec)
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
                           met: incremental <= 20 && full / incremental >= 50,
                           bound: "only the changed atom's dependents are recomputed; not profiled this round")
}

/// A condition held the way a host holds a closure: in an object whose address comes back through a C function,
/// so the optimiser cannot know which closure it calls, nor inline or specialise it.
private final class ClosureCondition {
    let test: ([ExprValue]) -> Bool
    init(_ test: @escaping ([ExprValue]) -> Bool) { self.test = test }

    /// This object, laundered through `rbs_bench_opaque`.
    func opaque() -> ClosureCondition {
        Unmanaged<ClosureCondition>.fromOpaque(rbs_bench_opaque(Unmanaged.passUnretained(self).toOpaque())!)
            .takeUnretainedValue()
    }
}

/// Compiled evaluations next to the closure over the same inputs; both must count the same hits.
private func conditionFigure(name: String, source: String, scope: ExpressionScope, inputs: [[ExprValue]],
                             closure: @escaping ([ExprValue]) -> Bool, iterations: Int, bound: String) -> BenchmarkFigure {
    let target = "≤ 1.5× the closure"
    guard inputs.count == 64, let compiled = try? CompiledExpression.compile(source, in: scope) else {
        print("expression benchmark: \(source) does not compile")
        return BenchmarkFigure(name: name, value: .nan, unit: "ns", baselineName: "the same condition as a Swift closure",
                               baselineValue: .nan, target: target, met: false)
    }
    let holder = ClosureCondition(closure)
    let condition = holder.opaque()
    let compiledHits = (0..<64).filter { compiled.test(inputs[$0]) }.count
    let closureHits = (0..<64).filter { condition.test(inputs[$0]) }.count
    guard compiledHits == closureHits, compiledHits > 0, compiledHits < 64 else {
        print("expression benchmark: \(source) holds for \(compiledHits) of 64 inputs, the closure for \(closureHits)")
        return BenchmarkFigure(name: name, value: .nan, unit: "ns", baselineName: "the same condition as a Swift closure",
                               baselineValue: .nan, target: target, met: false)
    }
    var compiledNs = 0.0, closureNs = 0.0
    // In turns, so both see the same machine; the medians of each.
    var compiledSamples: [Double] = [], closureSamples: [Double] = []
    for _ in 0..<3 {
        compiledSamples.append(medianNanoseconds(iterations: iterations, repetitions: 5) {
            var hits = 0
            for i in 0..<iterations where compiled.test(inputs[i & 63]) { hits &+= 1 }
            return hits
        })
        closureSamples.append(medianNanoseconds(iterations: iterations, repetitions: 5) {
            var hits = 0
            for i in 0..<iterations where condition.test(inputs[i & 63]) { hits &+= 1 }
            return hits
        })
    }
    compiledNs = compiledSamples.sorted()[1]
    closureNs = closureSamples.sorted()[1]
    withExtendedLifetime(holder) {}
    return BenchmarkFigure(name: name, value: compiledNs, unit: "ns", baselineName: "the same condition as a Swift closure",
                           baselineValue: closureNs, target: target, met: compiledNs <= 1.5 * closureNs, bound: bound)
}

/// (2) The seed's `($type == 1) || ($type == 2)` compiled, against the same condition as a Swift closure.
private func expressionEvaluationFigure() -> BenchmarkFigure {
    let scope = ExpressionScope(fields: [(name: "type", type: .int), (name: "name", type: .string)])
    let inputs: [[ExprValue]] = (0..<64).map { i in [i % 5 == 4 ? .null : .int(Int64(i % 4)), .string("x")] }
    return conditionFigure(name: "compiled expression evaluation, ($type == 1) || ($type == 2)",
                           source: "($type == 1) || ($type == 2)", scope: scope, inputs: inputs, closure: { values in
                               guard let first = values.first, case .int(let type) = first else { return false }
                               return type == 1 || type == 2
                           }, iterations: 1_000_000 / quickDivisor,
                           bound: "callgrind: ~43 instructions a test (CompiledExpression.test, the lowered closure, "
                               + "reference counting of the values) against ~11 in the closure; the loop around both is shared")
}

/// (3) A 20-term condition over strings, money (decimal) and a plugin function (`add`, through libffi), as a
/// payment form's submit check would be: true for most inputs, so most evaluations run every term.
private func mixedConditionFigure() -> BenchmarkFigure {
    let fields: [(name: String, type: ValueType)] = [
        ("type", .int), ("amount", .decimal), ("currency", .string), ("payee", .string), ("inn", .string),
        ("account", .string), ("purpose", .string), ("urgent", .bool),
    ]
    var scope = ExpressionScope(fields: fields)
    guard let add = try? ForeignFunction(name: "add", pointer: UnsafeRawPointer(rbs_bench_add_address()!),
                                         signature: "int64(int64, int64)") else {
        return BenchmarkFigure(name: "compiled expression evaluation, 20 terms", value: .nan, unit: "ns",
                               baselineName: "the same condition as a Swift closure", baselineValue: .nan,
                               target: "≤ 1.5× the closure", met: false)
    }
    scope.declareFunction(add)
    let source = """
        ($type == 1 OR $type == 2) AND $amount > 0 AND $amount <= 600000.00 AND $amount != 13.13 \
        AND $currency == 'RUB' AND $payee != NIL AND len($payee) >= 3 AND $payee BEGINSWITH 'ООО' \
        AND NOT ($payee CONTAINS 'test') AND $inn != NIL AND len($inn) == 10 AND $account BEGINSWITH '40702' \
        AND $account != $inn AND len($account) == 20 AND $purpose != NIL AND NOT ($purpose CONTAINS 'casino') \
        AND $urgent == NO AND add($type, 3) > 3 AND add($type, 3) < 100
        """
    let inputs: [[ExprValue]] = (0..<64).map { (i: Int) -> [ExprValue] in
        let amount: Decimal = Decimal(string: i % 11 == 10 ? "700000.00" : "\(1000 + i).50") ?? 0
        let account: String = "40702810" + String(format: "%012d", 38_000_000 + i)
        var row: [ExprValue] = [.int(Int64(1 + i % 3)), .decimal(amount)]
        row.append(.string(i % 13 == 12 ? "USD" : "RUB"))
        row.append(.string(i % 17 == 16 ? "ООО test" : "ООО Ромашка"))
        row.append(.string("7707083893"))
        row.append(.string(account))
        row.append(.string("оплата по договору \(i)"))
        row.append(.bool(i % 19 == 18))
        return row
    }
    let function = unsafeBitCast(rbs_bench_add_address(), to: (@convention(c) (Int64, Int64) -> Int64).self)
    let upper = Decimal(string: "600000.00")!, odd = Decimal(string: "13.13")!
    return conditionFigure(
        name: "compiled expression evaluation, 20 terms (strings, money, a plugin function)", source: source,
        scope: scope, inputs: inputs, closure: { values in
            guard values.count == 8, case .int(let type) = values[0], type == 1 || type == 2,
                  case .decimal(let amount) = values[1], amount > 0, amount <= upper, amount != odd,
                  case .string(let currency) = values[2], currency == "RUB",
                  case .string(let payee) = values[3], payee.count >= 3, payee.hasPrefix("ООО"), !payee.contains("test"),
                  case .string(let inn) = values[4], inn.count == 10,
                  case .string(let account) = values[5], account.hasPrefix("40702"), account != inn, account.count == 20,
                  case .string(let purpose) = values[6], !purpose.contains("casino"),
                  case .bool(let urgent) = values[7], !urgent
            else { return false }
            let sum = function(type, 3)
            return sum > 3 && function(type, 3) < 100
        }, iterations: 200_000 / quickDivisor,
        bound: "callgrind: Foundation's string search (CFStringFind…, grapheme folding for BEGINSWITH/CONTAINS on "
            + "Cyrillic text) and Decimal comparison, in both")
}

/// (4) `int64(int64, int64)` through the host's libffi path, next to a bare C `ffi_call` of the same function
/// with a prepared cif, and that next to a direct C call through a volatile pointer: all three call
/// `rbs_bench_add` (C, -O2) and sum the results into a sink.
private func foreignCallFigures() -> [BenchmarkFigure] {
    let target = "≤ 1.3× the bare ffi_call"
    let address = rbs_bench_add_address()!
    guard let function = try? ForeignFunction(name: "add", pointer: UnsafeRawPointer(address), signature: "int64(int64, int64)") else {
        return [BenchmarkFigure(name: "plugin function call through libffi", value: .nan, unit: "ns",
                                baselineName: "bare C ffi_call, prepared cif", baselineValue: .nan, target: target, met: false)]
    }
    let iterations = 1_000_000 / quickDivisor
    let expected = (0..<iterations).reduce(0) { $0 &+ ($1 & 15) &+ 3 }
    var hostSamples: [Double] = [], bareSamples: [Double] = [], directSamples: [Double] = []
    var wrong = false
    for _ in 0..<3 {
        hostSamples.append(medianNanoseconds(iterations: iterations, repetitions: 5) {
            // One argument list, its first value replaced each time, as the C loop stores `a = i & 15` into its one
            // argument slot: what is timed is the host's call, not the harness picking one of several prebuilt lists
            // (which costs an atomic retain and release of that list per call, more than the host's own work).
            var sum = 0
            var arguments: [ExprValue] = [.int(0), .int(3)]
            for i in 0..<iterations {
                arguments[0] = .int(Int64(i & 15))
                if case .int(let v) = function.call(instance: nil, arguments: arguments) { sum &+= Int(v) }
            }
            if sum != expected { wrong = true }
            return sum
        })
        bareSamples.append(medianNanoseconds(iterations: iterations, repetitions: 5) {
            let sum = Int(rbs_bench_ffi_loop(address, Int64(iterations)))
            if sum != expected { wrong = true }
            return sum
        })
        directSamples.append(medianNanoseconds(iterations: iterations, repetitions: 5) {
            let sum = Int(rbs_bench_direct_loop(address, Int64(iterations)))
            if sum != expected { wrong = true }
            return sum
        })
    }
    if wrong { print("libffi benchmark: a loop summed to the wrong value") }
    let host = wrong ? .nan : hostSamples.sorted()[1], bare = bareSamples.sorted()[1], direct = directSamples.sorted()[1]
    return [
        BenchmarkFigure(name: "plugin function call through libffi, int64(int64, int64), from [ExprValue] to ExprValue",
                        value: host, unit: "ns", baselineName: "bare C ffi_call, cif prepared once, same function",
                        baselineValue: bare, target: target, met: host <= 1.3 * bare,
                        bound: "callgrind: libffi's own ffi_call ~500 instructions a call (its per-call argument "
                            + "classification and copies); the host adds ~110 (the arguments decoded in place from the "
                            + "array into stack slots, the result built inline) and its loop ~25, with no allocation and "
                            + "no reference counting"),
        BenchmarkFigure(name: "bare C ffi_call, cif prepared once (what libffi itself costs)", value: bare, unit: "ns",
                        baselineName: "direct C call through a volatile function pointer", baselineValue: direct,
                        target: nil, met: nil, bound: "libffi's generic call path (classification, trampoline) against ~15 instructions"),
    ]
}
