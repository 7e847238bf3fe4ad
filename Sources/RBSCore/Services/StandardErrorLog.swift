import Foundation

/// Writes log lines at or above a level to standard error, and keeps the last lines for tests and `plugin check`.
public final class StandardErrorLog: HostLog, @unchecked Sendable {
    private let lock = NSLock()
    private let minimum: LogLevel
    private var kept: [String] = []

    public init(minimum: LogLevel = .warning) { self.minimum = minimum }

    public func write(level: LogLevel, source: String, message: String) {
        let line = "[\(level)] \(source): \(message)"
        lock.withLock {
            kept.append(line)
            if kept.count > 1000 { kept.removeFirst(kept.count - 1000) }
        }
        if level >= minimum { FileHandle.standardError.write(Data((line + "\n").utf8)) }
    }

    /// The last lines written, oldest first.
    public var lines: [String] { lock.withLock { kept } }
}
