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

    /// The isolation settings: `--isolation`, else RBS_ISOLATION, else `plugin`; pins and per-plugin limits from
    /// DATA/isolation.conf; RBS_WORKER_TIMEOUT, RBS_WORKER_LIMIT_AS (MiB), RBS_WORKER_LIMIT_CPU (seconds),
    /// RBS_WORKER_LIMIT_FILES and RBS_WORKER_LIMIT_PROCESSES change the workers' defaults (0: no limit).
    func isolationSettings() throws -> IsolationSettings {
        let fallback = IsolationSettings.Mode.plugin
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
        func limit(_ name: String, _ standard: Int) throws -> Int {
            guard let text = environment.workerLimits[name], !text.isEmpty else { return standard }
            guard let value = Int(text), value >= 0 else { throw ValidationError("\(name)=\(text): use a whole number, 0 for no limit") }
            return value
        }
        let standard = PluginWorker.Limits.standard
        let limits = PluginWorker.Limits(addressSpaceMiB: try limit("RBS_WORKER_LIMIT_AS", standard.addressSpaceMiB),
                                         cpuSeconds: try limit("RBS_WORKER_LIMIT_CPU", standard.cpuSeconds),
                                         openFiles: try limit("RBS_WORKER_LIMIT_FILES", standard.openFiles),
                                         processes: try limit("RBS_WORKER_LIMIT_PROCESSES", standard.processes))
        let configuration: IsolationSettings.Configuration
        do { configuration = try IsolationSettings.configuration(in: paths.data) } catch {
            throw ValidationError(error.description)
        }
        return IsolationSettings(mode: mode, pins: configuration.pins,
                                 workerExecutable: URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path,
                                 deadline: .milliseconds(Int(timeout * 1000)), limits: limits,
                                 pluginLimits: configuration.limits, pluginWorkers: configuration.workers)
    }

    /// The line the host starts with when plugins run in its own process: a development choice, said out loud.
    static func inProcessNotice(_ isolation: IsolationSettings) -> String? {
        if isolation.mode == .none {
            return "plugins run inside the host process (--isolation none): for development only — a plugin can read the host's keys and ledger"
        }
        let pinned = isolation.pins.filter { $0.value == .none }.keys.sorted()
        guard !pinned.isEmpty else { return nil }
        return "plugin \(pinned.joined(separator: ", ")) runs inside the host process (pinned to none in isolation.conf): for development only"
    }

    /// The language of messages to people: `--lang`, else the locale (`HostLanguage.choose`).
    var language: HostLanguage { HostLanguage.choose(flag: lang, environment: HostEnvironment.current.locale) }

    /// Development mode: `--dev` or RBS_DEV=1.
    var developmentMode: Bool { dev || HostEnvironment.current.development }

    /// A runtime with every plugin listed: unchanged plugins from the cache, new or changed ones scanned in a child
    /// process (this binary's `scan` mode); plugins are loaded when first used.
    /// Says so first when plugins run in the host's process (``inProcessNotice(_:)``).
    /// - Parameter runs: the command opens runs (the REPL, `run`, `describe`, `basket`, `serve`): it follows the staged
    ///   rollouts, so each party gets the version published for it. A listing does not (nothing to open, no ledger read).
    func makeRuntime(runs: Bool = false) throws -> Runtime {
        let isolation = try isolationSettings()
        if let notice = Self.inProcessNotice(isolation) { Terminal.note(notice) }
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
        if runs { followReleases(runtime) }
        return runtime
    }

    /// The staged rollouts of this host's ledger (`plugin publish`), synced once now: a command's runs open the
    /// version their party gets. None before the ledger exists (a fresh folder has nothing published).
    func followReleases(_ runtime: Runtime) {
        guard let releases = try? PluginReleases(dataDirectory: paths.data, location: paths.database, clock: { HostClock.current.now })
        else { return }
        // Every host checks a published package as `plugin install` does, whatever `--dev` says.
        let policy = PluginTrustPolicy(dataDirectory: paths.data, location: paths.database, development: false)
        let track = ReleaseTrack(releases: releases, loader: runtime.registry.loader, locator: runtime.locator,
                                 folder: paths.data.appendingPathComponent("releases")) { bytes, name throws(PackageError) in
            try PluginPackager.verify(bytes, path: name, policy: policy)
        }
        runtime.releaseTrack = track
        track.sync()
        ReleaseTrack.register(track)
    }

    /// How often a REPL or `serve` syncs with the staged rollouts: `RBS_RELEASE_SYNC` seconds, else 2.
    var releaseSyncInterval: Duration { .milliseconds(Int((HostEnvironment.current.releaseSync ?? 2) * 1000)) }

    /// The child-process scanner: this same executable, in its `scan` mode, with the same options (with
    /// `--isolation plugin` it opens each plugin in a worker started as the run's workers are).
    func scanner(isolation: IsolationSettings.Mode) -> ChildProcessScanner {
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
