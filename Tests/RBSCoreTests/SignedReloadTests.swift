import Foundation
import Testing
@testable import RBSCore

/// Hot reload of signed loose plugins: a `.so` and its `.sig` arriving in either order are picked up by the watcher.
@Suite(.serialized)
struct SignedReloadTests {
    /// A folder of plugins, a data folder trusting one publisher key, a host that requires signatures.
    struct Host {
        let folder = Fixtures.temporaryDirectory("signed-watch")
        let staging = Fixtures.temporaryDirectory("signed-staging")
        let data = Fixtures.temporaryDirectory("signed-data")
        let key = PublisherKey.generate(name: "test-publisher")
        let runtime: Runtime

        init() throws {
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
            _ = try TrustStore(dataDirectory: data, location: .dataFolder).add(key.publicKeyHex, name: "test-publisher")
            runtime = Runtime(paths: HostPaths(plugins: folder.path, data: data), accounts: StaticAccounts(DemoAccounts.list),
                              log: StandardErrorLog(minimum: .error),
                              policy: PluginTrustPolicy(dataDirectory: data, development: false).loadPolicy)
        }

        /// Version `version` of the versioned test plugin, built and signed in the staging folder: (the .so, the .sig).
        func build(_ version: String) throws -> (plugin: URL, signature: URL) {
            let plugin = staging.appendingPathComponent("versioned-\(version).so")
            let source = Fixtures.temporaryDirectory("signed-src").appendingPathComponent("versioned.c")
            let text = try String(contentsOf: Fixtures.root.appendingPathComponent("Tests/Fixtures/scan/versioned.c"), encoding: .utf8)
            try ("#define VERSION \"\(version)\"\n" + text).write(to: source, atomically: true, encoding: .utf8)
            try Fixtures.compile(source, to: plugin)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: plugin.path)
            try PluginSigner.sign(pluginAt: plugin.path, key: key,
                                  isolation: IsolationSettings(mode: .none, workerExecutable: ""))
            return (plugin, URL(fileURLWithPath: plugin.path + ".sig"))
        }

        /// Copies `source` into the plugin folder as `name`, as `cp` does (written in place, closed).
        func copy(_ source: URL, as name: String) throws {
            let target = folder.appendingPathComponent(name)
            try Data(contentsOf: source).write(to: target)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: target.path)
        }

        /// A host serving signed `version` of the test plugin as versioned.so.
        static func serving(_ version: String) throws -> Host {
            let host = try Host()
            let built = try host.build(version)
            try host.copy(built.plugin, as: "versioned.so")
            try host.copy(built.signature, as: "versioned.so.sig")
            host.runtime.loadPlugins()
            #expect(host.runtime.registry.records.map(\.version) == [version])
            return host
        }
    }

    /// Waits up to two seconds for a report that satisfies `done`.
    static func wait(_ seen: Reports, for done: (ReloadReport) -> Bool) async throws {
        for _ in 0..<200 where !seen.reports.contains(where: done) { try await Task.sleep(for: .milliseconds(10)) }
    }

    @Test("a .sig that arrives after its .so is picked up by the watcher: refused first, then reloaded")
    func signatureAfterPlugin() async throws {
        let host = try Host.serving("1.0.0")
        let seen = Reports()
        let watcher = try host.runtime.watch { seen.add($0) }
        defer { watcher.stop() }

        let next = try host.build("1.1.0")
        try host.copy(next.plugin, as: "versioned.so")
        try await Self.wait(seen) { $0.change == .failed }
        let refusal = try #require(seen.reports.first { $0.change == .failed }, "the new .so without its .sig is refused")
        #expect(refusal.description.contains("changed after signing"), "\(refusal)")
        #expect(host.runtime.registry.records.map(\.version) == ["1.0.0"], "the signed version stays in service")

        try host.copy(next.signature, as: "versioned.so.sig")
        try await Self.wait(seen) { $0.change != .failed }
        let reloaded = seen.reports.first { $0.change != .failed }
        #expect(reloaded?.description.hasPrefix("reloaded test.versioned 1.0.0 → 1.1.0") == true, "\(seen.reports)")
        #expect(host.runtime.registry.records.map(\.version) == ["1.1.0"])
    }

    @Test("a .sig that arrives before its .so: the .so is loaded when it arrives")
    func signatureBeforePlugin() async throws {
        let host = try Host.serving("1.0.0")
        let seen = Reports()
        let watcher = try host.runtime.watch { seen.add($0) }
        defer { watcher.stop() }

        let next = try host.build("1.2.0")
        try host.copy(next.signature, as: "versioned.so.sig")
        try await Task.sleep(for: .milliseconds(200))
        #expect(host.runtime.registry.records.map(\.version) == ["1.0.0"], "the running version is not re-checked while its file is unchanged")
        try host.copy(next.plugin, as: "versioned.so")
        try await Self.wait(seen) { $0.change != .failed }
        #expect(seen.reports.contains { $0.description.hasPrefix("reloaded test.versioned 1.0.0 → 1.2.0") }, "\(seen.reports)")
        #expect(host.runtime.registry.records.map(\.version) == ["1.2.0"])
    }

    @Test("the watcher counts a plugin's signature as a plugin file, not a hidden temporary one")
    func watcherNamesSignatures() {
        func event(_ name: String) -> ArraySlice<UInt8> {
            var bytes = [UInt8](repeating: 0, count: 16)
            var padded = Array(name.utf8) + [0]
            while padded.count % 4 != 0 { padded.append(0) }
            withUnsafeBytes(of: UInt32(padded.count).littleEndian) { bytes.replaceSubrange(12..<16, with: $0) }
            return ArraySlice(bytes + padded)
        }
        #expect(PluginWatcher.concernsPlugins(event("x.so.sig")))
        #expect(PluginWatcher.concernsPlugins(event("x.so")))
        #expect(!PluginWatcher.concernsPlugins(event(".x.so.sig")))
        #expect(!PluginWatcher.concernsPlugins(event("notes.txt")))
    }
}

/// A signed lower version is refused on reload unless the operator allows that plugin's downgrade by name.
@Suite(.serialized)
struct DowngradeTests {
    /// A host serving signed version 1.1.0, with signed 1.0.0 built beside it.
    static func serving() throws -> (host: SignedReloadTests.Host, older: (plugin: URL, signature: URL)) {
        let host = try SignedReloadTests.Host.serving("1.1.0")
        let older = try host.build("1.0.0")
        try host.copy(older.plugin, as: "versioned.so")
        try host.copy(older.signature, as: "versioned.so.sig")
        return (host, older)
    }

    @Test("a signed lower version is refused on reload, saying both versions; the version in service stays listed")
    func downgradeRefused() throws {
        let (host, _) = try Self.serving()
        let reports = host.runtime.reload()
        let path = host.folder.appendingPathComponent("versioned.so").path
        #expect(reports.map(\.description) == [
            "\(path): is version 1.0.0 of test.versioned, lower than version 1.1.0 in service: a downgrade is refused — to roll back on purpose, allow it by name (`reload --allow-downgrade test.versioned` in the REPL, `rbs-host plugin allow-downgrade test.versioned` for the next start or reload), else put a version 1.1.0 or later in its place — version 1.1.0 stays in service",
        ])
        // What `plugins` lists: the file with the version in service, not the refused one.
        #expect(host.runtime.registry.records.map(\.version) == ["1.1.0"])
        #expect(host.runtime.registry.records.map(\.status) != [.failed])
        #expect(host.runtime.reload().map(\.change) == [.failed], "refused again at the next reload, until allowed")
    }

    @Test("allowed by name, the downgrade happens once; a permission left in the data folder is taken at the next reload")
    func downgradeAllowed() throws {
        let (host, _) = try Self.serving()
        host.runtime.registry.allowDowngrade("test.versioned")
        #expect(host.runtime.reload().first?.description.hasPrefix("reloaded test.versioned 1.1.0 → 1.0.0") == true)
        #expect(host.runtime.registry.records.map(\.version) == ["1.0.0"])
        #expect(host.runtime.registry.locked { host.runtime.registry.allowedDowngrades }.isEmpty, "used up")

        let (other, _) = try Self.serving()
        try Runtime.allowDowngrade("test.versioned", dataDirectory: other.data)
        #expect(other.runtime.reload().first?.description.hasPrefix("reloaded test.versioned 1.1.0 → 1.0.0") == true)
        #expect(!FileManager.default.fileExists(atPath: other.data.appendingPathComponent(Runtime.allowedDowngradesFile).path))
    }

    @Test("a start refuses a version lower than the one last in service on the data folder; allowed by name, the rollback holds")
    func downgradeAtStart() throws {
        let (host, _) = try Self.serving()  // 1.1.0 was in service; 1.0.0 is now in its place
        func start() -> Runtime {
            let runtime = Runtime(paths: HostPaths(plugins: host.folder.path, data: host.data),
                                  accounts: StaticAccounts(DemoAccounts.list), log: StandardErrorLog(minimum: .error),
                                  policy: PluginTrustPolicy(dataDirectory: host.data, development: false).loadPolicy)
            runtime.loadPlugins()
            return runtime
        }
        let refused = start()
        let path = host.folder.appendingPathComponent("versioned.so").path
        #expect(refused.registry.records.map(\.status) == [.failed])
        #expect(refused.registry.records.first?.error == "\(path): is version 1.0.0 of test.versioned, lower than version 1.1.0 last in service on this data folder: a downgrade is refused — to roll back on purpose, allow it by name (`rbs-host plugin allow-downgrade test.versioned`, then start again, or `reload --allow-downgrade test.versioned` in the REPL), else put a version 1.1.0 or later in its place",
                "\(refused.registry.records)")
        #expect(refused.registry.operations.isEmpty)
        #expect(refused.reload().map(\.change) == [.failed], "refused again at a reload, until allowed")

        try Runtime.allowDowngrade("test.versioned", dataDirectory: host.data)
        #expect(start().registry.records.map(\.version) == ["1.0.0"], "allowed by name at the next start")
        #expect(start().registry.records.map(\.version) == ["1.0.0"], "the rollback is what is in service from then on")
        let record = try String(contentsOf: host.data.appendingPathComponent("plugin-versions"), encoding: .utf8)
        #expect(record.hasSuffix("\ntest.versioned 1.0.0\n"), "\(record)")
    }

    @Test("a damaged line of the version record is passed over with a warning; the rest still protects")
    func damagedVersionRecord() throws {
        let (host, _) = try Self.serving()
        let file = host.data.appendingPathComponent("plugin-versions")
        let text = try String(contentsOf: file, encoding: .utf8)
        try (text + "garbage line with spaces\n").write(to: file, atomically: true, encoding: .utf8)
        let log = RecordingLog()
        let runtime = Runtime(paths: HostPaths(plugins: host.folder.path, data: host.data),
                              accounts: StaticAccounts(DemoAccounts.list), log: log,
                              policy: PluginTrustPolicy(dataDirectory: host.data, development: false).loadPolicy)
        runtime.loadPlugins()
        #expect(runtime.registry.records.map(\.status) == [.failed], "test.versioned 1.1.0 is still on record")
        #expect(log.messages.contains { $0.hasPrefix("\(file.path): lines 3 are not '<plugin id> <version>'") }, "\(log.messages)")
    }

    @Test("versions are ordered by their numbers, a pre-release below its release, build metadata ignored")
    func versionOrder() {
        #expect(SemanticVersion.isLower("1.0.0", than: "1.1.0"))
        #expect(SemanticVersion.isLower("1.9.0", than: "1.10.0"))
        #expect(SemanticVersion.isLower("1.1.0-rc.1", than: "1.1.0"))
        #expect(SemanticVersion.isLower("1.1.0-rc.2", than: "1.1.0-rc.10"))
        #expect(!SemanticVersion.isLower("1.1.0", than: "1.1.0+build.5"))
        #expect(!SemanticVersion.isLower("2.0.0", than: "1.99.99"))
    }
}

final class Reports: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [ReloadReport] = []
    func add(_ reports: [ReloadReport]) { lock.withLock { stored += reports } }
    var reports: [ReloadReport] { lock.withLock { stored } }
}
