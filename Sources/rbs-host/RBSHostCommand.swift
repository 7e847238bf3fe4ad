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
                      DirectoryCommand.self, AccountsCommand.self, StatementCommand.self, BasketCommand.self, DatabaseCommand.self,
                      RatesCommand.self],
        defaultSubcommand: REPLCommand.self)

    /// ArgumentParser's `main()`, with ``ExitGuard`` standing guard while the command runs: the exit status is the
    /// command's own, never a success reported by someone else's `exit()`.
    static func main() {
        ExitGuard.install()
        // Global options are taken before the command's name too (`rbs-host --plugins DIR list`), as README writes them.
        let arguments = GlobalArguments.negativeValuesJoined(GlobalArguments.hoisted(Array(CommandLine.arguments.dropFirst())))
        // A plain `list` starts without ArgumentParser: its first parse costs more than the listing (Swift's
        // protocol-conformance lookups for every option of every command). The same checks and code run after.
        if let quick = QuickList(arguments: arguments) {
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
            var command = try parseAsRoot(arguments)
            // Every command that takes the global options uses the data folder, so each checks it before it runs: found
            // in the parsed command itself, not in a list kept by hand. A child the host starts (a worker, a scan) is
            // given the folder the host has checked already.
            let child = command is any PluginChildCommand
            if !child, let global = GlobalOptions.of(command) {
                try global.checkDataFolder()
                try global.validate()
            }
            // A child whose exit status the host reads as the plugin's fault report keeps the status it was given.
            let guarded = !child
            if guarded { ExitGuard.begin(type(of: command).configuration.commandName ?? "rbs-host") }
            try command.run()
            // What this command's runs did is added to the rollouts' counts before the process ends.
            ReleaseTrack.stopAll()
            ExitGuard.end()
        } catch {
            ReleaseTrack.stopAll()
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
        if let seconds = HostEnvironment.current.clock {
            return FixedClock(Date(timeIntervalSince1970: seconds))
        }
        #endif
        return SystemClock()
    }
}

extension GlobalOptions {
    /// The ledger of the data folder (or of `--database`), on the host's clock (`RBS_CLOCK` sets it in debug builds):
    /// every command opens it so, so a one-time code a command prints is the code another command checks.
    func openLedger() throws(LedgerError) -> Ledger {
        try Ledger(dataDirectory: paths.data, location: paths.database, clock: { HostClock.current.now })
    }

    /// The global options `command` was given, when it takes them (`@OptionGroup var global: GlobalOptions`): read
    /// from the command's own properties, so a new command that takes them is checked like every other.
    static func of(_ command: any ParsableCommand) -> GlobalOptions? {
        for child in Mirror(reflecting: command).children {
            if let group = child.value as? OptionGroup<GlobalOptions> { return group.wrappedValue }
        }
        return nil
    }
}

/// A child process the host starts to run plugin code (a worker, a scan, a check): the host reads its exit status
/// as what the plugin did ("exited with status 0"), so ``ExitGuard`` does not stand over it.
protocol PluginChildCommand {}

extension WorkerCommand: PluginChildCommand {}
extension ScanCommand: PluginChildCommand {}
extension PluginCheckChildCommand: PluginChildCommand {}
