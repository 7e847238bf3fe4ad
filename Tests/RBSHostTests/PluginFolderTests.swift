import Foundation
import Testing

/// What the host makes of the plugin folder itself: names that are not plugin files, a refused folder, and two
/// files that offer the same operation id.
@Suite("Plugin folder")
struct PluginFolderTests {
    /// A sandbox whose plugin folder holds a copy of the transfer-own example.
    private static func sandbox() throws -> (HostSandbox, URL) {
        let sandbox = try HostSandbox()
        let folder = try CheckFixtures.folder(in: sandbox, "plugins")
        try FileManager.default.copyItem(at: Repo.plugins.appendingPathComponent("transfer-own.so"),
                                         to: folder.appendingPathComponent("transfer-own.so"))
        sandbox.plugins = folder
        return (sandbox, folder)
    }

    /// `plugins --json`, by file name.
    private static func records(_ sandbox: HostSandbox, environment: [String: String?] = [:],
                                runAs user: [String] = []) throws -> [String: [String: Any]] {
        let result = try user.isEmpty ? sandbox.host(["plugins", "--json"], environment: environment)
            : runProcess(URL(fileURLWithPath: user[0]), Array(user.dropFirst()) + [Repo.binary.path, "plugins", "--json"],
                         environment: sandbox.environment(environment))
        try #require(result.status == 0, "\(result)")
        let array = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: array.map {
            (URL(fileURLWithPath: $0["path"] as? String ?? "").lastPathComponent, $0)
        })
    }

    @Test("a directory named x.so, a dangling link and a link loop are each one line on standard error and one failed plugins entry")
    func namesThatAreNotPluginFiles() throws {
        let (sandbox, folder) = try Self.sandbox()
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("folder.so"), withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("gone.so").path,
                                                   withDestinationPath: folder.appendingPathComponent("nowhere.so.old").path)
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("loop.so").path,
                                                   withDestinationPath: "loop.so")
        let expected = [
            "folder.so": "is a directory, not a plugin file",
            "gone.so": "is a symbolic link to \(folder.path)/nowhere.so.old, which does not exist",
            "loop.so": "is a symbolic link that loops back on itself",
        ]

        let list = try sandbox.host(["list"])
        #expect(list.status == 0, "\(list)")
        #expect(list.stderrLines.count == expected.count, "\(list.stderr)")
        for (name, reason) in expected {
            let lines = list.stderrLines.filter { $0.contains("/\(name):") }
            #expect(lines.count == 1, "\(name) in \(list.stderr)")
            #expect(lines.first?.contains(reason) == true, "\(name): \(lines)")
        }
        #expect(list.stdout.contains("transfer.own"), "the good plugin is still listed: \(list)")

        let records = try Self.records(sandbox)
        #expect(records.count == expected.count + 1)
        for (name, reason) in expected {
            #expect(records[name]?["status"] as? String == "failed", "\(name): \(records[name] ?? [:])")
            #expect((records[name]?["error"] as? String)?.contains(reason) == true, "\(name): \(records[name] ?? [:])")
        }
        #expect(records["transfer-own.so"]?["status"] as? String == "listed")
    }

    @Test("a plugin file the host cannot read is one line and one failed plugins entry")
    func unreadableFile() throws {
        let (sandbox, folder) = try Self.sandbox()
        let secret = folder.appendingPathComponent("secret.so")
        try FileManager.default.copyItem(at: Repo.plugins.appendingPathComponent("pay-tax.so"), to: secret)
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: secret.path)
        var user: [String] = []
        var environment: [String: String?] = [:]
        if getuid() == 0 {
            // root reads any file: run the host as nobody, with a data folder of its own.
            let setpriv = URL(fileURLWithPath: "/usr/bin/setpriv")
            try #require(FileManager.default.isExecutableFile(atPath: setpriv.path), "this test runs the host as nobody with setpriv (util-linux)")
            user = [setpriv.path, "--reuid=65534", "--regid=65534", "--clear-groups"]
            // The sandbox folder is private (0700), as a data folder must be: nobody may pass through it to the
            // plugin folder and its own data folder inside, not list or read it.
            try FileManager.default.setAttributes([.posixPermissions: 0o711], ofItemAtPath: sandbox.data.path)
            let data = sandbox.data.appendingPathComponent("nobody-data")
            try FileManager.default.createDirectory(at: data, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            #expect(chown(data.path, 65534, 65534) == 0)
            environment["RBS_HOME"] = data.path
        }
        let records = try Self.records(sandbox, environment: environment, runAs: user)
        let record = try #require(records["secret.so"], "no plugins entry for an unreadable file: \(records.keys.sorted())")
        #expect(record["status"] as? String == "failed")
        #expect((record["error"] as? String)?.contains("secret.so: cannot read the file (Permission denied)") == true, "\(record)")
        #expect(records["transfer-own.so"]?["status"] as? String == "listed")
    }

    @Test("a world-writable plugin folder: list says why there are no operations, not to put plugins there")
    func refusedFolder() throws {
        let (sandbox, folder) = try Self.sandbox()
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: folder.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path) }
        let list = try sandbox.host(["list"])
        #expect(list.status == 0, "\(list)")
        #expect(!list.stdout.contains("put plugins"), "\(list)")
        #expect(list.stdout.contains("No operations: \(folder.path): other users can write to the plugin folder"), "\(list)")
        #expect(list.stderrLines.count == 1, "one line for the folder, not one per file: \(list.stderr)")
    }

    /// Compiles Tests/Fixtures/clashes/takeover.c (offers `transfer.own`) to `folder/a.so`.
    private static func buildTakeover(into folder: URL) throws {
        let result = try runProcess(URL(fileURLWithPath: "/usr/bin/env"),
                                    ["cc", "-std=c11", "-shared", "-fPIC", "-fvisibility=hidden", "-I", CheckFixtures.include.path,
                                     "-o", folder.appendingPathComponent("a.so").path,
                                     Repo.root.appendingPathComponent("Tests/Fixtures/clashes/takeover.c").path],
                                    environment: ProcessInfo.processInfo.environment, timeout: 60)
        try #require(result.status == 0, "cc takeover.c: \(result.stderr)")
    }

    /// The plugin that offers `transfer.own` in `list --json`, and the stderr lines of that run.
    private static func owner(_ sandbox: HostSandbox) throws -> (plugin: String?, stderr: [String]) {
        let list = try sandbox.host(["list", "--json"])
        try #require(list.status == 0, "\(list)")
        let array = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
        return (array.first { $0["id"] as? String == "transfer.own" }?["plugin"] as? String, list.stderrLines)
    }

    @Test("a newcomer a.so offering transfer.own never takes it from transfer-own.so: refused with one line naming both")
    func newcomerCannotTakeAnOperation() throws {
        let (sandbox, folder) = try Self.sandbox()
        // The host has run with transfer-own.so alone; then a.so appears.
        #expect(try Self.owner(sandbox).plugin == "ru.example.transfers")
        try Self.buildTakeover(into: folder)
        let refusal = "\(folder.path)/a.so: operation id 'transfer.own' is already offered by \(folder.path)/transfer-own.so"
        let second = try Self.owner(sandbox)
        #expect(second.plugin == "ru.example.transfers", "a.so sorts first but must not win")
        #expect(second.stderr.filter { $0.contains(refusal) }.count == 1, "\(second.stderr)")

        // transfer-own.so rebuilt (a newer file than a.so now): it keeps its operation.
        let original = try Data(contentsOf: folder.appendingPathComponent("transfer-own.so"))
        try FileManager.default.removeItem(at: folder.appendingPathComponent("transfer-own.so"))
        try original.write(to: folder.appendingPathComponent("transfer-own.so"))
        let third = try Self.owner(sandbox)
        #expect(third.plugin == "ru.example.transfers")
        #expect(third.stderr.filter { $0.contains(refusal) }.count == 1, "\(third.stderr)")
    }

    @Test("a first start with both files: the one that was in the folder first keeps the operation id")
    func firstStartKeepsTheOlderFile() throws {
        let (sandbox, folder) = try Self.sandbox()
        try Self.buildTakeover(into: folder)
        let first = try Self.owner(sandbox)
        #expect(first.plugin == "ru.example.transfers", "a.so, dropped in after transfer-own.so, must not win by sorting first")
        #expect(first.stderr.filter { $0.contains("a.so: operation id 'transfer.own' is already offered by") }.count == 1,
                "\(first.stderr)")
    }
}
