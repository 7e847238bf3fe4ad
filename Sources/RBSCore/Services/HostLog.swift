/// Where plugins' and the host's log lines go.
public protocol HostLog: AnyObject, Sendable {
    func write(level: LogLevel, source: String, message: String)
}

/// How serious a log line is.
public enum LogLevel: UInt32, Sendable, Comparable, CustomStringConvertible {
    case debug = 0, info, warning, error
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String {
        switch self {
        case .debug: "debug"
        case .info: "info"
        case .warning: "warning"
        case .error: "error"
        }
    }
}
