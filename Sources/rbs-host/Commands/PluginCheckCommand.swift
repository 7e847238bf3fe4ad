import ArgumentParser
import Foundation
import RBSCore
#if canImport(Glibc)
import Glibc
#endif

/// `rbs-host plugin check FILE`: the first thing a plugin author runs. Loads the plugin in a child process and
/// exercises it; one PASS/FAIL line per check; exit 1 on any failure.
struct PluginCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check", abstract: "Check a plugin in a child process: descriptors, create/destroy, inputs, submit, leaks.",
        discussion: """
            Loads the plugin (no trust needed) in a child process and exercises every operation: 100 create/destroy \
            cycles; random, empty, over-long (10 KB) and invalid-UTF-8 values for every atom; each atom listed in \
            rbs.recorded-atoms/1 held to its promise (value_changed only records: no host call, RBS_OK, nothing \
            shown changed); submits; 1,000 \
            create/destroy cycles watching resident memory. A crash or a hang fails the check that was running. \
            Exit 1 on any failure.
            """)

    @Argument(help: "The plugin file (.so).") var file: String
    @Option(help: "Seconds one check may run before the child is killed.") var timeout: Double = 20
    @Flag(help: "Print a JSON array of {name, passed, detail}.") var json = false
    @Option(help: "How many runs the leak check opens and closes.") var cycles = 1_000
    @Option(help: "How many MB resident memory may grow over the leak check's cycles.") var leakLimit = 4
    @Option(help: ArgumentHelp("The author's cases: a JSON array of {name, operation, values: [[atom, value], …], and document: {field: value, …} or refused: {atom, message}} — each run in the child after the other checks; a document must also be one the core accepts. The check's core has the demo accounts 40817810438000000001 (RUB), 40817810738000000002 (RUB), 40817810038000000003 (blocked) and 40817840638000000004 (USD).", valueName: "file"))
    var cases: String?

    func run() throws {
        guard FileManager.default.fileExists(atPath: file) else {
            Terminal.error("\(file): no such file — give the path of a built plugin (.so)")
            throw ExitCode(2)
        }
        // The file is read here first, so a mistake in it is one clear line before any check runs.
        if let cases {
            do { _ = try CheckCase.read(cases) } catch {
                Terminal.error(error.description)
                throw ExitCode(2)
            }
        }
        let supervisor = PluginCheckSupervisor(executable: PluginCheckCommand.selfExecutable,
                                               arguments: ["plugin", "check-child", "--cycles", String(cycles),
                                                           "--leak-limit", String(leakLimit)]
                                                   + (cases.map { ["--cases", $0] } ?? []),
                                               timeout: timeout)
        if !json { print("Checking \(file)") }
        let width = 34
        let results = supervisor.check(file) { result in
            guard !json else { return }
            let name = result.name.count < width ? result.name + String(repeating: " ", count: width - result.name.count) : result.name + " "
            print((result.passed ? Terminal.green("PASS") : Terminal.red("FAIL")) + "  " + name + result.detail)
            fflush(nil)
        }
        let failed = results.filter { !$0.passed }.count
        if json {
            JSONOutput.print(results)
        } else {
            print(failed == 0 ? "\(results.count) checks passed"
                              : "\(failed) of \(results.count) checks failed")
        }
        if failed > 0 || results.isEmpty { throw ExitCode.failure }
    }

    /// This binary, for the child processes.
    static var selfExecutable: URL {
        let proc = URL(fileURLWithPath: "/proc/self/exe")
        if FileManager.default.fileExists(atPath: proc.path) { return proc.resolvingSymlinksInPath() }
        return URL(fileURLWithPath: Bundle.main.executablePath ?? CommandLine.arguments[0])
    }
}

/// The hidden child mode of `plugin check`: runs the checks from `--start` on and reports on the protocol
/// (`begin`/`step`/`pass`/`fail`/`end`, see `CheckProtocol`) on standard output; anything the plugin prints goes to
/// standard error instead.
struct PluginCheckChildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-child", abstract: "The child process of `plugin check` (used by the host).", shouldDisplay: false)

    @Argument(help: "The plugin file.") var file: String
    @Option(help: "The index of the first check to run.") var start = 0
    @Option(help: "How many MB resident memory may grow over the leak check's cycles.") var leakLimit = 4
    @Option(help: "How many runs the leak check opens and closes.") var cycles = 1_000
    @Option(help: "The author's cases file.") var cases: String?
    @Option(help: "The throw-away data folder (made and removed by the parent).") var workspace: String?

    func run() throws {
        // The protocol keeps the original standard output; the plugin's own prints go to standard error.
        let channel = dup(STDOUT_FILENO)
        guard channel >= 0 else { throw ExitCode(3) }
        fflush(nil)
        dup2(STDERR_FILENO, STDOUT_FILENO)
        let checker = PluginChecker(path: file, leakLimit: leakLimit << 20, cycles: cycles,
                                    workspace: workspace.map { URL(fileURLWithPath: $0) }) { line in
            let bytes = Array((CheckProtocol.render(line) + "\n").utf8)
            var written = 0
            while written < bytes.count {
                let count = bytes[written...].withUnsafeBytes { write(channel, $0.baseAddress, $0.count) }
                if count <= 0 { if errno == EINTR { continue } else { return } }
                written += count
            }
        }
        if let cases {
            do { checker.cases = try CheckCase.read(cases) } catch {
                Terminal.error(error.description)
                throw ExitCode(2)
            }
        }
        // The plugin under check is not trusted yet: its code runs as a worker's would (see README, "Security").
        checker.confined = true
        checker.run(from: start)
    }
}
