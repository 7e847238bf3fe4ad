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
                      DirectoryCommand.self, AccountsCommand.self, StatementCommand.self, BasketCommand.self, DatabaseCommand.self],
        defaultSubcommand: REPLCommand.self)

    /// ArgumentParser's `main()`, with ``ExitGuard`` standing guard while the command runs: the exit status is the
    /// command's own, never a success reported by someone else's `exit()`.
    static func main() {
        ExitGuard.install()
        // A plain `list` starts without ArgumentParser: its first parse costs more than the listing (Swift's
        // protocol-conformance lookups for every option of every command). The same checks and code run after.
        if let quick = QuickList(arguments: Array(CommandLine.arguments.dropFirst())) {
            do {
                try quick.checkDataFolder()
                ExitGuard.begin(ListCommand.configuration.commandName ?? "list")
                let runtime = try ListCommand.list(quick, json: quick.json)
                ExitGuard.end()
                // The list is printed and nothing else is left to do: the process ends with the runtime alive, since
                // releasing its 500 listings one object at a time cost as much as writing the JSON. (exit flushes
                // standard output.)
                withExtendedLifetime(runtime) { Foundation.exit(EXIT_SUCCESS) }
            } catch {
                ExitGuard.end()
                exit(withError: error)
            }
            return
        }
        do {
            var command = try parseAsRoot()
            // The scan child is given the folder the host has checked already.
            if let user = command as? any DataFolderCommand {
                try user.global.checkDataFolder()
                try user.global.validate()
            }
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

/// Options every command takes, as ArgumentParser reads them.
struct GlobalOptions: ParsableArguments, HostOptions {
    @Option(name: .long, help: ArgumentHelp("The plugin folder (default: $RBS_PLUGINS, or Plugins/).", valueName: "dir"))
    var plugins: String?

    @Option(name: .long, help: ArgumentHelp("The data directory (default: $RBS_HOME, or ~/.rbs).", valueName: "dir"))
    var data: String?

    @Option(name: .long, help: ArgumentHelp("Where the ledger's tables are: postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE for a PostgreSQL database that several hosts share (default: $RBS_DATABASE, or the data folder's SQLite file).", valueName: "url"))
    var database: String?

    /// Refuses a `--database` or `RBS_DATABASE` that is not an address before any command runs, so the ledger
    /// never falls back to the data folder silently.
    func validate() throws {
        do {
            _ = try location
        } catch {
            throw ValidationError(error.description)
        }
    }

    @Flag(name: .long, help: "Development mode (also RBS_DEV=1): plugins need no signature, hot reload is on.")
    var dev = false

    @Option(name: .long, help: ArgumentHelp("Where plugins run: plugin (a sandboxed worker process per plugin; the default) or none (in this process: development only, said at start; also RBS_ISOLATION).", valueName: "mode"))
    var isolation: IsolationSettings.Mode?

    @Option(name: .customLong("worker-timeout"), help: ArgumentHelp("Seconds one call into a plugin worker may take before the worker is killed (default 5; also RBS_WORKER_TIMEOUT).", valueName: "seconds"))
    var workerTimeout: Double?

    @Option(name: .long, help: ArgumentHelp("The language of the host's messages to people: en or ru (default: from LC_ALL, LC_MESSAGES or LANG). --json output never changes.", valueName: "lang"))
    var lang: HostLanguage?
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
extension CustomersCommand.AddUser: DataFolderCommand {}
extension CustomersCommand.Policy: DataFolderCommand {}
extension CustomersCommand.Pending: DataFolderCommand {}
extension CustomersCommand.Approve: DataFolderCommand {}
extension CustomersCommand.Reject: DataFolderCommand {}
extension DirectoryCommand.Import: DataFolderCommand {}
extension DirectoryCommand.Show: DataFolderCommand {}
extension BasketCommand.Sign: DataFolderCommand {}

/// A child process the host starts to run plugin code (a worker, a scan, a check): the host reads its exit status
/// as what the plugin did ("exited with status 0"), so ``ExitGuard`` does not stand over it.
protocol PluginChildCommand {}

extension WorkerCommand: PluginChildCommand {}
extension ScanCommand: PluginChildCommand {}
extension PluginCheckChildCommand: PluginChildCommand {}
