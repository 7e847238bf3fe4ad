import Foundation
import RBSLedger
import Testing
@testable import RBSCore

/// An atom whose value_changed only records the value (`rbs.recorded-atoms/1`, ABI 1.5), and that no function of the
/// run reads, is committed without a call into the plugin: the value goes with the run's next call into it (issue #33).
/// The fixture is Tests/Fixtures/function-reads/reads.c built with `-DRECORDED`: `inn`, `name` and `amount` are
/// recorded, `innOk` reads `inn`, and build_document puts the three values the plugin was told (`inn`, `who`, `sum`).
@Suite("Recorded atoms: a commit with no call into the plugin")
struct RecordedAtomsTests {
    /// value_changed's calls counted by the plugin itself (in the host's process only).
    static func changedCalls(_ runtime: Runtime) throws -> Int32 {
        let operation = try #require(runtime.registry.operation(id: "reads.op"))
        let symbol = try #require(operation.plugin.handle?.symbol("reads_changed_calls"))
        return unsafeBitCast(symbol, to: (@convention(c) () -> Int32).self)()
    }

    /// The document's fields by key, or what the submit said instead.
    static func fields(_ outcome: SubmitOutcome) throws -> [String: String] {
        guard case .ready(let draft) = outcome else { throw OutcomeNotReady(outcome: outcome) }
        return Dictionary(draft.fields.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    struct OutcomeNotReady: Error, CustomStringConvertible {
        var outcome: SubmitOutcome
        var description: String { "the submit was not ready: \(outcome)" }
    }

    /// Calls into the plugin so far: requests sent to its workers, or value_changed calls in the host's process.
    static func callsIn(_ runtime: Runtime, isolated: Bool) throws -> Int {
        isolated ? try FunctionReadsTests.wire(runtime).requests : Int(try changedCalls(runtime))
    }

    @Test("the descriptor keeps the recorded atoms, and only those no function reads may be held")
    func recordedSlots() throws {
        let runtime = try FunctionReadsTests.runtime(.declared, isolated: false, extra: ["-DRECORDED"])
        defer { runtime.registry.unloadAll() }
        let operation = try #require(runtime.registry.operation(id: "reads.op"))
        #expect(operation.descriptor.recordedAtoms == ["inn", "name", "amount"])
        let slots = operation.compiled.recordedSlots.map { operation.descriptor.atoms[$0].id }.sorted()
        #expect(slots == ["amount", "name"])
    }

    @Test("a commit of an atom only recorded and read by no function makes no call into the plugin; the next call brings every held value, the last of each",
          arguments: [false, true])
    func heldUntilTheNextCall(isolated: Bool) throws {
        let runtime = try FunctionReadsTests.runtime(.declared, isolated: isolated, extra: ["-DRECORDED"])
        defer { runtime.registry.unloadAll() }
        let form = try runtime.open("reads.op")
        defer { form.close() }
        let functionCalls = form.functions.callsMade
        var calls = try Self.callsIn(runtime, isolated: isolated)
        for (atom, text) in [("name", "Ann"), ("amount", "10"), ("amount", "12.50")] {
            try form.commit(atom, text: text)
            #expect(try Self.callsIn(runtime, isolated: isolated) == calls, "commit of \(atom)")
        }
        #expect(form.atom("amount")?.value == "12.50")
        // The INN is read by innOk: told at once, with the held name and amount in the same message.
        let wrong = try form.commit("inn", text: "123")
        #expect(wrong.appeared == ["innNote"])
        #expect(form.functions.callsMade == functionCalls + 1)
        // In a worker: one request; in the host's process: value_changed of name, amount (its last value) and inn.
        #expect(try Self.callsIn(runtime, isolated: isolated) == calls + (isolated ? 1 : 3))
        calls = try Self.callsIn(runtime, isolated: isolated)
        try form.commit("inn", text: "7707083893")
        try form.commit("name", text: "Bob")
        #expect(try Self.callsIn(runtime, isolated: isolated) == calls + 1)
        #expect(form.atom("innNote")?.visible == false)
        calls = try Self.callsIn(runtime, isolated: isolated)
        // The submit tells the plugin the held name first: the document has it.
        let fields = try Self.fields(form.submit())
        #expect(fields == ["who": "Bob", "sum": "12.50", "inn": "7707083893"])
        #expect(try Self.callsIn(runtime, isolated: isolated) == calls + (isolated ? 2 : 1))
    }

    @Test("with nothing held a submit is one call, and a value held before a button's action reaches the plugin first",
          arguments: [false, true])
    func nothingHeldNoExtraCall(isolated: Bool) throws {
        let runtime = try FunctionReadsTests.runtime(.declared, isolated: isolated, extra: ["-DRECORDED"])
        defer { runtime.registry.unloadAll() }
        let form = try runtime.open("reads.op")
        defer { form.close() }
        try form.commit("name", text: "Ann")
        try form.commit("amount", text: "7")
        try form.commit("inn", text: "")
        #expect(try Self.fields(form.submit()) == ["who": "Ann", "sum": "7.00", "inn": ""])
        guard isolated else { return }
        let before = try FunctionReadsTests.wire(runtime).requests
        #expect(try Self.fields(form.submit())["who"] == "Ann")
        #expect(try FunctionReadsTests.wire(runtime).requests == before + 1)
    }

    @Test("an operation with a function that does not declare its reads is told every commit at once, as before",
          arguments: [false, true])
    func undeclaredFunctionKeepsEveryCall(isolated: Bool) throws {
        let runtime = try FunctionReadsTests.runtime(.undeclared, isolated: isolated, extra: ["-DRECORDED"])
        defer { runtime.registry.unloadAll() }
        let operation = try #require(runtime.registry.operation(id: "reads.op"))
        #expect(operation.descriptor.recordedAtoms == ["inn", "name", "amount"])
        #expect(operation.compiled.recordedSlots.isEmpty)
        let form = try runtime.open("reads.op")
        defer { form.close() }
        for (atom, text) in [("name", "Ann"), ("amount", "10"), ("inn", "7707083893")] {
            let before = try Self.callsIn(runtime, isolated: isolated)
            try form.commit(atom, text: text)
            #expect(try Self.callsIn(runtime, isolated: isolated) == before + 1, "commit of \(atom)")
        }
    }

    @Test("listing an atom without a value refuses the plugin at load, naming plugin, operation and atom")
    func atomWithoutValueIsRefused() throws {
        let runtime = try FunctionReadsTests.runtime(.declared, isolated: false, extra: ["-DRECORDED", "-DRECORDED_WRONG_ATOM"])
        let record = try #require(runtime.registry.records.first)
        #expect(record.status != .loaded)
        let problem = PluginProblem.descriptor(
            location: "plugin 'test.reads' extension rbs.recorded-atoms/1 operation 'reads.op'",
            issue: "atom 'innNote' holds no value (a text or a button): value_changed is called only for atoms with a value")
        #expect(record.error?.hasSuffix(problem.description) == true, "\(record.error ?? "")")
        #expect(runtime.registry.operation(id: "reads.op") == nil)
    }

    @Test("the manifest cache keeps the recorded atoms")
    func cacheKeepsRecordedAtoms() throws {
        let folder = Fixtures.temporaryDirectory("recorded-cache")
        try FunctionReadsTests.compile(.declared, extra: ["-DRECORDED"], into: folder)
        let loader = PluginLoader(imagesDirectory: Fixtures.temporaryDirectory(), locator: ServiceLocator())
        let result = InProcessScanner.scanOne(folder.appendingPathComponent("reads.so").path, loader: loader)
        guard case .plugin(let manifest, _) = result else { Issue.record("not scanned: \(result)"); return }
        #expect(manifest.operations.first?.recordedAtoms == ["inn", "name", "amount"])
        let fingerprint = PluginCache.Fingerprint(size: 1, modified: 2, changed: 3, inode: 4, hash: "ab")
        let cache = PluginCache(hostABI: ABIVersion.host.description,
                                entries: ["reads.so": .init(fingerprint: fingerprint, result: result)], inService: [])
        #expect(try PluginCacheCodec.decode(PluginCacheCodec.encode(cache)).entries["reads.so"]?.result == result)
    }
}
