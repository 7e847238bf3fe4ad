import Foundation

/// Writes log lines at or above a level to standard error, and keeps the last lines for tests and `plugin check`.
public final class StandardErrorLog: HostLog, @unchecked Sendable {
    private let lock = NSLock()
    private let minimum: LogLevel
    private var kept: [String] = []

    /// Where a line goes instead of standard error (the REPL's: above the line being typed, the prompt drawn again
    /// under it — a background thread's warning written straight to the terminal landed inside the typed text).
    private var divert: (@Sendable (String) -> Void)?

    public init(minimum: LogLevel = .warning) { self.minimum = minimum }

    /// Sends the lines written from now on to `writer` (nil: standard error again).
    public func divert(to writer: (@Sendable (String) -> Void)?) { lock.withLock { divert = writer } }

    public func write(level: LogLevel, source: String, message: String) {
        let line = "[\(level)] \(source): \(message)"
        let writer = lock.withLock { () -> (@Sendable (String) -> Void)? in
            kept.append(line)
            if kept.count > 1000 { kept.removeFirst(kept.count - 1000) }
            return divert
        }
        guard level >= minimum else { return }
        if let writer { writer(line) } else { FileHandle.standardError.write(Data((line + "\n").utf8)) }
    }

    /// The last lines written, oldest first.
    public var lines: [String] { lock.withLock { kept } }
}
