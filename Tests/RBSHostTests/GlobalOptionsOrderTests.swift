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

    @Test("--lang ru says why a plugin is not in service in Russian: on standard error after a start, and in `plugins`")
    func pluginRefusalsInRussian() throws {
        let sandbox = try HostSandbox()
        let folder = sandbox.data.appendingPathComponent("plugins-ru")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        try Data("not a plugin\n".utf8).write(to: folder.appendingPathComponent("broken.so"))
        let path = folder.appendingPathComponent("broken.so").path
        sandbox.plugins = folder
        // Without --dev the unsigned file is refused by the trust policy; with it, the loader finds it is no ELF file.
        let unsigned = try bothOrders(sandbox, ["--lang", "ru"], ["list"], environment: ["RBS_DEV": nil])
        #expect(unsigned.stderr.split(separator: "\n").map(String.init)
                    == ["ошибка: \(path): не подписан — подпишите его: `rbs-host plugin sign \(path) --key КЛЮЧ`, и доверьте этот ключ: `rbs-host trust add`; или запустите с --dev"],
                "\(unsigned)")
        let plugins = try sandbox.host(["--lang", "ru", "plugins"])
        let screen = plugins.stdout.split(separator: "\n").map(String.init)
        #expect(screen.last == "\(path): это не ELF-файл — плагин — это разделяемая библиотека, собранная `cc -shared` или как dynamic library",
                "\(plugins)")
        #expect(screen.count == 4 && screen[2].split(separator: " ").last == "ошибка", "\(plugins)")
        // English stays English, and --json keeps the English `error` scripts read, whatever the language.
        let english = try sandbox.host(["plugins", "--json"])
        let json = try sandbox.host(["--lang", "ru", "plugins", "--json"])
        #expect(json.stdout == english.stdout && english.stdout.contains("not an ELF file"), "\(json)")
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
        // In Russian the verdict says the same from the fault's facts, the worker's own account quoted.
        let crashed = try sandbox.host(["--lang", "ru"] + global + command)
        let verdict = crashed.stdout.split(separator: "\n").last.map(String.init) ?? ""
        #expect(crashed.status == 1 && verdict.hasPrefix("не готово: плагин tests.check.crash, операция check.crash: value_changed(name) — сбой рабочего процесса плагина (")
                    && verdict.hasSuffix("); операция прервана, ничего не подписано и не проведено; amount: обязательное поле: Amount"), "\(crashed)")
    }

    @Test("--database with a bad address is refused the same way before or after the command")
    func database() throws {
        let sandbox = try HostSandbox()
        let result = try bothOrders(sandbox, ["--database", "mysql://nowhere"], ["journal"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("mysql://nowhere"), "\(result.stderr)")
    }
}
