import Foundation

/// Scans in a child process: the same binary in its scanner mode (`rbs-host scan FILE...`), which prints
/// `begin PATH` before each file and one JSON result line after it. A child that dies (a signal, an abort) or says
/// nothing for `timeout` has its current file recorded as failed, and a new child goes on with the rest.
///
/// The files are split into contiguous shards scanned by up to `children` children at once (one per core by
/// default): each shard has its own child, so a crash or hang still costs only the file it happened on.
public struct ChildProcessScanner: PluginScanner {
    public let executable: URL
    /// Arguments before the file names (`["scan", "--data", DIR]`).
    public let arguments: [String]
    public let timeout: Duration
    /// How many children scan at once, at most (never more than there are files).
    public let children: Int
    /// The children's environment (nil: this process's).
    public let environment: [String: String]?

    public init(executable: URL, arguments: [String], environment: [String: String]? = nil, timeout: Duration = .seconds(5),
                children: Int = ProcessInfo.processInfo.activeProcessorCount) {
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
        self.timeout = timeout
        self.children = max(1, children)
    }

    public func scan(_ paths: [String], progress: @escaping @Sendable (Int, Int) -> Void) -> [String: ScanResult] {
        let shards = min(children, paths.count)
        guard shards > 1 else { return scanInTurn(paths) { progress($0, paths.count) } }
        let tally = ShardTally(shards: shards)
        DispatchQueue.concurrentPerform(iterations: shards) { shard in
            let shardPaths = Array(paths[shard * paths.count / shards..<(shard + 1) * paths.count / shards])
            let found = scanInTurn(shardPaths) { done in
                tally.progress(shard: shard, done: done) { progress($0, paths.count) }
            }
            tally.add(found)
        }
        return tally.results
    }

    /// What the shards found, and how far each has got (the total is reported under the lock, in order).
    private final class ShardTally: @unchecked Sendable {
        private let lock = NSLock()
        private var done: [Int]
        private var found: [String: ScanResult] = [:]

        init(shards: Int) { done = Array(repeating: 0, count: shards) }

        func progress(shard: Int, done count: Int, report: (Int) -> Void) {
            lock.withLock {
                done[shard] = count
                report(done.reduce(0, +))
            }
        }

        func add(_ results: [String: ScanResult]) {
            lock.withLock { found.merge(results) { _, new in new } }
        }

        var results: [String: ScanResult] { lock.withLock { found } }
    }

    /// Scans `paths` one child at a time: a child that dies or hangs is replaced by a new one for the rest.
    private func scanInTurn(_ paths: [String], progress: (Int) -> Void) -> [String: ScanResult] {
        var results: [String: ScanResult] = [:]
        var remaining = paths[...]
        while !remaining.isEmpty {
            let batch = Array(remaining)
            let (found, stuck) = runChild(batch) { done in progress(results.count + done) }
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
        do { child = try ChildLineReader(executable: executable.path, arguments: arguments + paths, environment: environment) } catch {
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
