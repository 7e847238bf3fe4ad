import Foundation

/// Whether plugins run in the host's process or in worker processes, and how workers are started.
///
/// The mode comes from `--isolation none|plugin`, else `RBS_ISOLATION`, else the front end's default: `none` for the
/// REPL and the one-shot commands (one person, fastest, easiest to debug), `plugin` for a server that runs many
/// customers' modules at once. A line `PLUGIN-ID none|plugin` in `DATA/isolation.conf` pins one plugin to a mode
/// whatever the default is.
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
    /// This many faults of one plugin within `quarantineWindow` quarantine it until its file changes.
    public var quarantineAfter: Int
    public var quarantineWindow: Duration

    public init(mode: Mode, pins: [String: Mode] = [:], workerExecutable: String, deadline: Duration = .seconds(5),
                limits: PluginWorker.Limits = PluginWorker.Limits(), quarantineAfter: Int = 3,
                quarantineWindow: Duration = .seconds(60)) {
        self.mode = mode
        self.pins = pins
        self.workerExecutable = workerExecutable
        self.deadline = deadline
        self.limits = limits
        self.quarantineAfter = quarantineAfter
        self.quarantineWindow = quarantineWindow
    }

    /// The mode for plugin `id` (its pin, else the default).
    public func mode(for id: String?) -> Mode { id.flatMap { pins[$0] } ?? mode }

    /// The arguments every worker starts with, whatever it is for: a plugin cannot tell a run from a check.
    func workerArguments(image: String) -> [String] {
        var arguments = ["worker"]
        if limits.addressSpaceMiB > 0 { arguments += ["--limit-as", String(limits.addressSpaceMiB)] }
        if limits.cpuSeconds > 0 { arguments += ["--limit-cpu", String(limits.cpuSeconds)] }
        return arguments + [image]
    }

    /// A bad isolation setting, named so a person can fix it.
    public struct Problem: Error, CustomStringConvertible, Equatable {
        public var description: String
    }

    /// Reads the pins in `DATA/isolation.conf`: `PLUGIN-ID none|plugin` per line, `#` comments. A missing file is no
    /// pins.
    public static func pins(in dataDirectory: URL) throws(Problem) -> [String: Mode] {
        let file = dataDirectory.appendingPathComponent("isolation.conf")
        guard let text = try? String(contentsOf: file, encoding: .utf8) else {
            if FileManager.default.fileExists(atPath: file.path) {
                throw Problem(description: "\(file.path): cannot be read as UTF-8 text — write one `PLUGIN-ID none|plugin` per line")
            }
            return [:]
        }
        var pins: [String: Mode] = [:]
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            if words.isEmpty { continue }
            guard words.count == 2, let mode = Mode(rawValue: String(words[1])) else {
                throw Problem(description: "\(file.path):\(number + 1): '\(line.trimmingCharacters(in: .whitespaces))' — write `PLUGIN-ID none` or `PLUGIN-ID plugin`")
            }
            pins[String(words[0])] = mode
        }
        return pins
    }
}
