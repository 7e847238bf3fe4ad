import Foundation

/// What scanning one plugin file found: its manifest and the services its init() registers, or why it failed.
public enum ScanResult: Codable, Hashable, Sendable {
    case plugin(PluginManifest, services: [String])
    case failed(String)
}

/// Reads plugin files' manifests. The host uses a child process (a plugin that crashes or hangs while it is
/// scanned takes only the child down); library tests may scan in-process.
public protocol PluginScanner: Sendable {
    /// Scans `paths`; `progress(done, total)` is called as files are done.
    func scan(_ paths: [String], progress: @escaping @Sendable (Int, Int) -> Void) -> [String: ScanResult]
}

/// Scans in this process (no protection from a crashing plugin): for tests and tools.
public struct InProcessScanner: PluginScanner {
    let loader: PluginLoader

    public init(loader: PluginLoader) { self.loader = loader }

    public func scan(_ paths: [String], progress: @escaping @Sendable (Int, Int) -> Void) -> [String: ScanResult] {
        var results: [String: ScanResult] = [:]
        for (index, path) in paths.enumerated() {
            results[path] = Self.scanOne(path, loader: loader)
            progress(index + 1, paths.count)
        }
        return results
    }

    /// Loads, validates and starts one plugin to learn its manifest and services, then stops it.
    public static func scanOne(_ path: String, loader: PluginLoader) -> ScanResult {
        do {
            let image = try loader.load(path: path)
            defer { image.stop(locator: loader.locator) }
            do { try image.start() } catch { return .failed(PluginLoadError(path: path, problem: error).description) }
            return .plugin(image.manifest, services: (image.hostTable.registered.map(\.id) + image.workerServices).sorted())
        } catch {
            return .failed(error.description)
        }
    }
}

/// Scans in a child process: the same binary in its scanner mode (`rbs-host scan FILE...`), which prints
/// `begin PATH` before each file and one JSON result line after it. A child that dies (a signal, an abort) or says
/// nothing for `timeout` has its current file recorded as failed, and a new child goes on with the rest.
public struct ChildProcessScanner: PluginScanner {
    public let executable: URL
    /// Arguments before the file names (`["scan", "--data", DIR]`).
    public let arguments: [String]
    public let timeout: Duration

    public init(executable: URL, arguments: [String], timeout: Duration = .seconds(5)) {
        self.executable = executable
        self.arguments = arguments
        self.timeout = timeout
    }

    public func scan(_ paths: [String], progress: @escaping @Sendable (Int, Int) -> Void) -> [String: ScanResult] {
        var results: [String: ScanResult] = [:]
        var remaining = paths[...]
        while !remaining.isEmpty {
            let batch = Array(remaining)
            let (found, stuck) = runChild(batch) { done in progress(results.count + done, paths.count) }
            results.merge(found) { _, new in new }
            if let stuck {
                results[stuck.path] = .failed("\(stuck.path): \(stuck.reason) — the plugin is not loaded until the file changes")
            }
            remaining = remaining.drop(while: { results[$0] != nil })
            if stuck == nil, !remaining.isEmpty {
                // The child ended without answering for the rest: never loop forever.
                for path in remaining { results[path] = .failed("\(path): the scanner stopped before this file") }
                remaining = []
            }
        }
        return results
    }

    private struct Stuck {
        var path: String
        var reason: String
    }

    /// Runs one child over `paths`; returns what it answered and the file it died or hung on, if any.
    private func runChild(_ paths: [String], progress: (Int) -> Void) -> ([String: ScanResult], Stuck?) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments + paths
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        // A crash is reported here in one line; Swift's backtracer in the child would only delay it (past the
        // timeout, under load) and attach a tracer to a process that is about to be killed.
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        process.environment = environment
        do { try process.run() } catch {
            return ([:], Stuck(path: paths[0], reason: "the scanner could not start: \(error.localizedDescription)"))
        }
        let reader = LineReader(handle: output.fileHandleForReading)
        var results: [String: ScanResult] = [:]
        var current: String?
        let decoder = JSONDecoder()
        while true {
            switch reader.next(timeout: timeout) {
            case .line(let line):
                if line.hasPrefix("begin ") {
                    current = String(line.dropFirst(6))
                } else if let current, let result = try? decoder.decode(ScanResult.self, from: Data(line.utf8)) {
                    results[current] = result
                    progress(results.count)
                }
            case .timeout:
                process.terminate()
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                let path = current.flatMap { results[$0] == nil ? $0 : nil } ?? paths.first { results[$0] == nil } ?? paths[0]
                return (results, Stuck(path: path, reason: "the scan hung: no answer within \(timeout) — killed"))
            case .end:
                process.waitUntilExit()
                if let current, results[current] == nil {
                    let how = process.terminationReason == .uncaughtSignal
                        ? "the scan crashed (signal \(process.terminationStatus): \(Self.signalName(process.terminationStatus)))"
                        : "the scan exited with status \(process.terminationStatus) without an answer"
                    return (results, Stuck(path: current, reason: how))
                }
                return (results, nil)
            }
        }
    }

    static func signalName(_ signal: Int32) -> String { WorkerProcess.signalName(signal) }
}

/// Reads lines from a pipe with a timeout per line.
final class LineReader {
    enum Event {
        case line(String)
        case timeout
        case end
    }

    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private var ended = false

    init(handle: FileHandle) { descriptor = handle.fileDescriptor }

    func next(timeout: Duration) -> Event {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let newline = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return .line(line)
            }
            if ended { return .end }
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return .timeout }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
            let ready = poll(&poller, 1, milliseconds)
            if ready < 0 {
                if errno == EINTR { continue }
                ended = true
                continue
            }
            if ready == 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = read(descriptor, &chunk, chunk.count)
            if count <= 0 {
                if count < 0, errno == EINTR { continue }
                ended = true
            } else {
                buffer += chunk[..<count]
            }
        }
    }
}
