import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the repository, the built binary and the built plugins are.
enum Repo {
    /// The repository's top folder (this file is Tests/RBSHostTests/Support/HostProcess.swift).
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let binary = root.appendingPathComponent(".build/debug/rbs-host")
    static let plugins = root.appendingPathComponent("Plugins")
    static let pluginFiles = ["card-block.so", "pay-quick.so", "pay-tax.so", "transfer-own.so"]

    struct Missing: Error, CustomStringConvertible { let description: String }

    /// Fails with a clear message when the binary or the plugins have not been built.
    static func requireBuilt() throws {
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw Missing(description: "\(binary.path) is missing: run swift build first")
        }
        let found = ((try? FileManager.default.contentsOfDirectory(atPath: plugins.path)) ?? []).filter { $0.hasSuffix(".so") }
        guard !found.isEmpty else {
            throw Missing(description: "\(plugins.path) has no plugins (*.so): run make plugins")
        }
    }
}

/// What a finished child process left behind.
struct ProcessResult: CustomStringConvertible {
    var status: Int32
    /// Whether it ended by a signal (status is then the signal number).
    var signalled: Bool
    var stdout: String
    var stderr: String
    var timedOut: Bool

    var description: String { "exit \(status)\(signalled ? " (signal)" : "")\nstdout: \(stdout)\nstderr: \(stderr)" }

    /// The non-empty lines of standard error.
    var stderrLines: [String] { stderr.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }
}

/// Collects a pipe's bytes on a background thread so a chatty child never blocks on a full pipe.
private final class PipeDrain: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    private let group = DispatchGroup()

    init(_ pipe: Pipe) {
        let handle = pipe.fileHandleForReading
        group.enter()
        DispatchQueue.global().async { [self] in
            let bytes = handle.readDataToEndOfFile()
            lock.withLock { data = bytes }
            group.leave()
        }
    }

    func wait(timeout: DispatchTime) -> Bool { group.wait(timeout: timeout) == .success }
    var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }
}

/// A started child process that can be waited for with a deadline or killed.
final class ChildProcess: @unchecked Sendable {
    private let process = Process()
    private let exited = DispatchSemaphore(value: 0)
    private let out: PipeDrain
    private let err: PipeDrain
    private var killedForTimeout = false
    let command: String

    /// Starts `executable` with `arguments` and exactly `environment`; standard input is empty.
    init(_ executable: URL, _ arguments: [String], environment: [String: String], directory: URL? = nil) throws {
        command = ([executable.lastPathComponent] + arguments).joined(separator: " ")
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        if let directory { process.currentDirectoryURL = directory }
        let stdout = Pipe(), stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        out = PipeDrain(stdout)
        err = PipeDrain(stderr)
        let exited = self.exited
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        // The parent's copies of the write ends must go, or the drains never see end-of-file.
        try? stdout.fileHandleForWriting.close()
        try? stderr.fileHandleForWriting.close()
    }

    var pid: Int32 { process.processIdentifier }

    /// Waits until the child exits or `deadline` passes; true when it exited.
    func wait(until deadline: DispatchTime) -> Bool {
        guard exited.wait(timeout: deadline) == .success else { return false }
        exited.signal()  // keep it signalled for later waits
        return true
    }

    /// SIGKILL, now.
    func killNow() {
        if process.isRunning { _ = kill(process.processIdentifier, SIGKILL) }
    }

    /// Waits for the child (killing it when `timeout` passes) and collects its output.
    func finish(timeout: TimeInterval = 30) -> ProcessResult {
        if !wait(until: .now() + timeout) {
            killedForTimeout = true
            killNow()
            _ = wait(until: .now() + 10)
        }
        _ = out.wait(timeout: .now() + 10)
        _ = err.wait(timeout: .now() + 10)
        process.waitUntilExit()
        return ProcessResult(status: process.terminationStatus, signalled: process.terminationReason == .uncaughtSignal,
                             stdout: out.text, stderr: err.text, timedOut: killedForTimeout)
    }
}

/// Expects two runs of the host that must not differ (the same command spelled two ways) to end alike: the same
/// status, standard output and standard error.
func expectIdentical(_ first: ProcessResult, _ second: ProcessResult, _ what: String,
                     sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(first.status == second.status, "\(what): \(first) / \(second)", sourceLocation: sourceLocation)
    #expect(first.stdout == second.stdout, "\(what)", sourceLocation: sourceLocation)
    #expect(first.stderr == second.stderr, "\(what)", sourceLocation: sourceLocation)
}

/// Runs a program to completion (at most `timeout` seconds: a hung child is killed and the test fails).
func runProcess(_ executable: URL, _ arguments: [String], environment: [String: String],
                timeout: TimeInterval = 30, sourceLocation: SourceLocation = #_sourceLocation) throws -> ProcessResult {
    let child = try ChildProcess(executable, arguments, environment: environment)
    let result = child.finish(timeout: timeout)
    if result.timedOut {
        Issue.record("\(child.command) did not finish within \(timeout) s and was killed", sourceLocation: sourceLocation)
    }
    return result
}

/// A deterministic pseudo-random generator (SplitMix64), so a failing run can be repeated.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
