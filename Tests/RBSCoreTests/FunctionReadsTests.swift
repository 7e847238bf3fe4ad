import Foundation
import RBSLedger
import Testing
@testable import RBSCore

/// A function of the run that declares the atoms it reads (`rbs.function-reads/1`, ABI 1.3) is called again only
/// when one of them changed, and a commit is one round trip to the plugin's worker (issue #33 item 1). The fixture
/// (Tests/Fixtures/function-reads/reads.c) has `innOk`, reading `inn`, used by a show_if and a valid_if.
@Suite("Function reads and one round trip per commit")
struct FunctionReadsTests {
    static let source = Fixtures.root.appendingPathComponent("Tests/Fixtures/function-reads/reads.c")

    /// How the fixture is served and built.
    enum Build: Sendable, CustomStringConvertible {
        case declared, undeclared, abi10
        var defines: [String] { self == .undeclared ? ["-DUNDECLARED"] : [] }
        var include: URL { self == .abi10 ? Fixtures.abi10.appendingPathComponent("include") : Fixtures.include }
        var description: String { "\(self == .declared ? "declared" : self == .undeclared ? "undeclared" : "ABI 1.0")" }
    }

    /// A runtime over the fixture built with `defines` against `include`, in workers when `isolated`.
    static func runtime(_ build: Build, isolated: Bool, extra: [String] = []) throws -> Runtime {
        let plugins = Fixtures.temporaryDirectory("reads")
        try compile(build, extra: extra, into: plugins)
        if isolated {
            try #require(FileManager.default.isExecutableFile(atPath: WorkerIsolationTests.worker.path), "build rbs-host first (swift build)")
        }
        let runtime = Runtime(paths: HostPaths(plugins: plugins.path, data: Fixtures.temporaryDirectory("reads-data")),
                              accounts: StaticAccounts(DemoAccounts.list), log: StandardErrorLog(minimum: .error),
                              isolation: isolated ? WorkerIsolationTests.settings(deadline: .seconds(10)) : nil)
        runtime.loadPlugins()
        return runtime
    }

    /// Builds the fixture as `build` with `extra` flags into `folder`/reads.so.
    static func compile(_ build: Build, extra: [String] = [], into folder: URL) throws {
        let (status, text) = Fixtures.run("/usr/bin/env", ["cc", "-std=c11", "-shared", "-fPIC", "-fvisibility=hidden",
                                                         "-I", build.include.path] + build.defines + extra
                                                         + ["-o", folder.appendingPathComponent("reads.so").path, source.path])
        try #require(status == 0, "cc: \(text)")
    }

    /// The round trips (requests sent) and callbacks served by every worker of `runtime`'s fixture so far.
    static func wire(_ runtime: Runtime) throws -> (requests: Int, callbacks: Int) {
        let pool = try #require(runtime.registry.operation(id: "reads.op")?.plugin.runtime as? WorkerRuntime)
        let traces = pool.startedWorkers
        return (traces.map(\.requests).reduce(0, +), traces.map(\.callbacks).reduce(0, +))
    }

    /// innOk's calls counted by the plugin itself (in the host's process only).
    static func pluginCalls(_ runtime: Runtime) throws -> Int32 {
        let operation = try #require(runtime.registry.operation(id: "reads.op"))
        let symbol = try #require(operation.plugin.handle?.symbol("reads_inn_calls"))
        return unsafeBitCast(symbol, to: (@convention(c) () -> Int32).self)()
    }

    @Test("a commit to a field no function reads calls no function, in-process and in a worker", arguments: [false, true])
    func unrelatedCommitCallsNothing(isolated: Bool) throws {
        let runtime = try Self.runtime(.declared, isolated: isolated)
        defer { runtime.registry.unloadAll() }
        let form = try runtime.open("reads.op")
        defer { form.close() }
        let opened = form.functions.callsMade
        let pluginBefore = isolated ? 0 : try Self.pluginCalls(runtime)
        try form.commit("name", text: "Ann")
        try form.commit("amount", text: "10")
        try form.commit("name", text: "Bob")
        #expect(form.functions.callsMade == opened)
        if !isolated { #expect(try Self.pluginCalls(runtime) == pluginBefore) }
        #expect(form.atom("innNote")?.visible == false)
        #expect(form.atom("inn")?.error == nil)
    }

    @Test("a commit to a declared input calls the function again, once for both expressions that use it", arguments: [false, true])
    func declaredInputReevaluates(isolated: Bool) throws {
        let runtime = try Self.runtime(.declared, isolated: isolated)
        defer { runtime.registry.unloadAll() }
        let form = try runtime.open("reads.op")
        defer { form.close() }
        let opened = form.functions.callsMade
        let wrong = try form.commit("inn", text: "123")
        #expect(form.functions.callsMade == opened + 1)
        #expect(wrong.appeared == ["innNote"])
        #expect(form.atom("inn")?.error == "an INN has 10 or 12 digits")
        let right = try form.commit("inn", text: "7707083893")
        #expect(form.functions.callsMade == opened + 2)
        #expect(right.disappeared == ["innNote"])
        #expect(form.atom("inn")?.error == nil)
        try form.commit("name", text: "Ann")
        #expect(form.functions.callsMade == opened + 2)
        if !isolated { #expect(try Self.pluginCalls(runtime) == Int32(form.functions.callsMade)) }
    }

    @Test("a plugin that declares nothing (built without the extension, or against ABI 1.0) has its function called after every commit",
          arguments: [Build.undeclared, .abi10], [false, true])
    func undeclaredIsCalledEveryCommit(build: Build, isolated: Bool) throws {
        let runtime = try Self.runtime(build, isolated: isolated)
        defer { runtime.registry.unloadAll() }
        let record = try #require(runtime.registry.records.first)
        try #require(record.status == .loaded, "\(record.error ?? "")")
        if build == .abi10 { #expect(record.abi == "1.0.0") }
        let form = try runtime.open("reads.op")
        defer { form.close() }
        var calls = form.functions.callsMade
        for name in ["Ann", "Bob", "Cid"] {
            try form.commit("name", text: name)
            // Both expressions read the answer given after this commit's value_changed: one call, not one each.
            #expect(form.functions.callsMade == calls + 1)
            calls = form.functions.callsMade
        }
        let wrong = try form.commit("inn", text: "123")
        #expect(wrong.appeared == ["innNote"])
        #expect(form.atom("inn")?.error == "an INN has 10 or 12 digits")
        if !isolated { #expect(try Self.pluginCalls(runtime) == Int32(form.functions.callsMade)) }
    }

    @Test("a commit is one worker round trip: value_changed and the calls it made stale go as one message", arguments: [Build.declared, .undeclared])
    func commitIsOneRoundTrip(build: Build) throws {
        let runtime = try Self.runtime(build, isolated: true)
        defer { runtime.registry.unloadAll() }
        let form = try runtime.open("reads.op")
        defer { form.close() }
        for (atom, text) in [("name", "Ann"), ("inn", "123"), ("inn", "7707083893"), ("amount", "10")] {
            let before = try Self.wire(runtime)
            try form.commit(atom, text: text)
            let after = try Self.wire(runtime)
            #expect(after.requests - before.requests == 1, "commit of \(atom)")
            #expect(after.callbacks == before.callbacks, "commit of \(atom)")
        }
        #expect(form.atom("innNote")?.visible == false)
    }

    @Test("pay.pp.quick in a worker: isDestInnCorrect declares destInn, so only an INN commit calls it; a commit of a field the plugin only records is no round trip, any other is one")
    func paymentExampleIsOneRoundTripPerCommit() throws {
        let files = (try? RBSCore.PluginRegistry.pluginFiles(in: Fixtures.plugins.path)) ?? []
        try #require(files.contains { $0.hasSuffix("pay-quick.so") }, "run `make plugins` first (`make test` does)")
        try #require(FileManager.default.isExecutableFile(atPath: WorkerIsolationTests.worker.path), "build rbs-host first (swift build)")
        let runtime = Runtime(paths: HostPaths(plugins: Fixtures.plugins.path, data: Fixtures.temporaryDirectory("quick-data")),
                              accounts: StaticAccounts(DemoAccounts.list), log: StandardErrorLog(minimum: .error),
                              isolation: WorkerIsolationTests.settings(deadline: .seconds(10)))
        runtime.loadPlugins()
        defer { runtime.registry.unloadAll() }
        let quick = try #require(runtime.registry.operation(id: "pay.pp.quick"))
        #expect(quick.descriptor.functions.map(\.reads) == [["destInn"]])
        #expect(quick.descriptor.recordedAtoms == ["srcAccount", "destName", "destInn", "destKpp", "destAccount", "destDesc", "amount"])
        let pool = try #require(quick.plugin.runtime as? WorkerRuntime)
        func requests() -> Int { pool.startedWorkers.map(\.requests).reduce(0, +) }
        func callbacks() -> Int { pool.startedWorkers.map(\.callbacks).reduce(0, +) }
        let form = try runtime.open("pay.pp.quick")
        defer { form.close() }
        // The BIC's commit looks the bank up (a directory callback), shows its name (set_caption) and clears the BIC's
        // mark (set_error): the plugin's calls back into the host, made while it handles the value. The name, the
        // account, the purpose and the amount are only recorded (rbs.recorded-atoms/1): held until the next commit
        // that goes to the plugin (the INN's, read by isDestInnCorrect, or the BIC's), no round trip of their own.
        for (atom, text, sent, calls, calledBack) in [("destName", "ООО Ромашка", 0, 0, 0), ("destInn", "123", 1, 1, 0),
                                                      ("destAccount", "40702810938000000001", 0, 0, 0),
                                                      ("destBic", "044525225", 1, 0, 3), ("destDesc", "Invoice 7", 0, 0, 0),
                                                      ("amount", "1500.50", 0, 0, 0), ("amount", "1500.75", 0, 0, 0),
                                                      ("destInn", "7707083893", 1, 1, 0), ("amount", "1600", 0, 0, 0)] {
            let (sentBefore, callsBefore, backBefore) = (requests(), form.functions.callsMade, callbacks())
            try form.commit(atom, text: text)
            #expect(requests() - sentBefore == sent, "commit of \(atom)")
            #expect(form.functions.callsMade - callsBefore == calls, "commit of \(atom)")
            #expect(callbacks() - backBefore == calledBack, "commit of \(atom)")
        }
        #expect(form.atom("destBicInfo")?.caption == "ПАО Сбербанк")
        #expect(form.atom("destInnError")?.visible == false)
        #expect(form.atom("destInn")?.error == nil)
        // The submit hands the plugin the amount it holds first: the document has the last one committed.
        try form.commit("srcAccount", text: "40817810099910004312")
        let sentBefore = requests()
        let outcome = form.submit()
        guard case .ready(let draft) = outcome else { Issue.record("the payment was not ready: \(outcome)"); return }
        #expect(requests() - sentBefore == 2)
        #expect(draft.fields.first { $0.key == "amount" }?.value == "1600.00")
        #expect(draft.fields.first { $0.key == "purpose" }?.value == "Invoice 7")
    }

    @Test("a declaration naming an atom the form does not have refuses the plugin at load, naming plugin, function and atom",
          arguments: [false, true])
    func wrongAtomIsRefused(isolated: Bool) throws {
        let runtime = try Self.runtime(.declared, isolated: isolated, extra: ["-DWRONG_ATOM"])
        let record = try #require(runtime.registry.records.first)
        #expect(record.status != .loaded)
        let problem = PluginProblem.descriptor(
            location: "plugin 'test.reads' extension rbs.function-reads/1 operation 'reads.op' function 'innOk'",
            issue: "atom 'inm' is not an atom of 'reads.op'")
        #expect(record.error?.hasSuffix(problem.description) == true, "\(record.error ?? "")")
        #expect(runtime.registry.operation(id: "reads.op") == nil)
    }

    @Test("declaring reads for a function that takes no instance refuses the plugin at load")
    func readsOfAFunctionOfItsArgumentsAreRefused() throws {
        let runtime = try Self.runtime(.declared, isolated: false, extra: ["-DNOT_OF_THE_RUN"])
        let record = try #require(runtime.registry.records.first)
        let problem = PluginProblem.descriptor(
            location: "plugin 'test.reads' extension rbs.function-reads/1 operation 'reads.op' function 'twice'",
            issue: "the function takes no instance (no RBS_FUNCTION_INSTANCE): it reads its arguments alone, so it has no atoms to declare")
        #expect(record.error?.hasSuffix(problem.description) == true, "\(record.error ?? "")")
    }
}
