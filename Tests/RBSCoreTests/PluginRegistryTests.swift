import Foundation
@testable import RBSCore
import Testing

/// The scanner of the real host: `rbs-host scan` in a child process.
private func childScanner(data: URL, children: Int = ProcessInfo.processInfo.activeProcessorCount) throws -> ChildProcessScanner {
    let binary = Fixtures.root.appendingPathComponent(".build/debug/rbs-host")
    try #require(FileManager.default.isExecutableFile(atPath: binary.path), "build the host first: swift build")
    return ChildProcessScanner(executable: binary, arguments: ["scan", "--dev", "--data", data.path], timeout: .seconds(2),
                               children: children)
}

/// The progress a scanner reports, as it reports it.
private final class ProgressLog: @unchecked Sendable {
    private let lock = NSLock()
    private var reports: [(done: Int, total: Int)] = []
    func add(_ done: Int, _ total: Int) { lock.withLock { reports.append((done, total)) } }
    var all: [(done: Int, total: Int)] { lock.withLock { reports } }
}

/// Counts what a scanner is asked to scan.
private final class CountingScanner: PluginScanner, @unchecked Sendable {
    let inner: any PluginScanner
    private let lock = NSLock()
    private(set) var scanned: [String] = []
    init(_ inner: any PluginScanner) { self.inner = inner }
    func scan(_ paths: [String], progress: @escaping @Sendable (Int, Int) -> Void) -> [String: ScanResult] {
        lock.withLock { scanned += paths }
        return inner.scan(paths, progress: progress)
    }
}

private func runtime(plugins: URL, data: URL, scanner: (any PluginScanner)?) -> Runtime {
    Runtime(paths: HostPaths(plugins: plugins.path, data: data), accounts: StaticAccounts(DemoAccounts.list),
            log: StandardErrorLog(minimum: .error), scanner: scanner)
}

private func compileVersioned(_ version: String, to url: URL) throws {
    let folder = Fixtures.temporaryDirectory("versioned-src")
    let source = folder.appendingPathComponent("versioned.c")
    let text = try String(contentsOf: Fixtures.root.appendingPathComponent("Tests/Fixtures/scan/versioned.c"), encoding: .utf8)
    try ("#define VERSION \"\(version)\"\n" + text).write(to: source, atomically: true, encoding: .utf8)
    // Compile beside, then rename into place: the way a build drops a plugin.
    let built = folder.appendingPathComponent("out.so")
    try Fixtures.compile(source, to: built)
    if FileManager.default.fileExists(atPath: url.path) { try FileManager.default.removeItem(at: url) }
    try FileManager.default.moveItem(at: built, to: url)
}

@Suite("Plugin registry: scanning, cache, lazy loading, reload")
struct PluginRegistryTests {
    @Test("a crash, an abort and a hang during a scan are contained, cached as failed, and not retried until the file changes")
    func scanFailuresAreContained() throws {
        let folder = Fixtures.temporaryDirectory("scan")
        let data = Fixtures.temporaryDirectory("scan-data")
        for name in ["crash", "abort", "hang"] {
            try Fixtures.compile(Fixtures.root.appendingPathComponent("Tests/Fixtures/scan/\(name).c"),
                                 to: folder.appendingPathComponent("\(name).so"))
        }
        try compileVersioned("1.0.0", to: folder.appendingPathComponent("zz-good.so"))
        let scanner = CountingScanner(try childScanner(data: data))
        let first = runtime(plugins: folder, data: data, scanner: scanner)
        first.loadPlugins()
        func error(_ runtime: Runtime, _ name: String) -> String {
            runtime.registry.records.first { $0.path.hasSuffix("/\(name).so") }?.error ?? "(none)"
        }
        // The scan child loads each plugin in a sandboxed worker (the default isolation): a crash ends the worker, and
        // the child answers for it.
        #expect(error(first, "crash").contains("the plugin's worker killed by SIGSEGV"), "\(error(first, "crash"))")
        #expect(error(first, "abort").contains("the plugin's worker killed by SIGABRT"), "\(error(first, "abort"))")
        #expect(error(first, "hang").contains("the scan hung"))
        #expect(first.registry.operations.map(\.id) == ["versioned.op"], "the good plugin is listed after the bad ones")
        #expect(scanner.scanned.count == 4)

        // A new host: everything comes from the cache, nothing is scanned, nothing is loaded.
        let again = CountingScanner(try childScanner(data: data))
        let second = runtime(plugins: folder, data: data, scanner: again)
        second.loadPlugins()
        #expect(again.scanned.isEmpty, "unchanged files are listed from the cache")
        #expect(error(second, "hang").contains("the scan hung"), "a failed plugin stays failed until its file changes")
        #expect(second.registry.plugins.isEmpty, "listing opens no plugin")
        #expect(second.registry.operations.map(\.id) == ["versioned.op"])
    }

    @Test("files split between three scan children give what one child gives; a crash costs only its own file")
    func parallelScanMatchesOneChild() throws {
        let folder = Fixtures.temporaryDirectory("parallel-scan")
        for name in ["crash", "abort"] {
            try Fixtures.compile(Fixtures.root.appendingPathComponent("Tests/Fixtures/scan/\(name).c"),
                                 to: folder.appendingPathComponent("\(name).so"))
        }
        for index in 1...5 { try compileVersioned("1.0.\(index)", to: folder.appendingPathComponent("good-\(index).so")) }
        let paths = try PluginRegistry.pluginFiles(in: folder.path)
        #expect(paths.count == 7)
        let alone = try childScanner(data: Fixtures.temporaryDirectory("parallel-scan-one"), children: 1).scan(paths) { _, _ in }
        let progress = ProgressLog()
        let shared = try childScanner(data: Fixtures.temporaryDirectory("parallel-scan-three"), children: 3)
            .scan(paths) { progress.add($0, $1) }
        #expect(shared == alone)
        #expect(shared.count == 7)
        for (name, signal) in [("crash", "SIGSEGV"), ("abort", "SIGABRT")] {
            guard case .failed(let why)? = shared[folder.appendingPathComponent("\(name).so").path] else {
                Issue.record("\(name).so did not fail"); continue
            }
            #expect("\(why)".contains("the plugin's worker killed by \(signal)"), "\(why)")
        }
        let versions = paths.compactMap { path -> String? in
            if case .plugin(let manifest, _) = shared[path] { return manifest.version } else { return nil }
        }
        #expect(versions.sorted() == ["1.0.1", "1.0.2", "1.0.3", "1.0.4", "1.0.5"])
        #expect(progress.all.allSatisfy { $0.total == 7 && $0.done <= 7 })
        #expect(progress.all.map(\.done) == progress.all.map(\.done).sorted(), "the total never goes back")
        #expect(progress.all.last?.done == 7, "every plugin was answered for (a crash in its worker too) and counted")
    }

    @Test("the cache is invalidated by a touch and by a replaced file")
    func cacheInvalidation() throws {
        let folder = Fixtures.temporaryDirectory("cache")
        let data = Fixtures.temporaryDirectory("cache-data")
        let file = folder.appendingPathComponent("versioned.so")
        try compileVersioned("1.0.0", to: file)
        let scanner = CountingScanner(try childScanner(data: data))
        runtime(plugins: folder, data: data, scanner: scanner).loadPlugins()
        #expect(scanner.scanned.count == 1)

        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(5)], ofItemAtPath: file.path)
        let touched = CountingScanner(try childScanner(data: data))
        runtime(plugins: folder, data: data, scanner: touched).loadPlugins()
        #expect(touched.scanned == [file.path], "a touch changes the mtime: scanned again")

        try compileVersioned("2.0.0", to: file)
        let replaced = CountingScanner(try childScanner(data: data))
        let host = runtime(plugins: folder, data: data, scanner: replaced)
        host.loadPlugins()
        #expect(replaced.scanned == [file.path])
        #expect(host.registry.records.first?.version == "2.0.0")
    }

    @Test("a file listed from the cache is still refused when others can write to it, in the words of the full check")
    func cachedFileStillCheckedForPermissions() throws {
        let folder = Fixtures.temporaryDirectory("cached-permissions")
        let data = Fixtures.temporaryDirectory("cached-permissions-data")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
        let file = folder.appendingPathComponent("versioned.so")
        try compileVersioned("1.0.0", to: file)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
        let policy = PluginTrustPolicy(dataDirectory: data, development: true).loadPolicy
        func host(_ scanner: any PluginScanner) -> Runtime {
            Runtime(paths: HostPaths(plugins: folder.path, data: data), accounts: StaticAccounts(DemoAccounts.list),
                    log: StandardErrorLog(minimum: .error), scanner: scanner, policy: policy)
        }
        let first = host(try childScanner(data: data))
        first.loadPlugins()
        #expect(first.registry.records.map(\.status) == [.listed])

        // Others may write to it now. The cache is given the file's new status, so the next start lists it from
        // the cache without reading it (a chmod changes the status-change time, which would send it to a scan).
        try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: file.path)
        var cache = PluginCache.load(from: data)
        var fingerprint = try #require(PluginCache.status(file.path))
        fingerprint.hash = try #require(cache.entries[file.path]).fingerprint.hash
        cache.entries[file.path]?.fingerprint = fingerprint
        cache.save(to: data)

        let scanner = CountingScanner(try childScanner(data: data))
        let second = host(scanner)
        second.loadPlugins()
        #expect(scanner.scanned.isEmpty, "an unchanged file comes from the cache")
        var expected = ""
        do throws(PluginProblem) { try PluginTrustPolicy.checkPermissions(path: file.path) } catch {
            expected = PluginLoadError(path: file.path, problem: error).description
        }
        #expect(expected.contains("other users can write to the plugin file"), "\(expected)")
        #expect(second.registry.records.map(\.error) == [expected])
        #expect(second.registry.operations.isEmpty)
    }

    @Test("a warm start leaves the cache file alone; the start after a file went away drops the file's entry")
    func cacheEntriesOfFilesGone() throws {
        let folder = Fixtures.temporaryDirectory("cache-gone")
        let data = Fixtures.temporaryDirectory("cache-gone-data")
        let kept = folder.appendingPathComponent("kept.so"), gone = folder.appendingPathComponent("gone.so")
        try compileVersioned("1.0.0", to: kept)
        try compileVersioned("2.0.0", to: gone)
        runtime(plugins: folder, data: data, scanner: try childScanner(data: data)).loadPlugins()
        let cacheFile = data.appendingPathComponent(PluginCache.fileName).path
        #expect(Set(PluginCache.load(from: data).entries.keys) == [kept.path, gone.path])
        let written = try #require(PluginCache.status(cacheFile))

        runtime(plugins: folder, data: data, scanner: try childScanner(data: data)).loadPlugins()
        #expect(PluginCache.status(cacheFile) == written, "nothing changed: the cache is not written again")

        try FileManager.default.removeItem(at: gone)
        let scanner = CountingScanner(try childScanner(data: data))
        let host = runtime(plugins: folder, data: data, scanner: scanner)
        host.loadPlugins()
        #expect(scanner.scanned.isEmpty)
        #expect(Array(PluginCache.load(from: data).entries.keys) == [kept.path])
        #expect(host.registry.records.map(\.path) == [kept.path])
    }

    @Test("the plugin folder lists its *.so files, not hidden ones, in String order, whatever the names' bytes")
    func folderListing() throws {
        let asciiNames = ["b.so", "a.so", "A.so", "a-b.so", "ab.so", "a.so.sig", ".hidden.so", "notes.txt", "so", ".so",
                          "z.SO", "Z1.so", "a b.so"]
        let otherNames = ["é.so", "z.so", "e\u{301}x.so", "a.so", ".é.so", "ü.txt", "Перевод.so"]
        for names in [asciiNames, otherNames] {
            let folder = Fixtures.temporaryDirectory("listing")
            for name in names {
                #expect(FileManager.default.createFile(atPath: folder.appendingPathComponent(name).path, contents: Data()))
            }
            let plugins = names.filter { $0.hasSuffix(".so") && !$0.hasPrefix(".") }.sorted()
            #expect(try PluginRegistry.pluginFiles(in: folder.path) == plugins.map { folder.path + "/" + $0 })
            #expect(try PluginRegistry.pluginFiles(in: folder.path + "/") == plugins.map { folder.path + "/" + $0 })
        }
        let missing = Fixtures.temporaryDirectory("listing").appendingPathComponent("missing").path
        #expect(throws: (any Error).self) { try PluginRegistry.pluginFiles(in: missing) }
    }

    @Test("a plugin is loaded when one of its operations is first run or one of its services is first looked up")
    func lazyLoading() throws {
        let folder = Fixtures.temporaryDirectory("lazy")
        let data = Fixtures.temporaryDirectory("lazy-data")
        try compileVersioned("1.0.0", to: folder.appendingPathComponent("versioned.so"))
        try Fixtures.compile(Fixtures.abi10.appendingPathComponent("plugin.c"), to: folder.appendingPathComponent("abi10.so"),
                             include: Fixtures.abi10.appendingPathComponent("include"))
        let host = runtime(plugins: folder, data: data, scanner: try childScanner(data: data))
        host.loadPlugins()
        #expect(host.registry.plugins.isEmpty)
        #expect(host.locator.table(id: "test.versioned.answer/1") != nil, "looking the service up loads its plugin")
        #expect(host.registry.plugins.map(\.id) == ["test.versioned"])
        let form = try host.open("abi10.op")
        #expect(Set(host.registry.plugins.map(\.id)) == ["test.versioned", "test.abi10"])
        form.close()
    }

    @Test("a C and a Swift plugin reloaded 100 times while a module of each is running")
    func hundredReloads() throws {
        let quick = Fixtures.plugins.appendingPathComponent("pay-quick.so")
        try #require(FileManager.default.fileExists(atPath: quick.path), "run make plugins first")
        let folder = Fixtures.temporaryDirectory("reload")
        let data = Fixtures.temporaryDirectory("reload-data")
        let cFile = folder.appendingPathComponent("versioned.so")
        let swiftFile = folder.appendingPathComponent("pay-quick.so")
        try compileVersioned("1.0.0", to: cFile)
        try FileManager.default.copyItem(at: quick, to: swiftFile)
        let host = runtime(plugins: folder, data: data, scanner: nil)
        host.loadPlugins()
        let cModule = try host.open("versioned.op")
        let swiftModule = try host.open("pay.pp.quick")
        try swiftModule.commit("destBic", text: "044525225")
        let cBytes = try Data(contentsOf: cFile), swiftBytes = try Data(contentsOf: swiftFile)
        for round in 1...100 {
            // A new build of each: the same code with different bytes (a trailing note), renamed into place.
            for (file, bytes) in [(cFile, cBytes), (swiftFile, swiftBytes)] {
                let staged = folder.appendingPathComponent(".staged")
                try (bytes + Data("build \(round)".utf8)).write(to: staged)
                try #require(rename(staged.path, file.path) == 0)
            }
            let reports = host.reload()
            #expect(reports.map(\.change) == [.updated, .updated], "round \(round): \(reports.map(\.description))")
        }
        // The running modules finished on the versions they started with.
        #expect(swiftModule.atom("destBicInfo")?.caption == "ПАО Сбербанк")
        try swiftModule.commit("destBic", text: "044525593")
        #expect(swiftModule.atom("destBicInfo")?.caption == "АО «Альфа-Банк»")
        guard case .ready(let draft) = cModule.submit() else {
            Issue.record("the old C version must still build its document")
            return
        }
        #expect(draft["version"] == "1.0.0")
        let oldC = cModule.operation.plugin
        cModule.close()
        swiftModule.close()
        #expect(!(oldC.handle?.isOpen ?? false), "the old C image is unloaded once no module uses it")
        // New runs get the newest version, and its state came across every reload (rbs.state/1).
        let fresh = try host.open("versioned.op")
        defer { fresh.close() }
        let reloads = try #require(fresh.operation.plugin.handle?.symbol("versioned_reloads"))
        #expect(unsafeBitCast(reloads, to: (@convention(c) () -> Int32).self)() == 100)
    }

    @Test("a removed file withdraws its operations once running modules end; a failed new version keeps the old one")
    func removalAndFailedVersion() throws {
        let folder = Fixtures.temporaryDirectory("remove")
        let file = folder.appendingPathComponent("versioned.so")
        try compileVersioned("1.0.0", to: file)
        let host = runtime(plugins: folder, data: Fixtures.temporaryDirectory(), scanner: nil)
        host.loadPlugins()

        try Data("not a plugin any more".utf8).write(to: file)
        let failed = host.reload()
        #expect(failed.map(\.change) == [.failed])
        #expect(failed.first?.description.contains("not an ELF file") == true)
        #expect(failed.first?.description.hasSuffix("version 1.0.0 stays in service") == true)
        #expect(host.registry.operations.map(\.id) == ["versioned.op"])
        // `plugins` says both: the version in service, and that the file now there was refused (not only "1.0.0").
        let record = try #require(host.registry.records.first)
        #expect(record.version == "1.0.0" && record.status != .failed)
        #expect(record.error?.contains("not an ELF file") == true && record.error?.hasSuffix("version 1.0.0 stays in service") == true,
                "\(record)")
        let russian = try #require(HostMessage.describe(record, .ru))
        #expect(russian.hasSuffix(" — в работе остаётся версия 1.0.0"), "\(russian)")
        #expect(host.registry.failedRecords.isEmpty, "in service: not a failed plugin")

        try compileVersioned("1.1.0", to: file)
        #expect(host.reload().map(\.description).first?.hasPrefix("reloaded test.versioned 1.0.0 → 1.1.0 in ") == true)
        #expect(host.registry.records.first?.error == nil, "the file is in service again: nothing refused to say")

        let running = try host.open("versioned.op")
        try FileManager.default.removeItem(at: file)
        #expect(host.reload().map(\.change) == [.removed])
        #expect(host.registry.operations.isEmpty)
        #expect((running.operation.plugin.handle?.isOpen ?? false), "the running module keeps its version")
        guard case .ready = running.submit() else {
            Issue.record("the running module still works")
            return
        }
        let image = running.operation.plugin
        running.close()
        #expect(!(image.handle?.isOpen ?? false))
    }

    @Test("the watcher reloads a plugin renamed into the folder")
    func watcher() async throws {
        let folder = Fixtures.temporaryDirectory("watch")
        let file = folder.appendingPathComponent("versioned.so")
        try compileVersioned("1.0.0", to: file)
        let host = runtime(plugins: folder, data: Fixtures.temporaryDirectory(), scanner: nil)
        host.loadPlugins()
        let seen = ReportBox()
        let watcher = try host.watch { seen.add($0) }
        defer { watcher.stop() }
        try compileVersioned("1.2.0", to: file)
        for _ in 0..<200 where seen.reports.isEmpty { try await Task.sleep(for: .milliseconds(10)) }
        #expect(seen.reports.first?.description.hasPrefix("reloaded test.versioned 1.0.0 → 1.2.0") == true)
        #expect(host.registry.records.first?.version == "1.2.0")
    }
}

private final class ReportBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [ReloadReport] = []
    func add(_ reports: [ReloadReport]) { lock.withLock { stored += reports } }
    var reports: [ReloadReport] { lock.withLock { stored } }
}

@Suite("Plugin cache file")
struct PluginCacheTests {
    @Test("the cache round-trips every manifest field, and a corrupt or truncated file reads as empty")
    func roundTripAndCorruption() throws {
        let folder = Fixtures.temporaryDirectory("cache-file")
        try Fixtures.compile(Fixtures.root.appendingPathComponent("Tests/Fixtures/forms/forms.c"),
                             to: folder.appendingPathComponent("forms.so"))
        let loader = PluginLoader(imagesDirectory: Fixtures.temporaryDirectory(), locator: ServiceLocator())
        let result = InProcessScanner.scanOne(folder.appendingPathComponent("forms.so").path, loader: loader)
        guard case .plugin(let manifest, _) = result else {
            Issue.record("the forms fixture must scan: \(result)")
            return
        }
        let fingerprint = PluginCache.Fingerprint(size: 1, modified: 2, changed: 3, inode: 4, hash: "ab")
        let refused = ScanFailure.refused(.untrusted(.writableByOthers(.pluginFolder("/p"), path: "/p", mode: 0o777)))
        let cache = PluginCache(hostABI: ABIVersion.host.description, entries: [
            "a.so": .init(fingerprint: fingerprint, result: .plugin(manifest, services: ["x.y/1"])),
            "b.so": .init(fingerprint: fingerprint, result: .failed(.crashed(signal: 11))),
            "c.so": .init(fingerprint: fingerprint, result: .failed(refused)),
        ], inService: ["a.so"])
        let data = Fixtures.temporaryDirectory("cache-data")
        cache.save(to: data)
        let loaded = PluginCache.load(from: data)
        #expect(loaded.entries["a.so"]?.result == .plugin(manifest, services: ["x.y/1"]))
        #expect(loaded.entries["b.so"]?.result == .failed(.crashed(signal: 11)))
        #expect(loaded.entries["c.so"]?.result == .failed(refused))
        #expect(loaded.inService == ["a.so"], "which files were in service survives a restart")
        #expect(loaded.entries["a.so"]?.fingerprint == fingerprint)

        let file = data.appendingPathComponent(PluginCache.fileName)
        let bytes = try Data(contentsOf: file)
        for broken in [bytes.prefix(bytes.count / 2), Data("garbage".utf8), Data()] {
            try broken.write(to: file)
            #expect(PluginCache.load(from: data).entries.isEmpty)
        }
    }

    /// Found while writing the descriptors' fuzz target (Fuzz/Sources/FuzzDescriptors, the cache form): the inode was
    /// read with `UInt64(_:)`, which traps on the negative number a damaged cache can hold, and written with
    /// `Int(_:)`, which traps on an inode above Int64.max.
    @Test("a cache's inode is kept as its bit pattern: one above Int64.max round-trips, a damaged one never traps")
    func cacheInodeBitPattern() throws {
        let fingerprint = PluginCache.Fingerprint(size: 1, modified: 2, changed: 3, inode: UInt64.max - 1, hash: "ab")
        let cache = PluginCache(hostABI: ABIVersion.host.description, entries: [
            "b.so": .init(fingerprint: fingerprint, result: .failed(.crashed(signal: 11))),
        ], inService: [])
        let bytes = PluginCacheCodec.encode(cache)
        #expect(try PluginCacheCodec.decode(bytes).entries["b.so"]?.fingerprint == fingerprint)
        // The inode's ten LEB128 bytes (UInt64.max - 1) changed to those of -1, as a damaged file may hold them.
        var damaged = bytes
        let at = try #require(damaged.firstRange(of: [0xFE] + Array(repeating: UInt8(0xFF), count: 8) + [0x01]))
        damaged.replaceSubrange(at, with: Array(repeating: UInt8(0xFF), count: 9) + [0x01])
        #expect(try PluginCacheCodec.decode(damaged).entries["b.so"]?.fingerprint.inode == UInt64.max)
    }

    @Test("every truncation of a cache is malformed, and no changed byte makes the reader read outside the file's bytes")
    func truncatedAndDamagedCaches() throws {
        let folder = Fixtures.temporaryDirectory("cache-damage")
        try Fixtures.compile(Fixtures.root.appendingPathComponent("Tests/Fixtures/forms/forms.c"),
                             to: folder.appendingPathComponent("forms.so"))
        let loader = PluginLoader(imagesDirectory: Fixtures.temporaryDirectory(), locator: ServiceLocator())
        let result = InProcessScanner.scanOne(folder.appendingPathComponent("forms.so").path, loader: loader)
        let fingerprint = PluginCache.Fingerprint(size: 1, modified: 2, changed: 3, inode: 4, hash: "ab")
        let cache = PluginCache(hostABI: ABIVersion.host.description, entries: [
            "a.so": .init(fingerprint: fingerprint, result: result),
            "b.so": .init(fingerprint: fingerprint, result: .failed(.crashed(signal: 11))),
        ], inService: ["a.so"])
        let bytes = PluginCacheCodec.encode(cache)
        #expect(try PluginCacheCodec.decode(bytes).entries["a.so"]?.result == result)
        for length in 0..<bytes.count {
            #expect(throws: PluginCacheCodec.Malformed.self) { try PluginCacheCodec.decode(Array(bytes.prefix(length))) }
        }
        // Each byte changed in turn: the decoder may read another cache or none, but only within the bytes (the
        // reader works on raw memory; a debug build traps on any read outside it).
        for index in bytes.indices {
            var damaged = bytes
            damaged[index] ^= 0xFF
            _ = try? PluginCacheCodec.decode(damaged)
        }
    }
}
