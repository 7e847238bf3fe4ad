import Foundation
import RBSCore

/// Paths in the repository and helpers that build plugins from C sources for tests.
enum Fixtures {
    /// The repository's top folder.
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let include = root.appendingPathComponent("SDK/Sources/CRBSPlugin/include")
    static let corpus = root.appendingPathComponent("Tests/Fixtures/corpus")
    static let clashes = root.appendingPathComponent("Tests/Fixtures/clashes")
    static let abi10 = root.appendingPathComponent("Tests/Fixtures/abi-1.0")
    static let plugins = root.appendingPathComponent("Plugins")

    /// A new empty folder under the system's temporary directory, private to this user (0700) as a data folder must
    /// stay while its ledger is open.
    static func temporaryDirectory(_ name: String = "rbs-test") -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return url
    }

    struct CompileError: Error, CustomStringConvertible { let description: String }

    /// Compiles a C plugin with the system C compiler against `include` (the current headers by default).
    @discardableResult
    static func compile(_ source: URL, to output: URL, include: URL = include) throws -> URL {
        let (status, text) = run("/usr/bin/env", ["cc", "-std=c11", "-shared", "-fPIC", "-fvisibility=hidden",
                                                   "-I", include.path, "-o", output.path, source.path])
        guard status == 0 else { throw CompileError(description: "cc \(source.lastPathComponent): \(text)") }
        return output
    }

    /// Runs a program and returns its exit status and combined output.
    static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                    input: String? = nil) -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        let stdin = Pipe()
        process.standardInput = stdin
        do { try process.run() } catch { return (-1, "\(error)") }
        if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
        try? stdin.fileHandleForWriting.close()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// A runtime over `plugins` with a fresh data directory and no log noise.
    static func runtime(plugins: URL, accounts: [RBSCoreAccount] = DemoAccounts.list) -> Runtime {
        Runtime(paths: HostPaths(plugins: plugins.path, data: temporaryDirectory("rbs-data")),
                accounts: StaticAccounts(accounts), log: StandardErrorLog(minimum: .error))
    }
}
