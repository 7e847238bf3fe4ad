import Foundation
@testable import RBSCore
import RBSLedger
@testable import RBSServer
import Testing

/// `serve` over a plugin served by a pool of workers (issue #33): a request waiting for a busy worker waits on that
/// worker's lane, so one run's slow call holds up neither the plugin's runs on its other worker nor other plugins.
@Suite("serve: a plugin's pool of workers")
struct WorkerPoolServerTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Compiles the fault corpus plugin into `folder` as `name`.so with `defines`.
    static func compile(_ name: String, into folder: URL, _ defines: [String]) throws {
        let compile = Process()
        compile.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        compile.arguments = ["cc", "-std=c11", "-shared", "-fPIC", "-I", root.appendingPathComponent("SDK/Sources/CRBSPlugin/include").path]
            + defines + ["-o", folder.appendingPathComponent("\(name).so").path,
                         root.appendingPathComponent("Tests/Fixtures/faults/fault.c").path]
        try compile.run()
        compile.waitUntilExit()
        try #require(compile.terminationStatus == 0, "cc failed")
    }

    /// What finished, in the order it finished.
    final class Finished: @unchecked Sendable {
        private let lock = NSLock()
        private var names: [String] = []
        func note(_ name: String) { lock.withLock { names.append(name) } }
        var order: [String] { lock.withLock { names } }
    }

    @Test("while one run's call hangs in its worker, the plugin's runs on its other worker and another plugin's runs are opened and committed")
    func slowCallHoldsUpOnlyItsWorker() async throws {
        let worker = Self.root.appendingPathComponent(".build/debug/rbs-host")
        try #require(FileManager.default.isExecutableFile(atPath: worker.path), "build rbs-host first (swift build)")
        let plugins = FileManager.default.temporaryDirectory.appendingPathComponent("rbs-pool-\(UUID().uuidString)")
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("rbs-pool-data-\(UUID().uuidString)")
        for folder in [plugins, data] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        defer { for folder in [plugins, data] { try? FileManager.default.removeItem(at: folder) } }
        // test.slow: its button's action never returns; the call ends when the test kills its worker after everything
        // else has finished (or, if anything waited for it, at the 30 s deadline, after them). test.good behaves.
        try Self.compile("slow", into: plugins, ["-DPLUGIN_ID=\"test.slow\"", "-DOPERATION_ID=\"slow.op\"", "-DFAULT=4", "-DWHERE=3"])
        try Self.compile("good", into: plugins, ["-DPLUGIN_ID=\"test.good\"", "-DOPERATION_ID=\"good.op\""])
        try Ledger.create(dataDirectory: data).ledger.close()
        let clock = TestClock()
        let runtime = Runtime(paths: HostPaths(plugins: plugins.path, data: data), clock: clock, log: StandardErrorLog(minimum: .error),
                              isolation: IsolationSettings(mode: .plugin, workerExecutable: worker.path, deadline: .seconds(30),
                                                           pluginWorkers: ["test.slow": 2]))
        runtime.loadPlugins()
        defer { runtime.registry.unloadAll() }
        let ledger = try runtime.ledger()
        defer { try? ledger.close() }
        let server = try Server(runtime: runtime, ledger: ledger, clock: { clock.now }, log: { _ in })
        let person = try TestBank.add("carol", "correct horse", ledger)
        try await TestBank.test(server, .http, bank: nil) { api in
            let token = try await api.login(person)
            let slow = try #require(try await api.open("slow.op", token)["id"] as? String)
            let neighbour = try #require(try await api.open("slow.op", token)["id"] as? String)
            let finished = Finished()
            let pressed = Task {
                let answer = try await api.call(.post, "/api/v1/runs/\(slow)/atoms/poke/press", token: token)
                finished.note("slow call")
                return answer.status
            }
            try await Task.sleep(nanoseconds: 300_000_000)  // the press is in the worker's loop by now

            // The same plugin's run on its other worker.
            try await api.fill(neighbour, [("account", "40702810938000000001"), ("amount", "10")], token)
            finished.note("same plugin, other worker")
            // Another plugin's run: opened, filled.
            let other = try #require(try await api.open("good.op", token)["id"] as? String)
            try await api.fill(other, [("account", "40702810938000000001"), ("amount", "10")], token)
            finished.note("other plugin")
            // A new run of the slow plugin goes to the worker that is not held up.
            let third = try #require(try await api.open("slow.op", token)["id"] as? String)
            try await api.fill(third, [("account", "40702810938000000001")], token)
            finished.note("same plugin, new run")

            let pool = try #require(runtime.registry.operation(id: "slow.op")?.plugin.runtime as? WorkerRuntime)
            kill(try #require(pool.workerPIDs.first), SIGKILL)
            #expect(try await pressed.value != 200, "the hung run ended with its worker")
            #expect(finished.order == ["same plugin, other worker", "other plugin", "same plugin, new run", "slow call"])
            // The runs on the other worker go on.
            #expect(try await api.commit(neighbour, "amount", "20", token).status == 200)
        }
    }
}
