import RBSExpressions

/// The answers of one run's plugin functions, kept so that a function is called again only when its answer may
/// have changed (issue #33: one worker round trip per commit).
///
/// A function of the run (`RBS_FUNCTION_INSTANCE`) answers from the plugin's state, which the host cannot see:
/// - one that declares the atoms it reads (`rbs.function-reads/1`, ABI 1.3) keeps its answer per arguments, keyed by
///   those atoms' values as the plugin was last told them (``told``): a commit to another atom calls nothing;
/// - one that does not (ABI 1.0–1.2, or not listed) keeps its answer only until the host next calls into the run
///   (``enteringPlugin()``: value_changed, action, build_document), so it is called again after each of those, as
///   before — the same answer the plugin would give in between, since nothing told the plugin anything.
///
/// A commit asks ``enteringPlugin()`` which answers it made stale and sends those calls with value_changed in one
/// message (`PluginModule.commit`); ``store(_:results:)`` keeps what came back, so the form's re-evaluation after
/// the commit finds every answer here. A function of its arguments alone is never volatile (the form re-evaluates
/// it only when what it reads changed) and passes straight through.
///
/// Expressions reach this object through the instance token `FormSession` hands the form model (``token``); the
/// compiled functions (`CompiledOperation`) turn the token back with ``resolve(_:)``. Used on the run's own lane
/// only, like the form session that owns it.
final class RunFunctions {
    /// One call: a function and its arguments.
    struct Call: Hashable {
        var name: String
        var arguments: [ExprValue]
    }

    private struct Answer {
        var result: ExprValue
        /// The declared atoms' values it was computed for (declared functions), or the call into the plugin after
        /// which it was computed (undeclared ones).
        var inputs: [ExprValue]
        var generation: Int
        /// The last ``generation`` in which an evaluation of the form used it: a commit refreshes those.
        var used: Int
    }

    /// The slots each function of the run declares it reads; absent: undeclared.
    private let declared: [String: [Int]]
    /// The functions that take the run's instance (the others pass straight through).
    private let ofTheRun: Set<String>
    /// The module calls go to; nil once the run is closed.
    weak var module: (any PluginModule)?
    /// The value of each slot as the plugin was last told it (value_changed, or its own set_value).
    var told: [ExprValue]
    /// Counts the host's calls into the run: an undeclared answer from an earlier one is stale.
    private var generation = 0
    private var answers: [Call: Answer] = [:]
    /// The most answers kept; past it they are all dropped (a function called with ever new arguments).
    private static let limit = 256
    /// Calls made to the plugin for this run's functions (not answered from here), for tests and benchmarks.
    private(set) var callsMade = 0

    init(operation: CompiledOperation, values: [ExprValue]) {
        var declared: [String: [Int]] = [:]
        for function in operation.descriptor.functions {
            guard let reads = function.reads else { continue }
            declared[function.name] = reads.compactMap { operation.slotByID[$0] }
        }
        self.declared = declared
        ofTheRun = Set(operation.descriptor.functions.filter(\.takesInstance).map(\.name))
        told = values
    }

    /// What the form model hands the compiled functions.
    var token: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// The run a token stands for (tokens come from ``token`` only).
    static func resolve(_ token: UnsafeMutableRawPointer?) -> RunFunctions? {
        token.map { Unmanaged<RunFunctions>.fromOpaque($0).takeUnretainedValue() }
    }

    /// The answer of `name(arguments)`: kept, or asked of the plugin now.
    func call(_ name: String, _ arguments: [ExprValue]) -> ExprValue {
        guard let module else { return .null }
        guard ofTheRun.contains(name) else { return module.call(function: name, arguments: arguments) }
        let key = Call(name: name, arguments: arguments)
        let inputs = inputs(of: name)
        if var kept = answers[key], isCurrent(kept, name: name, inputs: inputs) {
            kept.used = generation
            answers[key] = kept
            return kept.result
        }
        let result = module.call(function: name, arguments: arguments)
        callsMade += 1
        keep(key, result: result)
        return result
    }

    /// The host is about to call into the run (value_changed, action, build_document): the undeclared answers
    /// become stale. Returns the calls whose answers the form used since the last call in and that are now stale
    /// (undeclared ones; declared ones whose atoms' values in ``told`` changed), for a commit to send along.
    @discardableResult
    func enteringPlugin() -> [Call] {
        let previous = generation
        generation += 1
        return answers.compactMap { key, answer in
            answer.used == previous && !isCurrent(answer, name: key.name, inputs: inputs(of: key.name)) ? key : nil
        }.sorted { ($0.name, $0.arguments.description) < ($1.name, $1.arguments.description) }
    }

    /// Keeps the answers a commit brought back for `calls`, one for each.
    func store(_ calls: [Call], results: [ExprValue]) {
        callsMade += min(calls.count, results.count)
        for (call, result) in zip(calls, results) { keep(call, result: result) }
    }

    private func keep(_ key: Call, result: ExprValue) {
        if answers.count >= Self.limit, answers[key] == nil { answers.removeAll() }
        answers[key] = Answer(result: result, inputs: inputs(of: key.name), generation: generation, used: generation)
    }

    private func inputs(of name: String) -> [ExprValue] {
        declared[name]?.map { told[$0] } ?? []
    }

    private func isCurrent(_ answer: Answer, name: String, inputs: [ExprValue]) -> Bool {
        declared[name] != nil ? answer.inputs == inputs : answer.generation == generation
    }
}
