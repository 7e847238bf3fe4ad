/// Why scanning a plugin file gave no manifest: the facts, with the one description a person acts on.
public enum ScanFailure: Error, Codable, Hashable, Sendable, CustomStringConvertible {
    /// The scanning process refused the plugin (the same checks as a load).
    case refused(PluginProblem)
    /// The scan died of a signal (a crash in the plugin's code).
    case crashed(signal: Int32)
    /// The scan said nothing for `timeout` and was killed.
    case hung(timeout: Duration)
    /// The scanning process exited without an answer for this file.
    case exited(status: Int32)
    /// The scanner could not be started.
    case couldNotStart(reason: String)
    /// The scanner ended before it reached this file.
    case stoppedBefore
    /// The scanner answered nothing about this file.
    case noAnswer

    public var description: String {
        let notRetried = " — the plugin is not loaded until the file changes"
        return switch self {
        case .refused(let problem): problem.description
        case .crashed(let signal):
            "the scan crashed (signal \(signal): \(ChildProcessScanner.signalName(signal)))" + notRetried
        case .hung(let timeout): "the scan hung: no answer within \(timeout) — killed" + notRetried
        case .exited(let status): "the scan exited with status \(status) without an answer" + notRetried
        case .couldNotStart(let reason): "the scanner could not start: \(reason)" + notRetried
        case .stoppedBefore: "the scanner stopped before this file"
        case .noAnswer: "the scanner gave no answer"
        }
    }
}
