import ArgumentParser
import Foundation
import RBSCore
import RBSLedger

@main
struct RBSHostCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rbs-host",
        abstract: "Loads banking operations from plugins, runs them, signs them and submits them to the bank's core.",
        discussion: "With no command, starts the interactive REPL.",
        version: RBSHost.version,
        subcommands: [REPLCommand.self, ListCommand.self, PluginsCommand.self, DescribeCommand.self, RunCommand.self, RepeatCommand.self,
                      KeysCommand.self, InitCommand.self, JournalCommand.self, VerifyCommand.self, ScanCommand.self,
                      PluginCommand.self, TrustCommand.self, WorkerCommand.self, ServeCommand.self, CustomersCommand.self,
                      DirectoryCommand.self, AccountsCommand.self, StatementCommand.self],
        defaultSubcommand: REPLCommand.self)

    /// ArgumentParser's `main()`, with ``ExitGuard`` standing guard while the command runs: the exit status is the
    /// command's own, never a success reported by someone else's `exit()`.
    static func main() {
        ExitGuard.install()
        do {
            var command = try parseAsRoot()
            // The scan child is given the folder the host has checked already.
            if let user = command as? any DataFolderCommand { try user.global.checkDataFolder() }
            // A child whose exit status the host reads as the plugin's fault report keeps the status it was given.
            let guarded = !(command is any PluginChildCommand)
            if guarded { ExitGuard.begin(type(of: command).configuration.commandName ?? "rbs-host") }
            try command.run()
            ExitGuard.end()
        } catch {
            ExitGuard.end()
            exit(withError: error)
        }
    }
}

/// Options every command takes.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The plugin folder (default: $RBS_PLUGINS, or Plugins/).", valueName: "dir"))
    var plugins: String?

    @Option(name: .long, help: ArgumentHelp("The data directory (default: $RBS_HOME, or ~/.rbs).", valueName: "dir"))
    var data: String?

    var paths: HostPaths { HostPaths.resolve(plugins: plugins, data: data) }

    /// Refuses to start when the data folder or a file of the host's in it is not private to this user (see
    /// ``DataFolder``), printing what is wrong and the `chmod`/`chown` that fixes it.
    func checkDataFolder() throws {
        do {
            try DataFolder.check(paths.data)
        } catch {
            Terminal.error(error.description)
            throw ExitCode.failure
        }
    }

    /// The trust policy every plugin load must pass (signatures unless --dev; permissions always).
    var trustPolicy: PluginTrustPolicy { PluginTrustPolicy(dataDirectory: paths.data, development: developmentMode) }

    @Flag(name: .long, help: "Development mode (also RBS_DEV=1): plugins need no signature, hot reload is on.")
    var dev = false

    @Option(name: .long, help: ArgumentHelp("Where plugins run: none (in this process; the default, except for serve) or plugin (a worker process per plugin; the default of serve; also RBS_ISOLATION).", valueName: "mode"))
    var isolation: IsolationSettings.Mode?

    @Option(name: .customLong("worker-timeout"), help: ArgumentHelp("Seconds one call into a plugin worker may take before the worker is killed (default 5; also RBS_WORKER_TIMEOUT).", valueName: "seconds"))
    var workerTimeout: Double?

    /// The isolation settings: `--isolation`, else RBS_ISOLATION, else `fallback` (`none`; `serve` passes `plugin`); pins from DATA/isolation.conf;
    /// RBS_WORKER_TIMEOUT, RBS_WORKER_LIMIT_AS (MiB) and RBS_WORKER_LIMIT_CPU (seconds) tune the workers.
    func isolationSettings(default fallback: IsolationSettings.Mode = .none) throws -> IsolationSettings {
        let environment = ProcessInfo.processInfo.environment
        var mode = fallback
        if let isolation {
            mode = isolation
        } else if let text = environment["RBS_ISOLATION"], !text.isEmpty {
            guard let parsed = IsolationSettings.Mode(rawValue: text) else {
                throw ValidationError("RBS_ISOLATION=\(text): use none or plugin")
            }
            mode = parsed
        }
        let timeout = workerTimeout ?? environment["RBS_WORKER_TIMEOUT"].flatMap(Double.init) ?? 5
        guard timeout > 0, timeout <= 3600 else { throw ValidationError("--worker-timeout \(timeout): use 0 < seconds <= 3600") }
        let limits = PluginWorker.Limits(addressSpaceMiB: environment["RBS_WORKER_LIMIT_AS"].flatMap(Int.init) ?? 0,
                                         cpuSeconds: environment["RBS_WORKER_LIMIT_CPU"].flatMap(Int.init) ?? 0)
        let pins: [String: IsolationSettings.Mode]
        do { pins = try IsolationSettings.pins(in: paths.data) } catch { throw ValidationError(error.description) }
        return IsolationSettings(mode: mode, pins: pins,
                                 workerExecutable: URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path,
                                 deadline: .milliseconds(Int(timeout * 1000)), limits: limits)
    }

    @Option(name: .long, help: ArgumentHelp("The language of the host's messages to people: en or ru (default: from LC_ALL, LC_MESSAGES or LANG). --json output never changes.", valueName: "lang"))
    var lang: HostLanguage?

    /// The language of messages to people: `--lang`, else the locale (`HostLanguage.choose`).
    var language: HostLanguage { HostLanguage.choose(flag: lang) }

    /// Development mode: `--dev` or RBS_DEV=1.
    var developmentMode: Bool { dev || ProcessInfo.processInfo.environment["RBS_DEV"] == "1" }

    /// A runtime with every plugin listed: unchanged plugins from the cache, new or changed ones scanned in a child
    /// process (this binary's `scan` mode); plugins are loaded when first used.
    /// - Parameter isolation: the mode when neither `--isolation` nor RBS_ISOLATION says (`serve`: `plugin`).
    func makeRuntime(defaultIsolation: IsolationSettings.Mode = .none) throws -> Runtime {
        let isolation = try isolationSettings(default: defaultIsolation)
        // The registry checks every file against the policy before a scan or a cached manifest is used, and the
        // loader checks the very copy it opens.
        let runtime = Runtime(paths: paths, clock: HostClock.current, scanner: scanner(isolation: isolation.mode),
                              policy: trustPolicy.loadPolicy, isolation: isolation)
        if isatty(STDERR_FILENO) == 1 {
            runtime.registry.progress = { done, total in
                guard total >= 20 else { return }
                FileHandle.standardError.write(Data("\rscanning plugins: \(done)/\(total)\(done == total ? "\n" : "")".utf8))
            }
        }
        runtime.loadPlugins()
        return runtime
    }

    /// The child-process scanner: this same executable, in its `scan` mode, with the same options (with
    /// `--isolation plugin` it opens each plugin in a worker started as the run's workers are).
    func scanner(isolation: IsolationSettings.Mode = .none) -> ChildProcessScanner {
        var arguments = ["scan", "--data", paths.data.path, "--isolation", isolation.rawValue]
        if developmentMode { arguments.append("--dev") }
        if let plugins { arguments += ["--plugins", plugins] }
        return ChildProcessScanner(executable: URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath(),
                                   arguments: arguments)
    }
}

/// The host's clock. Debug builds honour `RBS_CLOCK` (Unix seconds) so tests can run many signed runs quickly
/// without waiting for fresh one-time codes; release builds always use the system clock.
enum HostClock {
    static var current: any Clock {
        #if DEBUG
        if let text = ProcessInfo.processInfo.environment["RBS_CLOCK"], let seconds = Double(text) {
            return FixedClock(Date(timeIntervalSince1970: seconds))
        }
        #endif
        return SystemClock()
    }
}

/// A command that reads or writes the data folder: it refuses to start unless the folder is private.
protocol DataFolderCommand {
    var global: GlobalOptions { get }
}

extension REPLCommand: DataFolderCommand {}
extension ListCommand: DataFolderCommand {}
extension PluginsCommand: DataFolderCommand {}
extension DescribeCommand: DataFolderCommand {}
extension RunCommand: DataFolderCommand {}
extension RepeatCommand: DataFolderCommand {}
extension InitCommand: DataFolderCommand {}
extension JournalCommand.List: DataFolderCommand {}
extension JournalCommand.Show: DataFolderCommand {}
extension JournalCommand.ReceiptExport: DataFolderCommand {}
extension AccountsCommand: DataFolderCommand {}
extension StatementCommand: DataFolderCommand {}
extension VerifyCommand: DataFolderCommand {}
extension KeysCommand.Init: DataFolderCommand {}
extension KeysCommand.Show: DataFolderCommand {}
extension KeysCommand.Code: DataFolderCommand {}
extension KeysCommand.Respond: DataFolderCommand {}
extension TrustCommand.Add: DataFolderCommand {}
extension TrustCommand.List: DataFolderCommand {}
extension TrustCommand.Remove: DataFolderCommand {}
extension ServeCommand: DataFolderCommand {}
extension CustomersCommand.Add: DataFolderCommand {}
extension CustomersCommand.List: DataFolderCommand {}
extension CustomersCommand.Remove: DataFolderCommand {}
extension CustomersCommand.Code: DataFolderCommand {}
extension DirectoryCommand.Import: DataFolderCommand {}
extension DirectoryCommand.Show: DataFolderCommand {}

/// A child process the host starts to run plugin code (a worker, a scan, a check): the host reads its exit status
/// as what the plugin did ("exited with status 0"), so ``ExitGuard`` does not stand over it.
protocol PluginChildCommand {}

extension WorkerCommand: PluginChildCommand {}
extension ScanCommand: PluginChildCommand {}
extension PluginCheckChildCommand: PluginChildCommand {}
