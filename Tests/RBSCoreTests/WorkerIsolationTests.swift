import Foundation
import RBSLedger
import Testing
@testable import RBSCore

/// The fault corpus (Tests/Fixtures/faults/fault.c) run in plugin workers: every fault in every callback ends only
/// the faulting module, with one message naming plugin, call and fault; nothing is journaled for it; a module of
/// another plugin opened before the fault finishes and posts; `verify` passes.
///
/// Every count of processes and descriptors here is of the test's own workers (their `WorkerTrace`s), not of all the
/// children of the test process, so the suite runs in parallel with itself and with other suites that start workers.
struct WorkerIsolationTests {
    static let worker = Fixtures.root.appendingPathComponent(".build/debug/rbs-host")
    static let source = Fixtures.root.appendingPathComponent("Tests/Fixtures/faults/fault.c")
    static let now = Date(timeIntervalSince1970: 1_790_000_000)

    enum Fault: Int, CaseIterable, Sendable {
        case segfault = 1, abort, exit0, endlessLoop, readKey, writeDatabase, twoFaces, stackOverflow, mallocBomb,
             closesChannel, garbage
        /// What the message must say, or nil when the fault is a refused file access the run survives.
        var cause: String? {
            switch self {
            case .segfault, .stackOverflow: "killed by SIGSEGV"
            case .abort, .twoFaces: "killed by SIGABRT"
            case .exit0: "exited with status 0"
            case .endlessLoop: "no answer in 1 s"
            case .mallocBomb: "address-space limit of 1024 MiB"
            case .closesChannel: "closed its channel to the host"
            case .garbage: "broke the protocol"
            case .readKey, .writeDatabase: nil
            }
        }
    }

    enum Place: Int, CaseIterable, Sendable {
        case create = 1, valueChanged, action, buildDocument, function
        var call: String {
            switch self {
            case .create: "create()"
            case .valueChanged: "value_changed(from)"
            case .action: "action(poke)"
            case .buildDocument: "build_document()"
            case .function: "fault_check()"
            }
        }
    }

    static func settings(deadline: Duration = .seconds(1)) -> IsolationSettings {
        IsolationSettings(mode: .plugin, workerExecutable: worker.path, deadline: deadline,
                          limits: PluginWorker.Limits(addressSpaceMiB: 1024), quarantineAfter: 1_000_000)
    }

    /// The good plugin, compiled once for every case.
    static let goodPlugin: Result<URL, any Error> = Result {
        let built = Fixtures.temporaryDirectory("good-plugin").appendingPathComponent("good.so")
        try compile(built, ["-DPLUGIN_ID=\"test.good\"", "-DOPERATION_ID=\"good.op\""])
        return built
    }

    /// Compiles the corpus plugin (`source`) with `defines` into `output`.
    static func compile(_ output: URL, _ defines: [String]) throws {
        let (status, text) = Fixtures.run("/usr/bin/env", ["cc", "-std=c11", "-shared", "-fPIC", "-fvisibility=hidden",
                                                         "-I", Fixtures.include.path] + defines + ["-o", output.path, source.path])
        guard status == 0 else { throw CompileFailure(output: text) }
    }

    struct CompileFailure: Error, CustomStringConvertible {
        let output: String
        var description: String { "cc failed: \(output)" }
    }

    /// A plugin folder with the good plugin and (optionally) one faulty one, a data folder with keys, a runtime.
    static func setUp(fault: Fault?, place: Place?) throws -> (Runtime, URL, Enrolment) {
        try #require(FileManager.default.isExecutableFile(atPath: worker.path), "build rbs-host first (swift build)")
        let plugins = Fixtures.temporaryDirectory("faults")
        let data = Fixtures.temporaryDirectory("faults-data")
        // The good plugin is the same in every case: compiled once, copied (55 cases of the fault matrix run one
        // after another, and a compile is most of a case's set-up).
        try FileManager.default.copyItem(at: try goodPlugin.get(), to: plugins.appendingPathComponent("good.so"))
        if let fault, let place {
            try compile(plugins.appendingPathComponent("fault.so"), ["-DPLUGIN_ID=\"test.fault\"", "-DFAULT=\(fault.rawValue)", "-DWHERE=\(place.rawValue)",
                                     "-DDATA_DIR=\"\(data.path)\""])
        }
        try Ledger.create(dataDirectory: data, clock: { now }).ledger.close()  // the folder's first start
        let enrolment = try KeyStore(dataDirectory: data).initialize(name: "test", force: false)
        let runtime = Runtime(paths: HostPaths(plugins: plugins.path, data: data), clock: FixedClock(now),
                              log: StandardErrorLog(minimum: .error), isolation: settings())
        runtime.loadPlugins()
        return (runtime, data, enrolment)
    }

    /// Fills the corpus form; the first fault (thrown or returned by submit) is returned as its message.
    static func drive(_ session: FormSession) -> String? {
        do {
            try session.commit("from", text: "1")
            try session.commit("account", text: "40702810938000000001")
            try session.commit("amount", text: "10")
            try session.press("poke")
        } catch {
            return error.description
        }
        if case .failed(let why) = session.submit() { return why }
        return nil
    }

    static let cases: [(Fault, Place)] = Fault.allCases.flatMap { fault in Place.allCases.map { (fault, $0) } }

    @Test("a fault in one plugin's worker ends only its module", arguments: cases)
    func faultEndsOnlyItsModule(fault: Fault, place: Place) throws {
        let (runtime, data, enrolment) = try Self.setUp(fault: fault, place: place)
        let keyBefore = try Data(contentsOf: data.appendingPathComponent("signing.key"))
        // The other customer's module, opened before the fault.
        let good = try runtime.open("good.op")
        try good.commit("from", text: "1")

        var message: String?
        do {
            let faulty = try runtime.open("fault.op")
            message = Self.drive(faulty)
            faulty.close()
        } catch {
            message = error.description
        }
        if let cause = fault.cause {
            let text = try #require(message, "the \(fault) in \(place) was not reported")
            #expect(text.contains("plugin test.fault"), "\(text)")
            #expect(text.contains("operation fault.op"), "\(text)")
            #expect(text.contains(place.call), "\(text)")
            // A malloc bomb either meets its address-space limit or is still touching pages at the deadline.
            #expect(text.contains(cause) || (fault == .mallocBomb && text.contains("no answer in")), "\(text)")
        } else {
            #expect(message == nil, "a refused file access is no fault: \(message ?? "")")
        }
        #expect(try Data(contentsOf: data.appendingPathComponent("signing.key")) == keyBefore)

        // The good module finishes and posts; only it is journaled; the journal verifies.
        _ = Self.drive(good)
        guard case .ready(let draft) = good.submit() else {
            Issue.record("the good module could not submit: \(good.attention())")
            return
        }
        let sign = try SignModule(draft: draft, ledger: try runtime.ledger(), directory: nil)
        _ = try sign.sign(code: TOTP.code(secret: enrolment.totpSecret ?? Data(), at: Self.now), confirmDuplicate: false)
        good.close()
        let entries = try runtime.ledger().journal.entries()
        #expect(entries.count == 1)
        #expect(entries.allSatisfy { String(decoding: $0.document, as: UTF8.self).contains("good.op") })
        #expect(try runtime.ledger().journal.verify() == .ok(1))

        // A fresh worker serves the next run of the faulty plugin.
        if fault.cause != nil, place != .create {
            let again = try runtime.open("fault.op")
            again.close()
        }
        let traces = Self.traces(runtime, ["good.op", "fault.op"])
        runtime.registry.unloadAll()
        // The workers of this case, the faulty ones too, leave no zombie, no process and no descriptor behind.
        #expect(Self.leftBehind(traces) == .nothing)
    }

    /// The workers the pools of `operations`' plugins started.
    static func traces(_ runtime: Runtime, _ operations: [String]) -> [WorkerTrace] {
        operations.flatMap { (runtime.registry.operation(id: $0)?.plugin.runtime as? WorkerRuntime)?.startedWorkers ?? [] }
    }

    /// What some workers left behind in this process.
    struct LeftBehind: Equatable, CustomStringConvertible {
        var zombies = 0
        var running = 0
        var descriptors = 0
        static let nothing = LeftBehind()
        var description: String { "\(zombies) zombies, \(running) running, \(descriptors) descriptors open" }
    }

    /// The state ("S", "Z", ...) of `pid` if it is a child of this process, else nil (reaped, or never ours).
    static func childState(_ pid: pid_t) -> Substring? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 2 && Int32(fields[1]) == getpid() ? fields[0] : nil
    }

    /// What the workers of `traces` left behind, once they have had up to 5 s to be reaped and to close their
    /// standard error (both happen just after a worker ends).
    static func leftBehind(_ traces: [WorkerTrace]) -> LeftBehind {
        func count() -> LeftBehind {
            var left = LeftBehind()
            for trace in traces {
                switch childState(trace.pid) {
                case "Z"?: left.zombies += 1
                case nil: break
                default: left.running += 1
                }
                left.descriptors += trace.openDescriptors
            }
            return left
        }
        let deadline = ContinuousClock.now + .seconds(5)
        var left = count()
        while left != .nothing, ContinuousClock.now < deadline {
            usleep(20_000)
            left = count()
        }
        return left
    }

    @Test("1,000 injected faults leave no zombie and no leaked descriptor")
    func thousandFaults() throws {
        let (good, _, _) = try Self.setUp(fault: nil, place: nil)
        let manifest = try #require(good.registry.operation(id: "good.op")?.plugin.manifest)
        good.registry.unloadAll()
        // A worker that answers its start as a real one would, then aborts in create().
        let folder = Fixtures.temporaryDirectory("fake-worker")
        var ready = WireWriter(.ready)
        ready.data([UInt8](try JSONEncoder().encode(manifest)))
        ready.u32(0)
        ready.optionalString(nil)
        let frame = folder.appendingPathComponent("ready.frame")
        try Data(ready.frame).write(to: frame)
        let fake = folder.appendingPathComponent("fake-worker")
        let (status, text) = Fixtures.run("/usr/bin/env", ["cc", "-std=c11", "-O2", "-o", fake.path,
                                                          Fixtures.root.appendingPathComponent("Tests/Fixtures/faults/fake_worker.c").path])
        try #require(status == 0, "\(text)")
        setenv("RBS_FAKE_READY", frame.path, 1)
        defer { unsetenv("RBS_FAKE_READY") }
        var settings = Self.settings()
        settings.workerExecutable = fake.path
        settings.quarantineAfter = Int.max
        let plugins = Fixtures.temporaryDirectory("fake-plugins")
        try FileManager.default.copyItem(at: URL(fileURLWithPath: good.paths.plugins).appendingPathComponent("good.so"),
                                         to: plugins.appendingPathComponent("good.so"))
        let runtime = Runtime(paths: HostPaths(plugins: plugins.path, data: Fixtures.temporaryDirectory("fake-data")),
                              accounts: StaticAccounts(DemoAccounts.list), log: StandardErrorLog(minimum: .error),
                              isolation: settings)
        runtime.loadPlugins()
        #expect(throws: (any Error).self) { _ = try runtime.open("good.op") }
        for round in 0..<1000 {
            do {
                _ = try runtime.open("good.op")
                Issue.record("round \(round): a faulting create() opened a module")
            } catch {
                if round == 0 { #expect(error.description.contains("create() — killed by SIGABRT"), "\(error)") }
            }
        }
        let traces = Self.traces(runtime, ["good.op"])
        #expect(traces.count >= 1001, "a fresh worker for every round")
        runtime.registry.unloadAll()
        #expect(Self.leftBehind(traces) == .nothing)
    }

    @Test("a plugin that behaves only while it is scanned fails its scan: scan and run workers start alike")
    func noTwoFaces() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.worker.path), "build rbs-host first (swift build)")
        let plugins = Fixtures.temporaryDirectory("two-faces")
        let data = Fixtures.temporaryDirectory("two-faces-data")
        let (status, text) = Fixtures.run("/usr/bin/env", ["cc", "-std=c11", "-shared", "-fPIC", "-I", Fixtures.include.path,
                                                          "-DFAULT=7", "-DWHERE=6", "-o",
                                                          plugins.appendingPathComponent("faces.so").path, Self.source.path])
        try #require(status == 0, "\(text)")
        let scanner = ChildProcessScanner(executable: Self.worker,
                                          arguments: ["scan", "--data", data.path, "--dev", "--isolation", "plugin"])
        let runtime = Runtime(paths: HostPaths(plugins: plugins.path, data: data), accounts: StaticAccounts(DemoAccounts.list),
                              log: StandardErrorLog(minimum: .error), scanner: scanner, isolation: Self.settings())
        runtime.loadPlugins()
        let record = try #require(runtime.registry.records.first)
        #expect(record.status == .failed, "the plugin passed its scan by telling it from a run")
        #expect(record.error?.contains("SIGABRT") == true, "\(record.error ?? "")")
        runtime.registry.unloadAll()
    }

    @Test("hot reload: the new version starts in a new worker; the old one finishes its module, then exits")
    func hotReload() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.worker.path), "build rbs-host first (swift build)")
        let plugins = Fixtures.temporaryDirectory("reload")
        let build = Fixtures.temporaryDirectory("reload-build")
        func compile(_ version: String) throws -> URL {
            let output = build.appendingPathComponent("versioned-\(version).so")
            let (status, text) = Fixtures.run("/usr/bin/env", ["cc", "-std=c11", "-shared", "-fPIC", "-I", Fixtures.include.path,
                                                              "-DVERSION=\"\(version)\"", "-o", output.path,
                                                              Fixtures.root.appendingPathComponent("Tests/Fixtures/scan/versioned.c").path])
            try #require(status == 0, "\(text)")
            return output
        }
        let file = plugins.appendingPathComponent("versioned.so")
        try FileManager.default.copyItem(at: try compile("1.0.0"), to: file)
        let runtime = Runtime(paths: HostPaths(plugins: plugins.path, data: Fixtures.temporaryDirectory("reload-data")),
                              accounts: StaticAccounts(DemoAccounts.list), log: StandardErrorLog(minimum: .error),
                              isolation: Self.settings(deadline: .seconds(10)))
        runtime.loadPlugins()
        let old = try runtime.open("versioned.op")
        try FileManager.default.removeItem(at: file)
        try FileManager.default.copyItem(at: try compile("1.1.0"), to: file)
        runtime.reload()
        let new = try runtime.open("versioned.op")
        #expect(old.operation.plugin.version == "1.0.0")
        #expect(new.operation.plugin.version == "1.1.0")
        let oldPool = try #require(old.operation.plugin.runtime as? WorkerRuntime)
        let newPool = try #require(new.operation.plugin.runtime as? WorkerRuntime)
        let oldWorker = try #require(oldPool.workerPIDs.first)
        #expect(oldPool.workerPIDs.count == 1 && newPool.workerPIDs.count == 1 && newPool.workerPIDs != oldPool.workerPIDs,
                "two versions, two workers")
        // The old module still runs on its own worker.
        try old.commit("note", text: "still here")
        guard case .ready(let draft) = old.submit() else {
            Issue.record("the old version's module could not submit")
            return
        }
        #expect(draft["version"] == "1.0.0")
        old.close()
        let deadline = Date().addingTimeInterval(10)
        while Self.childState(oldWorker) != nil, Date() < deadline { usleep(20_000) }
        #expect(Self.childState(oldWorker) == nil, "the old worker exits after its last module")
        #expect(newPool.workerPIDs.count == 1, "the new one serves on")
        guard case .ready(let fresh) = new.submit() else {
            Issue.record("the new version's module could not submit")
            return
        }
        #expect(fresh["version"] == "1.1.0")
        new.close()
        runtime.registry.unloadAll()
        #expect(Self.leftBehind(oldPool.startedWorkers + newPool.startedWorkers) == .nothing)
    }

    /// A host whose one plugin, the fault corpus plugin, has fault `fault` in create(), isolated as `settings` say.
    static func faultInCreate(_ fault: Int, named name: String, settings: IsolationSettings) throws -> Runtime {
        let plugins = Fixtures.temporaryDirectory(name)
        let (status, text) = Fixtures.run("/usr/bin/env", ["cc", "-std=c11", "-shared", "-fPIC", "-I", Fixtures.include.path,
                                                          "-DFAULT=\(fault)", "-DWHERE=1", "-o",
                                                          plugins.appendingPathComponent("fault.so").path, source.path])
        try #require(status == 0, "\(text)")
        let host = Runtime(paths: HostPaths(plugins: plugins.path, data: Fixtures.temporaryDirectory("\(name)-data")),
                           accounts: StaticAccounts(DemoAccounts.list), log: StandardErrorLog(minimum: .error),
                           isolation: settings)
        host.loadPlugins()
        return host
    }

    @Test("a worker over its CPU-time limit is killed and the limit is named")
    func cpuLimit() throws {
        var settings = Self.settings(deadline: .seconds(30))
        settings.limits = PluginWorker.Limits(cpuSeconds: 1)
        let host = try Self.faultInCreate(4, named: "cpu", settings: settings)
        #expect { _ = try host.open("fault.op") } throws: { error in
            "\(error)".contains("killed by SIGXCPU: it exceeded its CPU time limit of 1 s")
        }
        host.registry.unloadAll()
    }

    @Test("a crash report names the cause in the worker's own words: its last lines on standard error")
    func crashReportHasLastWords() throws {
        let host = try Self.faultInCreate(17, named: "last-words", settings: Self.settings(deadline: .seconds(10)))
        #expect { _ = try host.open("fault.op") } throws: { error in
            "\(error)".contains("killed by SIGABRT")
                && "\(error)".contains("; its last words on standard error: fault: reading the tariff table / thread '<unnamed>' panicked at src/lib.rs:294:5: / the tariff table is corrupt at row 7")
                && !"\(error)".contains("RUST_BACKTRACE")
        }
        host.registry.unloadAll()
    }

    @Test("a worker's or checking child's last words: a Rust panic's place and message without its hint, a Swift fatalError's file and line")
    func lastWordsSummary() {
        #expect(StderrTail.summary([
            "thread '<unnamed>' panicked at src/lib.rs:294:5:", "attempt to divide by zero",
            "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace", "",
        ]) == "thread '<unnamed>' panicked at src/lib.rs:294:5: / attempt to divide by zero")
        #expect(StderrTail.summary(["PayQuick/PayPPQuickOperation.swift:77: Fatal error: no BIC directory"])
                == "PayQuick/PayPPQuickOperation.swift:77: Fatal error: no BIC directory")
        #expect(StderrTail.summary(["one", "two", "three", "four", "five\u{1B}[0m"]) == "two / three / four / five[0m")
        #expect(StderrTail.summary(["", "  "]) == nil)
    }

    @Test("DATA/isolation.conf pins a plugin to a mode; a malformed line is refused with its place")
    func pins() throws {
        let data = Fixtures.temporaryDirectory("pins")
        try "# pins\ntest.good none\n\ntest.fault   plugin # comment\n".write(to: data.appendingPathComponent("isolation.conf"),
                                                                              atomically: true, encoding: .utf8)
        let pins = try IsolationSettings.pins(in: data)
        #expect(pins == ["test.good": .none, "test.fault": .plugin])
        var settings = Self.settings()
        settings.pins = pins
        #expect(settings.mode(for: "test.good") == IsolationSettings.Mode.none)
        #expect(settings.mode(for: "other") == .plugin)

        // The pinned plugin is opened in this process, the other in a worker.
        let (runtime, _, _) = try Self.setUp(fault: .readKey, place: .create)
        runtime.registry.unloadAll()
        let pinned = Runtime(paths: HostPaths(plugins: runtime.paths.plugins, data: data),
                             accounts: StaticAccounts(DemoAccounts.list), log: StandardErrorLog(minimum: .error),
                             isolation: settings)
        pinned.loadPlugins()
        #expect(pinned.registry.operation(id: "good.op")?.plugin.handle != nil, "pinned to none: in-process")
        #expect(pinned.registry.operation(id: "fault.op")?.plugin.handle == nil, "default plugin: in a worker")
        pinned.registry.unloadAll()

        try "test.good sandbox\n".write(to: data.appendingPathComponent("isolation.conf"), atomically: true, encoding: .utf8)
        #expect { _ = try IsolationSettings.pins(in: data) } throws: { error in
            "\(error)".contains("isolation.conf:1: 'test.good sandbox'")
        }
    }

    @Test("a worker is started without the ledger's database address (its password) and without Swift's backtracer")
    func workerEnvironment() {
        let host = ["PATH": "/usr/bin", "RBS_HOME": "/srv/rbs", "RBS_DATABASE": "postgres://bank:secret@db/bank",
                    "SWIFT_BACKTRACE": "enable=yes"]
        let worker = WorkerProcess.environment(of: host)
        #expect(worker["RBS_DATABASE"] == nil)
        #expect(!worker.values.contains { $0.contains("secret") })
        #expect(worker["SWIFT_BACKTRACE"] == "enable=no")
        #expect(worker["PATH"] == "/usr/bin" && worker["RBS_HOME"] == "/srv/rbs")
    }

    @Test("a plugin that faults again and again is quarantined with the reason")
    func quarantine() throws {
        let plugins = Fixtures.temporaryDirectory("quarantine")
        let (status, text) = Fixtures.run("/usr/bin/env", ["cc", "-std=c11", "-shared", "-fPIC", "-I", Fixtures.include.path,
                                                          "-DFAULT=1", "-DWHERE=1", "-o",
                                                          plugins.appendingPathComponent("fault.so").path, Self.source.path])
        try #require(status == 0, "\(text)")
        var settings = Self.settings()
        settings.quarantineAfter = 3
        let host = Runtime(paths: HostPaths(plugins: plugins.path, data: Fixtures.temporaryDirectory("q-data")),
                           accounts: StaticAccounts(DemoAccounts.list), log: StandardErrorLog(minimum: .error),
                           isolation: settings)
        host.loadPlugins()
        var messages: [String] = []
        for _ in 0..<4 {
            do { _ = try host.open("fault.op") } catch { messages.append(error.description) }
        }
        #expect(messages.count == 4)
        #expect(messages.first?.contains("killed by SIGSEGV") == true, "\(messages)")
        #expect(messages.last?.contains("quarantined") == true, "\(messages)")
        // Each refused open is a run that faulted, for a rollout's automatic rollback (faults alone never reached
        // its minimum of runs, and a version crashing in create() stayed rolled out to everyone).
        let all = PluginVersionCounters.shared.take()
        let counted = all.filter { $0.key.pluginID == "test.fault" }
        PluginVersionCounters.shared.giveBack(all.filter { $0.key.pluginID != "test.fault" })
        #expect(counted.values.reduce(0) { $0 + $1.runs } >= 4 && counted.values.reduce(0) { $0 + $1.faults } >= 4, "\(counted)")
        // Listed as unavailable, with the reason, until the file changes.
        let listing = try #require(host.registry.operations.first { $0.id == "fault.op" })
        #expect(listing.unavailable?.contains("quarantined") == true)
        let record = try #require(host.registry.records.first)
        #expect(record.status == .failed)
        #expect(record.error?.contains("quarantined") == true)
        host.registry.unloadAll()
    }
}
