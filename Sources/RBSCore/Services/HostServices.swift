import Foundation
import RBSLedger

/// The customer's accounts, as the bank's core reports them.
public protocol AccountsService: AnyObject, Sendable {
    func accounts() throws -> [Account]
}

extension AccountsService {
    public func account(number: String) throws -> Account? { try accounts().first { $0.number == number } }
}

/// A fixed list of accounts (tests, and the plugin checker).
public final class StaticAccounts: AccountsService, @unchecked Sendable {
    private let list: [Account]
    public init(_ list: [Account]) { self.list = list }
    public func accounts() throws -> [Account] { list }
}

/// The time as the host sees it; tests freeze it.
public protocol Clock: Sendable {
    var now: Date { get }
}

public struct SystemClock: Clock {
    public init() {}
    public var now: Date { Date() }
}

public struct FixedClock: Clock {
    public var now: Date
    public init(_ now: Date) { self.now = now }
}

/// Where plugins' and the host's log lines go.
public protocol HostLog: AnyObject, Sendable {
    func write(level: LogLevel, source: String, message: String)
}

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
