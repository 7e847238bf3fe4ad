import ArgumentParser
import Foundation
import RBSCore
import RBSLedger

/// The values of the options every command takes, whoever read them: ArgumentParser (``GlobalOptions``) or the
/// start-up fast path of a plain `list` (``QuickList``), so both run the same code with them.
protocol HostOptions {
    /// `--plugins`: the plugin folder.
    var plugins: String? { get }
    /// `--data`: the data directory.
    var data: String? { get }
    /// `--database`: where the ledger's tables are (nil: `RBS_DATABASE`, else the data folder).
    var database: String? { get }
    /// `--dev`.
    var dev: Bool { get }
    /// `--isolation`.
    var isolation: IsolationSettings.Mode? { get }
    /// `--worker-timeout`, in seconds.
    var workerTimeout: Double? { get }
    /// `--lang`.
    var lang: HostLanguage? { get }
}

extension HostOptions {
    /// `--database`, else `RBS_DATABASE`, else the data folder.
    var location: LedgerLocation {
        get throws(LedgerLocationError) {
            try LedgerLocation.resolve(flag: database, environment: HostEnvironment.current.database)
        }
    }

    /// The plugin folder, the data directory and the ledger's database these options name. A database address that
    /// cannot be read was refused before the command ran (``GlobalOptions/validate()``).
    var paths: HostPaths {
        HostPaths.resolve(plugins: plugins, data: data, database: (try? location) ?? .dataFolder,
                          environment: HostEnvironment.current.paths)
    }

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

    /// The trust policy every plugin load must pass (signatures unless --dev; permissions always), against the keys
    /// of ``trustStore``.
    var trustPolicy: PluginTrustPolicy {
        PluginTrustPolicy(dataDirectory: paths.data, location: paths.database, development: developmentMode)
    }

    /// Where the trusted publisher keys are: `<data>/trusted-keys`, or the shared database's table with `--database`.
    var trustStore: TrustStore { TrustStore(dataDirectory: paths.data, location: paths.database) }

    /// The isolation settings: `--isolation`, else RBS_ISOLATION, else `fallback` (`none`; `serve` passes `plugin`); pins from DATA/isolation.conf;
    /// RBS_WORKER_TIMEOUT, RBS_WORKER_LIMIT_AS (MiB) and RBS_WORKER_LIMIT_CPU (seconds) tune the workers.
    func isolationSettings(default fallback: IsolationSettings.Mode = .none) throws -> IsolationSettings {
        let environment = HostEnvironment.current
        var mode = fallback
        if let isolation {
            mode = isolation
        } else if let text = environment.isolation {
            guard let parsed = IsolationSettings.Mode(rawValue: text) else {
                throw ValidationError("RBS_ISOLATION=\(text): use none or plugin")
            }
            mode = parsed
        }
        let timeout = workerTimeout ?? environment.workerTimeout ?? 5
        guard timeout > 0, timeout <= 3600 else { throw ValidationError("--worker-timeout \(timeout): use 0 < seconds <= 3600") }
        let limits = PluginWorker.Limits(addressSpaceMiB: environment.workerMemoryMiB ?? 0,
                                         cpuSeconds: environment.workerCPUSeconds ?? 0)
        let pins: [String: IsolationSettings.Mode]
        do { pins = try IsolationSettings.pins(in: paths.data) } catch { throw ValidationError(error.description) }
        return IsolationSettings(mode: mode, pins: pins,
                                 workerExecutable: URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path,
                                 deadline: .milliseconds(Int(timeout * 1000)), limits: limits)
    }

    /// The language of messages to people: `--lang`, else the locale (`HostLanguage.choose`).
    var language: HostLanguage { HostLanguage.choose(flag: lang, environment: HostEnvironment.current.locale) }

    /// Development mode: `--dev` or RBS_DEV=1.
    var developmentMode: Bool { dev || HostEnvironment.current.development }

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
        // The child checks signatures against the same trusted keys, so it needs the shared database too: through
        // its environment, never its command line, where `ps` would show the password.
        var environment: [String: String]?
        if let database {
            environment = ProcessInfo.processInfo.environment
            environment?[LedgerLocation.environmentVariable] = database
        }
        return ChildProcessScanner(executable: URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath(),
                                   arguments: arguments, environment: environment)
    }
}
