import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs `rbs-host plugin check` in child processes (the same binary's hidden `plugin check-child FILE --start N`)
/// and turns what they report into results. A child that dies (a signal) or says nothing for `timeout` after a
/// check began has that check recorded as failed — killed, when it hung — and a new child goes on with the next check.
public struct PluginCheckSupervisor: Sendable {
    /// The executable to run (this binary: `/proc/self/exe`).
    public var executable: URL
    /// The arguments before the file (`["plugin", "check-child"]`).
    public var arguments: [String]
    /// How long one check may take before the child is killed.
    public var timeout: TimeInterval

    public init(executable: URL, arguments: [String], timeout: TimeInterval = 20) {
        self.executable = executable
        self.arguments = arguments
        self.timeout = timeout
    }

    /// Checks the plugin at `path`; `report` is called with each result as it arrives.
    public func check(_ path: String, report: (CheckResult) -> Void = { _ in }) -> [CheckResult] {
        var results: [CheckResult] = []
        func record(_ result: CheckResult) {
            results.append(result)
            report(result)
        }
        var start = 0
        while true {
            let outcome = runChild(path: path, start: start, record: record)
            switch outcome {
            case .finished:
                return results
            case .lost(let index, let name, let reason):
                record(CheckResult(name: name, passed: false, detail: reason))
                // Nothing can be checked in a plugin that does not load.
                if index == 0 { return results }
                start = index + 1
            case .failedToStart(let reason):
                record(CheckResult(name: start == 0 ? "load" : "checker", passed: false, detail: reason))
                return results
            }
        }
    }

    private enum ChildOutcome {
        case finished
        /// The child died or hung in check `index`.
        case lost(index: Int, name: String, reason: String)
        case failedToStart(String)
    }

    private func runChild(path: String, start: Int, record: (CheckResult) -> Void) -> ChildOutcome {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments + [path, "--start", String(start)]
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        let lines = LineQueue(out.fileHandleForReading)
        let errors = TailBuffer(err.fileHandleForReading)
        do { try process.run() } catch {
            return .failedToStart("cannot start the checking child \(executable.path): \(error.localizedDescription)")
        }
        try? out.fileHandleForWriting.close()
        try? err.fileHandleForWriting.close()
        var current: (index: Int, name: String)?
        var step: String?
        var finished: Set<Int> = []
        var deadline = Date().addingTimeInterval(timeout)
        while true {
            switch lines.next(until: deadline) {
            case .line(let text):
                switch CheckProtocol.parse(text) {
                case .begin(let index, let name)?:
                    current = (index, name)
                    step = nil
                    deadline = Date().addingTimeInterval(timeout)
                case .step(let text)?: step = text
                case .pass(let index, let detail)?:
                    finished.insert(index)
                    record(CheckResult(name: current?.name ?? "check \(index)", passed: true, detail: detail))
                case .fail(let index, let reason)?:
                    finished.insert(index)
                    record(CheckResult(name: current?.name ?? "check \(index)", passed: false, detail: reason))
                case .end?:
                    lines.drain()
                    process.waitUntilExit()
                    return .finished
                case nil: continue
                }
            case .timedOut:
                _ = kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                let doing = step.map { " while \($0)" } ?? ""
                guard let current, !finished.contains(current.index) else {
                    return .failedToStart("the checking child gave no answer for \(Int(timeout)) s and was killed")
                }
                return .lost(index: current.index, name: current.name,
                             reason: "hung: no answer within \(Int(timeout)) s\(doing) — the child was killed; a callback must not block (a loop, a wait, a lock)")
            case .closed:
                process.waitUntilExit()
                let how = Self.describe(process)
                let doing = step.map { " while \($0)" } ?? ""
                let said = errors.lastLine.map { " (last words: \($0))" } ?? ""
                guard let current, !finished.contains(current.index) else {
                    return .failedToStart("the checking child ended without finishing: \(how)\(said)")
                }
                return .lost(index: current.index, name: current.name,
                             reason: "crashed: \(how)\(doing)\(said) — the plugin took the process down; run it under a debugger or with sanitizers")
            }
        }
    }

    /// "signal 11 (SIGSEGV)" or "exit status 3".
    static func describe(_ process: Process) -> String {
        let status = process.terminationStatus
        guard process.terminationReason == .uncaughtSignal else { return "exit status \(status)" }
        let names: [Int32: String] = [SIGSEGV: "SIGSEGV", SIGABRT: "SIGABRT", SIGBUS: "SIGBUS", SIGILL: "SIGILL",
                                      SIGFPE: "SIGFPE", SIGKILL: "SIGKILL", SIGTRAP: "SIGTRAP"]
        return "signal \(status)" + (names[status].map { " (\($0))" } ?? "")
    }
}

/// Lines read from a pipe on a background thread, handed out with a deadline.
private final class LineQueue: @unchecked Sendable {
    enum Next { case line(String), timedOut, closed }

    private let lock = NSLock()
    private let available = DispatchSemaphore(value: 0)
    private var lines: [String] = []
    private var closed = false
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        let thread = Thread { [self] in
            var pending = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending.removeSubrange(pending.startIndex...newline)
                    lock.withLock { lines.append(line) }
                    available.signal()
                }
            }
            lock.withLock { closed = true }
            available.signal()
            done.signal()
        }
        thread.start()
    }

    func next(until deadline: Date) -> Next {
        while true {
            let (line, isClosed): (String?, Bool) = lock.withLock {
                lines.isEmpty ? (nil, closed) : (lines.removeFirst(), false)
            }
            if let line { return .line(line) }
            if isClosed { return .closed }
            let wait = deadline.timeIntervalSinceNow
            if wait <= 0 { return .timedOut }
            if available.wait(timeout: .now() + wait) == .timedOut { return .timedOut }
        }
    }

    /// Waits (briefly) for the reader to see the end of the pipe.
    func drain() { _ = done.wait(timeout: .now() + 5) }
}

/// The last few kilobytes a child wrote to standard error.
private final class TailBuffer: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()

    init(_ handle: FileHandle) {
        let thread = Thread { [self] in
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                lock.withLock {
                    data.append(chunk)
                    if data.count > 8192 { data = data.suffix(4096) }
                }
            }
        }
        thread.start()
    }

    /// The last non-empty line, shortened.
    var lastLine: String? {
        usleep(50_000)
        let text = lock.withLock { String(decoding: data, as: UTF8.self) }
        guard let line = text.split(separator: "\n").last(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty })
        else { return nil }
        return String(line.prefix(200))
    }
}
