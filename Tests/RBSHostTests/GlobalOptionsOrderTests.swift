import Foundation
import Testing

/// The global options work before the command's name as after it (issue 28: `rbs-host --plugins DIR list` was
/// refused although README calls `--plugins` a global option).
@Suite("global options before the command")
struct GlobalOptionsOrderTests {
    /// Runs `before + command` and `command + before`; expects the same status and output, and answers it.
    private func bothOrders(_ sandbox: HostSandbox, _ global: [String], _ command: [String],
                            environment: [String: String?] = [:],
                            sourceLocation: SourceLocation = #_sourceLocation) throws -> ProcessResult {
        let first = try sandbox.host(global + command, environment: environment, sourceLocation: sourceLocation)
        let after = try sandbox.host(command + global, environment: environment, sourceLocation: sourceLocation)
        expectIdentical(first, after, "\(global) \(command)", sourceLocation: sourceLocation)
        return first
    }

    @Test("--plugins DIR list lists DIR's operations")
    func plugins() throws {
        let sandbox = try HostSandbox()
        let folder = try CheckFixtures.folder(in: sandbox, "only")
        try CheckFixtures.build("good", into: folder)
        for command in [["list", "--json"], ["list"]] {
            let result = try bothOrders(sandbox, ["--plugins", folder.path], command)
            #expect(result.status == 0, "\(result)")
            #expect(result.stdout.contains("check.good") && !result.stdout.contains("pay.pp.quick"), "\(result.stdout)")
        }
        let equals = try bothOrders(sandbox, ["--plugins=\(folder.path)"], ["list", "--json"])
        #expect(equals.stdout.contains("check.good"))
    }

    @Test("--data DIR is the folder every command uses, also for a command of two words")
    func data() throws {
        let sandbox = try HostSandbox()
        let fresh = sandbox.data.appendingPathComponent("elsewhere")
        let result = try bothOrders(sandbox, ["--data", fresh.path], ["journal", "show", "1"])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains(fresh.path), "\(result.stderr)")
    }

    @Test("--lang ru speaks Russian; --dev allows unsigned plugins; --isolation plugin runs them in a worker")
    func langDevIsolation() throws {
        let sandbox = try HostSandbox()
        let russian = try bothOrders(sandbox, ["--lang", "ru"], ["describe", "pay.pp.quick"])
        #expect(russian.status == 0, "\(russian)")
        // The whole screen speaks it: the table's header and the verdict too, not only the plugin's texts.
        let screen = russian.stdout.split(separator: "\n").map(String.init)
        #expect(screen.count > 3 && screen[1].split(separator: " ").map(String.init) == ["ПОЛЕ", "ВИД", "ПОДПИСЬ", "ПОЛЯ", "ЗНАЧЕНИЕ", "ПРИМЕЧАНИЕ"],
                "\(russian.stdout)")
        #expect(screen.last?.hasPrefix("не готово: ") == true, "\(russian.stdout)")
        let unknown = try bothOrders(sandbox, ["--lang", "xx"], ["describe", "pay.pp.quick"])
        #expect(unknown.status != 0 && unknown.stderr.contains("xx"), "\(unknown)")

        let unsigned = try sandbox.host(["list", "--json"], environment: ["RBS_DEV": nil])
        let dev = try bothOrders(sandbox, ["--dev"], ["list", "--json"], environment: ["RBS_DEV": nil])
        #expect(dev.status == 0)
        #expect(dev.stdout.contains("pay.pp.quick") && !unsigned.stdout.contains("pay.pp.quick"), "\(unsigned)")

        // A plugin that crashes ends its worker, not the host: the host says so and exits 1 (in-process it would be killed).
        sandbox.plugins = try CheckFixtures.folder(in: sandbox, "crash")
        try CheckFixtures.build("crash_value_changed", into: sandbox.plugins)
        // (The worker's own report names its process, so the two runs are compared by what they decide.)
        let global = ["--isolation", "plugin", "--worker-timeout", "10"], command = ["describe", "check.crash", "--set", "name=boom"]
        for isolated in [try sandbox.host(global + command), try sandbox.host(command + global)] {
            #expect(isolated.status == 1 && !isolated.signalled, "\(isolated)")
            #expect(isolated.stdout.split(separator: "\n").last?.hasPrefix("not ready: plugin tests.check.crash") == true, "\(isolated.stdout)")
        }
    }

    @Test("--database with a bad address is refused the same way before or after the command")
    func database() throws {
        let sandbox = try HostSandbox()
        let result = try bothOrders(sandbox, ["--database", "mysql://nowhere"], ["journal"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("mysql://nowhere"), "\(result.stderr)")
    }
}
