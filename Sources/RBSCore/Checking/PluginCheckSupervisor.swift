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
        // The child's throw-away data folder, made and removed here: the child, confined, may not remove it, and one
        // that crashed leaves it behind.
        let workspace = FileManager.default.temporaryDirectory.appendingPathComponent("rbs-check-\(UUID().uuidString)")
        guard (try? FileManager.default.createDirectory(at: workspace, withIntermediateDirectories: false,
                                                        attributes: [.posixPermissions: 0o700])) != nil else {
            return .failedToStart("cannot make the checking child's data folder \(workspace.path)")
        }
        defer { try? FileManager.default.removeItem(at: workspace) }
        let child: ChildLineReader
        do {
            child = try ChildLineReader(executable: executable.path,
                                        arguments: arguments + [path, "--start", String(start), "--workspace", workspace.path],
                                        keepStandardError: true)
        } catch {
            return .failedToStart("cannot start the checking child \(executable.path): \(error.reason)")
        }
        let timeout = Duration.milliseconds(Int64(self.timeout * 1000))
        var current: (index: Int, name: String)?
        var step: String?
        var finished: Set<Int> = []
        var deadline = ContinuousClock.now + timeout
        while true {
            switch child.next(until: deadline) {
            case .line(let text):
                switch CheckProtocol.parse(text) {
                case .begin(let index, let name)?:
                    current = (index, name)
                    step = nil
                    deadline = .now + timeout
                case .step(let text)?: step = text
                case .pass(let index, let detail)?:
                    finished.insert(index)
                    record(CheckResult(name: current?.name ?? "check \(index)", passed: true, detail: detail))
                case .fail(let index, let reason)?:
                    finished.insert(index)
                    record(CheckResult(name: current?.name ?? "check \(index)", passed: false, detail: reason))
                case .end?:
                    if child.waitForEnd(until: .now + .seconds(5)) == nil { child.kill() }
                    return .finished
                case nil: continue
                }
            case .timedOut:
                child.kill()
                let doing = step.map { " while \($0)" } ?? ""
                guard let current, !finished.contains(current.index) else {
                    return .failedToStart("the checking child gave no answer for \(Int(self.timeout)) s and was killed")
                }
                return .lost(index: current.index, name: current.name,
                             reason: "hung: no answer within \(Int(self.timeout)) s\(doing) — the child was killed; a callback must not block (a loop, a wait, a lock)")
            case .ended(let termination):
                let doing = step.map { " while \($0)" } ?? ""
                let said = child.lastWords.map { " (last words: \($0))" } ?? ""
                guard let current, !finished.contains(current.index) else {
                    return .failedToStart("the checking child ended without finishing: \(termination)\(said)")
                }
                return .lost(index: current.index, name: current.name,
                             reason: "crashed: \(termination)\(doing)\(said) — the plugin took the process down; run it under a debugger or with sanitizers")
            }
        }
    }
}
