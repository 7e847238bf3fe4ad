import Foundation

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
            if let stuck { results[stuck.path] = .failed(stuck.failure) }
            remaining = remaining.drop(while: { results[$0] != nil })
            if stuck == nil, !remaining.isEmpty {
                // The child ended without answering for the rest: never loop forever.
                for path in remaining { results[path] = .failed(.stoppedBefore) }
                remaining = []
            }
        }
        return results
    }

    private struct Stuck {
        var path: String
        var failure: ScanFailure
    }

    /// Runs one child over `paths`; returns what it answered and the file it died or hung on, if any.
    private func runChild(_ paths: [String], progress: (Int) -> Void) -> ([String: ScanResult], Stuck?) {
        let child: ChildLineReader
        do { child = try ChildLineReader(executable: executable.path, arguments: arguments + paths) } catch {
            return ([:], Stuck(path: paths[0], failure: .couldNotStart(reason: error.reason)))
        }
        var results: [String: ScanResult] = [:]
        var current: String?
        let decoder = JSONDecoder()
        while true {
            switch child.next(until: .now + timeout) {
            case .line(let line):
                if line.hasPrefix("begin ") {
                    current = String(line.dropFirst(6))
                } else if let current, let result = try? decoder.decode(ScanResult.self, from: Data(line.utf8)) {
                    results[current] = result
                    progress(results.count)
                }
            case .timedOut:
                child.kill()
                let path = current.flatMap { results[$0] == nil ? $0 : nil } ?? paths.first { results[$0] == nil } ?? paths[0]
                return (results, Stuck(path: path, failure: .hung(timeout: timeout)))
            case .ended(let termination):
                if let current, results[current] == nil {
                    let failure: ScanFailure = switch termination {
                    case .signalled(let signal): .crashed(signal: signal)
                    case .exited(let status): .exited(status: status)
                    }
                    return (results, Stuck(path: current, failure: failure))
                }
                return (results, nil)
            }
        }
    }

    static func signalName(_ signal: Int32) -> String { WorkerProcess.signalName(signal) }
}
