import Foundation
import RBSLedger
import Testing
@testable import RBSCore

/// The worker sandbox under the default settings (the limits a host starts with): hostile plugins built from
/// Tests/Fixtures/faults/fault.c are denied or ended, and the fault names the call or the limit.
@Suite(.serialized)
struct WorkerSandboxTests {
    static let worker = WorkerIsolationTests.worker
    static let source = WorkerIsolationTests.source

    /// What a host starts with: standard limits, a 5 s deadline.
    static func settings() -> IsolationSettings {
        IsolationSettings(mode: .plugin, workerExecutable: worker.path, quarantineAfter: 1_000_000)
    }

    /// A runtime over one fault-corpus plugin with `fault` in create() (its file named `name`, so its image can be
    /// told among the processes), and `conf` as the data folder's isolation.conf.
    static func host(fault: Int, name: String = "hostile", conf: String? = nil) throws -> Runtime {
        try #require(FileManager.default.isExecutableFile(atPath: worker.path), "build rbs-host first (swift build)")
        let plugins = Fixtures.temporaryDirectory("sandbox")
        let data = Fixtures.temporaryDirectory("sandbox-data")
        let (status, text) = Fixtures.run("/usr/bin/env", ["cc", "-std=c11", "-shared", "-fPIC", "-I", Fixtures.include.path,
                                                          "-DFAULT=\(fault)", "-DWHERE=1", "-o",
                                                          plugins.appendingPathComponent("\(name).so").path, source.path])
        try #require(status == 0, "\(text)")
        var settings = settings()
        if let conf {
            try conf.write(to: data.appendingPathComponent("isolation.conf"), atomically: true, encoding: .utf8)
            let configuration = try IsolationSettings.configuration(in: data)
            settings.pins = configuration.pins
            settings.pluginLimits = configuration.limits
            settings.deadline = .seconds(30)
        }
        let runtime = Runtime(paths: HostPaths(plugins: plugins.path, data: data), accounts: StaticAccounts(DemoAccounts.list),
                              log: StandardErrorLog(minimum: .error), isolation: settings)
        runtime.loadPlugins()
        return runtime
    }

    /// The message a run of the hostile plugin's operation ends with.
    static func fault(of runtime: Runtime) -> String? {
        do {
            let session = try runtime.open("fault.op")
            session.close()
            return nil
        } catch {
            return error.description
        }
    }

    static func ended(_ cause: String) -> String {
        "plugin test.fault, operation fault.op: create() — \(cause); the run was ended, nothing was signed or posted"
    }

    @Test("a plugin that forks, opens a socket or runs a program is killed, and the fault names the call",
          arguments: [(13, "clone"), (14, "socket"), (15, "execve")])
    func forbiddenCalls(fault: Int, call: String) throws {
        let runtime = try Self.host(fault: fault)
        defer { runtime.registry.unloadAll() }
        #expect(Self.fault(of: runtime) == Self.ended("killed by SIGSYS: it made a forbidden system call (\(call))"))
    }

    @Test("a plugin cannot take SIGSYS's handler over: the new action is refused, reading it is not, and a forbidden call after is still named")
    func sigsysHandlerKept() throws {
        // The plugin aborts if its new action for SIGSYS was taken or its read refused (the fault would say SIGABRT).
        let runtime = try Self.host(fault: 19)
        defer { runtime.registry.unloadAll() }
        #expect(Self.fault(of: runtime) == Self.ended("killed by SIGSYS: it made a forbidden system call (socket)"))
    }

    @Test("a plugin may lower its own thread's priority (libdispatch does for a worker's QoS), not raise it or touch another process's: refused, not killed")
    func ownPriority() throws {
        // The plugin aborts if lowering its own was refused, or if a raise or another process's was not refused with EPERM.
        let runtime = try Self.host(fault: 20)
        defer { runtime.registry.unloadAll() }
        #expect(Self.fault(of: runtime) == nil)
    }

    @Test("a plugin cannot read /etc/shadow: the open is refused and the run goes on")
    func noShadow() throws {
        // The plugin aborts if it could read the file, so a run that goes on is a refused read.
        let runtime = try Self.host(fault: 12)
        defer { runtime.registry.unloadAll() }
        #expect(Self.fault(of: runtime) == nil)
    }

    @Test("a plugin that allocates 2 GiB is refused by the default memory limit, and the fault names it")
    func memoryLimit() throws {
        let runtime = try Self.host(fault: 16)
        defer { runtime.registry.unloadAll() }
        #expect(Self.fault(of: runtime) == Self.ended("killed by SIGABRT (perhaps an allocation refused at its address-space limit of 1024 MiB)"))
    }

    @Test("isolation.conf sets one plugin's CPU limit; an endless loop meets it and the fault names it")
    func cpuLimitFromConf() throws {
        let runtime = try Self.host(fault: 4, conf: "test.fault cpu=1   # a busy plugin\n")
        defer { runtime.registry.unloadAll() }
        #expect(Self.fault(of: runtime) == Self.ended("killed by SIGXCPU: it exceeded its CPU time limit of 1 s"))
    }

    /// The processes whose command line names `text`.
    static func processes(naming text: String) -> [Int32] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return names.compactMap(Int32.init).filter { pid in
            guard let line = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline")) else { return false }
            return String(decoding: line, as: UTF8.self).contains(text)
        }
    }

    @Test("a plugin that forks and calls setsid() leaves no process behind its worker")
    func nothingOutlivesTheWorker() throws {
        let runtime = try Self.host(fault: 13, name: "forker")
        #expect(Self.fault(of: runtime)?.contains("forbidden system call (clone)") == true)
        runtime.registry.unloadAll()
        // The workers and anything they started are named by the image's copy (forker-HASH.so) in their command line;
        // a worker that was asked to quit gets a moment to do so.
        let deadline = Date().addingTimeInterval(3)
        while !Self.processes(naming: "/forker-").isEmpty, Date() < deadline { usleep(20_000) }
        #expect(Self.processes(naming: "/forker-").isEmpty)
    }

    @Test("a worker started by root leaves root for a uid and gid of its own, with no groups, capabilities or way back")
    func leavesRoot() throws {
        try #require(geteuid() == 0, "this test needs a host that runs as root")
        let runtime = try Self.host(fault: 0, name: "quiet")
        defer { runtime.registry.unloadAll() }
        let session = try runtime.open("fault.op")
        defer { session.close() }
        let pid = try #require(Self.processes(naming: "/quiet-").first, "no worker runs")
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        func field(_ name: String) -> String? {
            status.split(separator: "\n").first { $0.hasPrefix(name + ":") }
                .map { $0.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces) }
        }
        let own = PluginWorker.sandboxUser(pid: pid)
        #expect(field("Uid") == "\(own)\t\(own)\t\(own)\t\(own)")
        #expect(field("Gid") == "\(own)\t\(own)\t\(own)\t\(own)")
        #expect(field("Groups") == "")
        #expect(field("CapEff") == "0000000000000000")
        #expect(field("CapPrm") == "0000000000000000")
        #expect(field("NoNewPrivs") == "1")
        #expect(field("Seccomp") == "2")
        // Its own session and process group, away from the host's terminal.
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        let fields = stat[stat.index(after: try #require(stat.lastIndex(of: ")")))...].split(separator: " ")
        #expect(fields[2] == "\(pid)" && fields[3] == "\(pid)", "pgrp and session: \(fields[2]) \(fields[3])")
    }

    @Test("isolation.conf: a mode and limits per plugin; a bad word or value is refused with its line")
    func configuration() throws {
        let data = Fixtures.temporaryDirectory("conf")
        let file = data.appendingPathComponent("isolation.conf")
        try """
            # modes and limits
            test.good none
            test.big plugin memory=4096 cpu=600
            test.big files=64   # a later line adds to it
            test.many processes=0
            """.write(to: file, atomically: true, encoding: .utf8)
        let configuration = try IsolationSettings.configuration(in: data)
        #expect(configuration.pins == ["test.good": .none, "test.big": .plugin])
        #expect(configuration.limits == [
            "test.big": IsolationSettings.LimitOverride(memoryMiB: 4096, cpuSeconds: 600, openFiles: 64),
            "test.many": IsolationSettings.LimitOverride(processes: 0),
        ])
        var settings = Self.settings()
        settings.pluginLimits = configuration.limits
        #expect(settings.limits(for: "test.big") == PluginWorker.Limits(addressSpaceMiB: 4096, cpuSeconds: 600, openFiles: 64,
                                                                        processes: 64))
        #expect(settings.limits(for: "other") == .standard)
        #expect(IsolationSettings.workerArguments(image: "/i.so", limits: settings.limits(for: "test.many"))
            == ["worker", "--limit-as", "1024", "--limit-cpu", "300", "--limit-files", "256", "/i.so"])

        for (line, message) in [
            ("test.big memory=lots", "'test.big memory=lots' — memory=lots: use a whole number from 0 (no limit) to 1073741824"),
            ("test.big swap=1", "'test.big swap=1' — 'swap=1' is not a mode or a limit; write `PLUGIN-ID [none|plugin] [workers=N] [memory=MiB] [cpu=SECONDS] [files=N] [processes=N]`"),
            ("test.big", "'test.big' — write `PLUGIN-ID [none|plugin] [workers=N] [memory=MiB] [cpu=SECONDS] [files=N] [processes=N]`"),
        ] {
            try "# first\n\(line)\n".write(to: file, atomically: true, encoding: .utf8)
            #expect { _ = try IsolationSettings.configuration(in: data) } throws: { error in
                "\(error)" == "\(file.path):2: \(message)"
            }
        }
    }

    @Test("the example plugins (C, Swift, Rust) open and run in sandboxed workers")
    func examples() throws {
        let files = (try? PluginRegistry.pluginFiles(in: Fixtures.plugins.path)) ?? []
        try #require(!files.isEmpty, "Plugins/ is empty: run `make plugins` first (`make test` does)")
        let runtime = Runtime(paths: HostPaths(plugins: Fixtures.plugins.path, data: Fixtures.temporaryDirectory("examples")),
                              accounts: StaticAccounts(DemoAccounts.list), log: StandardErrorLog(minimum: .error),
                              isolation: Self.settings())
        runtime.loadPlugins()
        defer { runtime.registry.unloadAll() }
        for record in runtime.registry.records {
            #expect(record.status == .loaded, "\(record.error ?? record.path)")
        }
        for operation in runtime.registry.operations {
            do {
                let session = try runtime.open(operation.id)
                #expect(session.operation.plugin.handle == nil, "\(operation.id) is in a worker")
                session.close()
            } catch {
                Issue.record("\(operation.id): \(error)")
            }
        }
        // The Swift quick payment, filled and submitted through its worker (its INN check is an exported function,
        // called through libffi in the worker; the BIC looks the bank up through the host's directory service).
        let quick = try runtime.open("pay.pp.quick")
        defer { quick.close() }
        for (atom, text) in DocumentReviewTests.quick { try quick.commit(atom, text: text) }
        guard case .ready(let draft) = quick.submit() else {
            Issue.record("the quick payment could not submit in its worker: \(quick.attention())")
            return
        }
        #expect(draft["inn"] == "7707083893")
    }
}
