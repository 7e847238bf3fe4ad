import Foundation
import RBSLedger
import Testing
@testable import RBSCore

/// A plugin is served by a pool of workers (issue #33): runs spread over them, each stays on the worker it started
/// on, a slow call holds up only the runs on its own worker, and a crash ends only the runs its worker served.
struct WorkerPoolTests {
    /// A folder with the good plugin (test.good, good.op) and the corpus plugin built as test.pool (pool.op) with
    /// `defines`, and a runtime over it whose test.pool has `workers` workers.
    static func host(_ name: String, workers: Int, deadline: Duration = .seconds(10), _ defines: [String]) throws -> Runtime {
        try #require(FileManager.default.isExecutableFile(atPath: WorkerIsolationTests.worker.path), "build rbs-host first (swift build)")
        let plugins = Fixtures.temporaryDirectory(name)
        try FileManager.default.copyItem(at: try WorkerIsolationTests.goodPlugin.get(), to: plugins.appendingPathComponent("good.so"))
        try WorkerIsolationTests.compile(plugins.appendingPathComponent("pool.so"),
                                         ["-DPLUGIN_ID=\"test.pool\"", "-DOPERATION_ID=\"pool.op\""] + defines)
        var settings = WorkerIsolationTests.settings(deadline: deadline)
        settings.pluginWorkers = ["test.pool": workers]
        let runtime = Runtime(paths: HostPaths(plugins: plugins.path, data: Fixtures.temporaryDirectory("\(name)-data")),
                              accounts: StaticAccounts(DemoAccounts.list), log: StandardErrorLog(minimum: .error),
                              isolation: settings)
        runtime.loadPlugins()
        return runtime
    }

    /// The pool of `operation`'s plugin.
    static func pool(_ runtime: Runtime, _ operation: String) throws -> WorkerRuntime {
        try #require(runtime.registry.operation(id: operation)?.plugin.runtime as? WorkerRuntime)
    }

    /// Fills the corpus form without pressing its button; the submitted draft's account, or the failure.
    static func fillAndSubmit(_ session: FormSession, amount: String = "10") -> Result<String, FailureText> {
        do {
            try session.commit("from", text: "1")
            try session.commit("account", text: "40702810938000000001")
            try session.commit("amount", text: amount)
        } catch {
            return .failure(FailureText(error.description))
        }
        switch session.submit() {
        case .ready(let draft): return .success(draft["account"] ?? "")
        case .failed(let why): return .failure(FailureText(why))
        case .needsAttention(let issues): return .failure(FailureText("\(issues)"))
        }
    }

    struct FailureText: Error, Equatable {
        let text: String
        init(_ text: String) { self.text = text }
    }

    /// What finished, in the order it finished.
    final class Finished: @unchecked Sendable {
        private let lock = NSLock()
        private var names: [String] = []
        func note(_ name: String) { lock.withLock { names.append(name) } }
        var order: [String] { lock.withLock { names } }
    }

    @Test("a hung call holds up only its own worker: the plugin's runs on its other worker and another plugin's runs finish meanwhile")
    func hungCallHoldsOnlyItsWorker() throws {
        // FAULT 4 at WHERE 3: action(poke) never returns. The call ends only when the test kills its worker, after
        // everything else has finished — or, if anything waited for it, at the 30 s deadline, after them.
        let runtime = try Self.host("pool-hang", workers: 2, deadline: .seconds(30), ["-DFAULT=4", "-DWHERE=3"])
        defer { runtime.registry.unloadAll() }
        let slow = try runtime.open("pool.op")
        let neighbour = try runtime.open("pool.op")
        let pool = try Self.pool(runtime, "pool.op")
        #expect(pool.workerPIDs.count == 2, "two runs at once, two workers")

        let finished = Finished()
        let pressing = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) let slowRun = slow
        nonisolated(unsafe) var pressed: String?
        Thread.detachNewThread {
            pressing.signal()
            do { try slowRun.press("poke") } catch { pressed = "\(error)" }
            finished.note("slow call")
            done.signal()
        }
        pressing.wait()
        usleep(200_000)  // the press is in the worker's loop by now

        // The same plugin's run on the other worker fills and submits.
        #expect(Self.fillAndSubmit(neighbour) == .success("40702810938000000001"))
        finished.note("same plugin, other worker")
        // Another plugin opens, fills and submits.
        let other = try runtime.open("good.op")
        #expect(Self.fillAndSubmit(other) == .success("40702810938000000001"))
        finished.note("other plugin")
        // A new run of the slow plugin is placed on the worker that is not held up, and finishes too.
        let third = try runtime.open("pool.op")
        #expect(Self.fillAndSubmit(third) == .success("40702810938000000001"))
        finished.note("same plugin, new run")

        let hung = try #require(pool.workerPIDs.first)
        kill(hung, SIGKILL)
        done.wait()
        #expect(finished.order == ["same plugin, other worker", "other plugin", "same plugin, new run", "slow call"])
        #expect(pressed?.contains("plugin test.pool, operation pool.op: action(poke) — killed by SIGKILL") == true, "\(pressed ?? "")")
        // The runs on the other worker go on.
        #expect(throws: Never.self) { try neighbour.commit("amount", text: "20") }
        for session in [slow, neighbour, other, third] { session.close() }
    }

    @Test("a crash in one worker ends the runs on it; the runs on the plugin's other worker go on, and a fresh worker takes its place")
    func crashEndsOnlyItsWorkersRuns() throws {
        // FAULT 1 at WHERE 3: action(poke) dereferences NULL.
        let runtime = try Self.host("pool-crash", workers: 2, ["-DFAULT=1", "-DWHERE=3"])
        defer { runtime.registry.unloadAll() }
        let crashing = try runtime.open("pool.op")   // the first worker
        let survivor = try runtime.open("pool.op")   // the second: the least busy
        let sharing = try runtime.open("pool.op")    // the first again: both serve one run, the first place wins
        let pool = try Self.pool(runtime, "pool.op")
        let before = pool.workerPIDs
        #expect(before.count == 2)

        #expect { try crashing.press("poke") } throws: { error in
            "\(error)".contains("plugin test.pool, operation pool.op: action(poke) — killed by SIGSEGV")
        }
        // The run that shared the crashed worker ends with the same fault at its next call.
        #expect { try sharing.commit("from", text: "1") } throws: { error in "\(error)".contains("killed by SIGSEGV") }
        // The run on the other worker goes on and submits.
        #expect(Self.fillAndSubmit(survivor) == .success("40702810938000000001"))
        #expect(pool.workerPIDs == [before[1]], "the crashed worker left its place; the other one still serves")

        // A new run takes the empty place with a fresh worker.
        let fresh = try runtime.open("pool.op")
        #expect(Self.fillAndSubmit(fresh) == .success("40702810938000000001"))
        let after = pool.workerPIDs
        #expect(after.count == 2 && after[1] == before[1] && after[0] != before[0])
        #expect(WorkerIsolationTests.childState(before[0]) == nil, "the crashed worker was reaped")
        for session in [crashing, survivor, sharing, fresh] { session.close() }
        let traces = pool.startedWorkers
        #expect(traces.count == 3)
        runtime.registry.unloadAll()
        #expect(WorkerIsolationTests.leftBehind(traces) == .nothing)
    }

    @Test("isolation.conf sets a plugin's pool size (workers=N), which the pool honours; the default is one per core, at least two")
    func poolSizeFromConfiguration() throws {
        let data = Fixtures.temporaryDirectory("pool-conf")
        let file = data.appendingPathComponent("isolation.conf")
        try "test.pool workers=3   # three at most\ntest.other plugin workers=1 memory=2048\n".write(to: file, atomically: true, encoding: .utf8)
        let configuration = try IsolationSettings.configuration(in: data)
        #expect(configuration.workers == ["test.pool": 3, "test.other": 1])
        #expect(configuration.limits["test.other"]?.memoryMiB == 2048)

        var settings = WorkerIsolationTests.settings()
        settings.pluginWorkers = configuration.workers
        #expect(settings.workers(for: "test.pool") == 3)
        #expect(settings.workers(for: "unnamed") == max(2, ProcessInfo.processInfo.activeProcessorCount))

        // Five runs at once on a pool of three: three workers, the runs spread 2, 2, 1.
        let runtime = try Self.host("pool-size", workers: 3, [])
        defer { runtime.registry.unloadAll() }
        let runs = try (0..<5).map { _ in try runtime.open("pool.op") }
        let pool = try Self.pool(runtime, "pool.op")
        #expect(pool.workerPIDs.count == 3)
        #expect(Set(runs.compactMap { ($0.module as? WorkerModule)?.worker.process.pid }).count == 3)
        for run in runs { #expect(Self.fillAndSubmit(run) == .success("40702810938000000001")) }
        for run in runs { run.close() }

        for (line, message) in [
            ("test.pool workers=0", "'test.pool workers=0' — workers=0: use a whole number of workers from 1 to 256"),
            ("test.pool workers=many", "'test.pool workers=many' — workers=many: use a whole number of workers from 1 to 256"),
        ] {
            try "# pools\n\(line)\n".write(to: file, atomically: true, encoding: .utf8)
            #expect { _ = try IsolationSettings.configuration(in: data) } throws: { error in
                "\(error)" == "\(file.path):2: \(message)"
            }
        }
    }
}
