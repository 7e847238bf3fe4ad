import Foundation

/// Whether plugins run in the host's process or in worker processes, and how workers are started.
///
/// The mode comes from `--isolation none|plugin`, else `RBS_ISOLATION`, else `plugin` — for every front end: a
/// plugin is code from a publisher, and the host's keys and ledger are not its business. `none` (in the host's
/// process) is a development choice, and the host says so when it starts. A line of `DATA/isolation.conf` pins one
/// plugin to a mode and/or sets its worker's limits (see ``configuration(in:)``).
public struct IsolationSettings: Sendable, Equatable {
    public enum Mode: String, Sendable, CaseIterable {
        /// In the host's process (`dlopen` in the host).
        case none
        /// In a worker process per plugin (`rbs-host worker`).
        case plugin
    }

    /// The mode of plugins without a pin.
    public var mode: Mode
    /// Modes pinned per plugin id (`DATA/isolation.conf`).
    public var pins: [String: Mode]
    /// The program a worker runs: this same binary.
    public var workerExecutable: String
    /// How long one call into a worker may take before the worker is killed.
    public var deadline: Duration
    /// Per-worker limits (setrlimit); zero means none.
    public var limits: PluginWorker.Limits
    /// Limits set per plugin id (`DATA/isolation.conf`), over `limits`.
    public var pluginLimits: [String: LimitOverride]
    /// This many faults of one plugin within `quarantineWindow` quarantine it until its file changes.
    public var quarantineAfter: Int
    public var quarantineWindow: Duration
    /// How many workers a plugin's pool holds at most (each started when a run first needs it).
    public var workers: Int
    /// Pool sizes set per plugin id (`DATA/isolation.conf`, `workers=N`), over `workers`.
    public var pluginWorkers: [String: Int]

    /// The pool size when isolation.conf sets none: one worker per core, at least two, so one slow call never
    /// holds up every run of its plugin.
    public static var defaultWorkers: Int { max(2, ProcessInfo.processInfo.activeProcessorCount) }
    /// The largest pool `workers=` accepts.
    public static let maximumWorkers = 256

    public init(mode: Mode, pins: [String: Mode] = [:], workerExecutable: String, deadline: Duration = .seconds(5),
                limits: PluginWorker.Limits = .standard, pluginLimits: [String: LimitOverride] = [:],
                quarantineAfter: Int = 3, quarantineWindow: Duration = .seconds(60), workers: Int = defaultWorkers,
                pluginWorkers: [String: Int] = [:]) {
        self.workers = max(1, workers)
        self.pluginWorkers = pluginWorkers
        self.mode = mode
        self.pins = pins
        self.pluginLimits = pluginLimits
        self.workerExecutable = workerExecutable
        self.deadline = deadline
        self.limits = limits
        self.quarantineAfter = quarantineAfter
        self.quarantineWindow = quarantineWindow
    }

    /// The mode for plugin `id` (its pin, else the default).
    public func mode(for id: String?) -> Mode { id.flatMap { pins[$0] } ?? mode }

    /// The limits of plugin `id`'s workers: its lines in `isolation.conf` over the defaults.
    public func limits(for id: String?) -> PluginWorker.Limits {
        guard let id, let override = pluginLimits[id] else { return limits }
        return override.applied(to: limits)
    }

    /// The size of plugin `id`'s pool of workers: its `workers=` in `isolation.conf`, else the default.
    public func workers(for id: String?) -> Int { max(1, id.flatMap { pluginWorkers[$0] } ?? workers) }

    /// The arguments every worker starts with, whatever it is for: a plugin cannot tell a run from a check.
    static func workerArguments(image: String, limits: PluginWorker.Limits) -> [String] {
        var arguments = ["worker"]
        if limits.addressSpaceMiB > 0 { arguments += ["--limit-as", String(limits.addressSpaceMiB)] }
        if limits.cpuSeconds > 0 { arguments += ["--limit-cpu", String(limits.cpuSeconds)] }
        if limits.openFiles > 0 { arguments += ["--limit-files", String(limits.openFiles)] }
        if limits.processes > 0 { arguments += ["--limit-processes", String(limits.processes)] }
        return arguments + [image]
    }

    /// One plugin's limits from `isolation.conf`; nil keeps the default.
    public struct LimitOverride: Sendable, Equatable {
        public var memoryMiB: Int?
        public var cpuSeconds: Int?
        public var openFiles: Int?
        public var processes: Int?

        public init(memoryMiB: Int? = nil, cpuSeconds: Int? = nil, openFiles: Int? = nil, processes: Int? = nil) {
            self.memoryMiB = memoryMiB
            self.cpuSeconds = cpuSeconds
            self.openFiles = openFiles
            self.processes = processes
        }

        func applied(to limits: PluginWorker.Limits) -> PluginWorker.Limits {
            PluginWorker.Limits(addressSpaceMiB: memoryMiB ?? limits.addressSpaceMiB,
                                cpuSeconds: cpuSeconds ?? limits.cpuSeconds, openFiles: openFiles ?? limits.openFiles,
                                processes: processes ?? limits.processes)
        }

        /// The words `isolation.conf` knows, with the largest value each takes.
        static var keys: [(name: String, maximum: Int, path: WritableKeyPath<LimitOverride, Int?>)] {
            [("memory", 1 << 30, \.memoryMiB), ("cpu", 1 << 30, \.cpuSeconds), ("files", 1 << 20, \.openFiles),
             ("processes", 1 << 20, \.processes)]
        }
    }

    /// A bad isolation setting, named so a person can fix it.
    public struct Problem: Error, CustomStringConvertible, Equatable {
        public var description: String
    }

    /// What `DATA/isolation.conf` says: modes pinned and limits set per plugin id.
    public struct Configuration: Sendable, Equatable {
        public var pins: [String: Mode] = [:]
        public var limits: [String: LimitOverride] = [:]
        /// Pool sizes (`workers=N`) per plugin id.
        public var workers: [String: Int] = [:]
    }

    /// Reads the pins in `DATA/isolation.conf` (see ``configuration(in:)``).
    public static func pins(in dataDirectory: URL) throws(Problem) -> [String: Mode] {
        try configuration(in: dataDirectory).pins
    }

    /// Reads `DATA/isolation.conf`: per line a plugin id, then its mode (`none` or `plugin`) and/or its worker's
    /// limits as `memory=MiB`, `cpu=SECONDS`, `files=N`, `processes=N` (0: none), and/or the size of its pool of
    /// workers as `workers=N` (1 to ``maximumWorkers``), in any order; `#` starts a comment.
    /// A plugin may have several lines; a later word wins. A missing file is no pins and no limits.
    public static func configuration(in dataDirectory: URL) throws(Problem) -> Configuration {
        let file = dataDirectory.appendingPathComponent("isolation.conf")
        let syntax = "write `PLUGIN-ID [none|plugin] [workers=N] [memory=MiB] [cpu=SECONDS] [files=N] [processes=N]`"
        guard let text = try? String(contentsOf: file, encoding: .utf8) else {
            if FileManager.default.fileExists(atPath: file.path) {
                throw Problem(description: "\(file.path): cannot be read as UTF-8 text — \(syntax) per line")
            }
            return Configuration()
        }
        var configuration = Configuration()
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            if words.isEmpty { continue }
            func problem(_ what: String) -> Problem {
                Problem(description: "\(file.path):\(number + 1): '\(line.trimmingCharacters(in: .whitespaces))' — \(what)")
            }
            guard words.count >= 2 else { throw problem(syntax) }
            let id = String(words[0])
            for word in words.dropFirst() {
                if let mode = Mode(rawValue: String(word)) {
                    configuration.pins[id] = mode
                    continue
                }
                let parts = word.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                if parts.count == 2, parts[0] == "workers" {
                    // Not a limit: no "0 for none" — a plugin in workers has at least one.
                    guard let value = Int(parts[1]), value >= 1, value <= maximumWorkers else {
                        throw problem("workers=\(parts[1]): use a whole number of workers from 1 to \(maximumWorkers)")
                    }
                    configuration.workers[id] = value
                    continue
                }
                guard parts.count == 2, let key = LimitOverride.keys.first(where: { $0.name == parts[0] }) else {
                    throw problem("'\(word)' is not a mode or a limit; \(syntax)")
                }
                guard let value = Int(parts[1]), value >= 0, value <= key.maximum else {
                    throw problem("\(key.name)=\(parts[1]): use a whole number from 0 (no limit) to \(key.maximum)")
                }
                configuration.limits[id, default: LimitOverride()][keyPath: key.path] = value
            }
        }
        return configuration
    }
}
