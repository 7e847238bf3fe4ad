import Foundation
import RBSMoney
import Testing
@testable import RBSCore

/// Signed plugin packages (issue #32 item 1): `plugin pack` → `plugin install` → a host loads it; every bad package
/// is refused naming what and where; placement never shows a host an unsigned file; uninstall, history, downgrade.
@Suite(.serialized)
struct PluginPackageTests {
    typealias Host = SignedReloadTests.Host
    static let inProcess = IsolationSettings(mode: .none, workerExecutable: "")

    /// A package of version `version` of the versioned test plugin, signed with `key` (default: the host's).
    static func pack(_ host: Host, _ version: String, key: PublisherKey? = nil, abiMin: String? = nil,
                     abiBelow: String? = nil, services: [String] = ["rbs.log/1"]) throws -> (path: String, manifest: PackageManifest) {
        let built = try host.build(version)
        let request = PackRequest(objects: [(PackageArchitecture.host, built.plugin.path)], key: key ?? host.key,
                                  publisher: "Test Bank",
                                  texts: ["en": .init(title: "Versioned", description: "A test plugin"),
                                          "ru": .init(title: "Версии", description: "Тестовый плагин")],
                                  services: services, changelog: "\(version): a test build\n",
                                  abiMin: abiMin, abiBelow: abiBelow)
        let (bytes, manifest) = try PluginPackager.pack(request, isolation: inProcess)
        let path = host.staging.appendingPathComponent("versioned-\(version)-\(UUID().uuidString.prefix(6)).rbspkg").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return (path, manifest)
    }

    static func install(_ host: Host, _ path: String, allowDowngrade: Bool = false,
                        policy: PluginTrustPolicy? = nil) throws(PackageError) -> PackageChange {
        try PluginPackager.install(packageAt: path, folder: host.folder.path, dataDirectory: host.data,
                                   policy: policy ?? PluginTrustPolicy(dataDirectory: host.data, development: false),
                                   isolation: inProcess, allowDowngrade: allowDowngrade, by: "tester")
    }

    /// The refusal installing `path` meets (nil: installed).
    static func refusal(_ host: Host, _ path: String, policy: PluginTrustPolicy? = nil) -> PackageError? {
        do { _ = try install(host, path, policy: policy) } catch { return error }
        return nil
    }

    /// A package written entry by entry (as no honest `pack` would), signed as a whole by `key` for `id` `version`.
    static func forge(_ host: Host, manifest: PackageManifest, entries: [(String, [UInt8])], key: PublisherKey) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let body = PluginPackage.body([(PluginPackage.manifestEntry, Array(try encoder.encode(manifest)))] + entries)
        let signature = try PluginSignature.make(fileSHA256: ContentHash.sha256(body), pluginID: manifest.id,
                                                 version: manifest.version, key: key)
        let path = host.staging.appendingPathComponent("forged-\(UUID().uuidString.prefix(6)).rbspkg").path
        try Data(PluginPackage.file(body: body, signature: signature)).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A host serving 1.1.0 installed from a package, with a package of 1.0.0 beside it.
    static func servingNewer() throws -> (host: Host, older: String) {
        let host = try Host()
        let newer = try pack(host, "1.1.0").path, older = try pack(host, "1.0.0").path
        _ = try install(host, newer)
        host.runtime.loadPlugins()
        return (host, older)
    }

    /// The plugin folder's names, hidden ones too.
    static func names(_ host: Host) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: host.folder.path).sorted()
    }

    @Test("pack → install → load: the installed .so and .sig are what a host loads; the manifest carries texts, changelog, ABI range, services")
    func packInstallLoad() throws {
        let host = try Host()
        let (path, manifest) = try Self.pack(host, "1.0.0")
        #expect(manifest.id == "test.versioned" && manifest.version == "1.0.0" && manifest.publisher == "Test Bank")
        #expect(manifest.texts["ru"] == .init(title: "Версии", description: "Тестовый плагин"))
        #expect(manifest.changelog == "1.0.0: a test build\n" && manifest.services == ["rbs.log/1"])
        #expect(manifest.hostABI == .init(min: ABIVersion.host.short, below: "\(ABIVersion.host.major + 1).0"))
        #expect(manifest.objects.keys.sorted() == [PackageArchitecture.host])

        let change = try Self.install(host, path)
        let target = host.folder.appendingPathComponent("test.versioned.so").path
        #expect(!change.unchanged && change.entry.action == .install && change.entry.file == target)
        #expect(try Self.names(host) == ["test.versioned.so", "test.versioned.so.sig"], "no staged file is left behind")
        host.runtime.loadPlugins()
        #expect(host.runtime.registry.records.map(\.status) != [.failed])
        #expect(host.runtime.registry.records.map(\.version) == ["1.0.0"])
        #expect(try Self.install(host, path).unchanged, "the same package again changes nothing")
    }

    @Test("a truncated package is refused naming the entry it ends in")
    func truncated() throws {
        let host = try Host()
        let (path, _) = try Self.pack(host, "1.0.0")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: path))
        #expect(Self.refusal(host, path)?.description
            == "\(path) is truncated: it ends at byte \(bytes.count / 2), before the end of its entry 'objects/\(PackageArchitecture.host).so' — copy or download the whole package again")
        try Data("not a package\n".utf8).write(to: URL(fileURLWithPath: path))
        #expect(Self.refusal(host, path) == .notAPackage(path: path))
        #expect(try Self.names(host).isEmpty)
    }

    @Test("one byte changed in the object, or in the signature, is refused: damaged, or a signature that does not verify")
    func corrupted() throws {
        let host = try Host()
        let (path, _) = try Self.pack(host, "1.0.0")
        let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        var damaged = original
        let elf = try #require(original.indices.first { original[$0] == 0x7F && original[$0 + 1] == 0x45 })
        damaged[elf + 4000] ^= 0x01
        try Data(damaged).write(to: URL(fileURLWithPath: path))
        #expect(Self.refusal(host, path)?.description
            == "\(path): its contents are not what was signed (changed or damaged after signing) — do not install it; copy or download the package again")
        #expect(HostMessage.describe(try #require(Self.refusal(host, path)), .ru)
            == "\(path): его содержимое — не то, что было подписано (изменён или повреждён после подписи) — не устанавливайте его; скопируйте или скачайте пакет заново")

        var forged = original
        // A hex digit of the Ed25519 signature on the package signature's last line.
        let marker = Array("\nsignature ".utf8)
        let line = try #require((0...(original.count - marker.count)).last { Array(original[$0..<$0 + marker.count]) == marker })
        let digit = line + marker.count + 10
        forged[digit] = forged[digit] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
        try Data(forged).write(to: URL(fileURLWithPath: path))
        #expect(Self.refusal(host, path) == .badSignature(path: path, entry: "package.sig"))
        #expect(try Self.names(host).isEmpty)
    }

    @Test("an untrusted key, an id outside the key's scope and an expired key are refused")
    func untrusted() throws {
        let host = try Host()
        let stranger = PublisherKey.generate(name: "stranger")
        let (strange, _) = try Self.pack(host, "1.0.0", key: stranger)
        #expect(Self.refusal(host, strange) == .untrustedKey(path: strange, publicKey: stranger.publicKeyHex, shared: false))

        let store = TrustStore(dataDirectory: host.data, location: .dataFolder)
        try store.add(stranger.publicKeyHex, name: "stranger", grant: TrustGrant(ids: [try PluginIDPattern("ru.other.*")]))
        #expect(Self.refusal(host, strange) == .untrusted(path: strange, .outsideKeyScope(
            publicKey: stranger.publicKeyHex, pluginID: "test.versioned", ids: ["ru.other.*"])))

        try store.add(stranger.publicKeyHex, name: nil, grant: TrustGrant(ids: [try PluginIDPattern("test.*")],
                                                                         expires: try CalendarDay.parse("2026-11-01", .iso)))
        let later = PluginTrustPolicy(dataDirectory: host.data, development: false,
                                      clock: { Date(timeIntervalSince1970: 1_796_000_000) })  // 2026-12-01
        #expect(Self.refusal(host, strange, policy: later) == .untrusted(path: strange, .expiredKey(
            publicKey: stranger.publicKeyHex, lastDay: "2026-11-01")))
        #expect(try Self.names(host).isEmpty)
    }

    @Test("an ABI range this host is outside of is refused, saying the range and the host's ABI")
    func abiOutOfRange() throws {
        let host = try Host()
        let (path, _) = try Self.pack(host, "1.0.0", abiMin: "\(ABIVersion.host.major + 1).0",
                                      abiBelow: "\(ABIVersion.host.major + 2).0")
        let refusal = try #require(Self.refusal(host, path))
        #expect(refusal == .abiOutOfRange(path: path, min: "\(ABIVersion.host.major + 1).0",
                                          below: "\(ABIVersion.host.major + 2).0", host: ABIVersion.host.short))
        #expect(refusal.description.hasSuffix("update rbs-host, or install a version of the plugin built for ABI \(ABIVersion.host.short)"))
    }

    @Test("a service the manifest says the plugin uses and this host does not offer is refused, naming it")
    func missingService() throws {
        let host = try Host()
        let (path, _) = try Self.pack(host, "1.0.0", services: ["rbs.log/1", "rbs.sbp/1"])
        #expect(Self.refusal(host, path) == .missingService(path: path, service: "rbs.sbp/1", host: ABIVersion.host.short))
        #expect(try Self.names(host).isEmpty)
        let (fine, _) = try Self.pack(host, "1.0.0", services: ["rbs.run-texts/1", "rbs.cards/1"])
        #expect(Self.refusal(host, fine) == nil)
    }

    @Test("no object for this host's architecture, a missing object, a manifest id the descriptor does not say: each refused")
    func forgedManifests() throws {
        let host = try Host()
        let (path, honest) = try Self.pack(host, "1.0.0")
        let package = try PluginPackage.read(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))), path: path)
        let entry = PluginPackage.objectEntry(PackageArchitecture.host)
        let object = try #require(package.entry(entry))

        var foreign = honest
        foreign.objects = ["riscv64": try #require(honest.objects[PackageArchitecture.host])]
        let elsewhere = try Self.forge(host, manifest: foreign, entries: [], key: host.key)
        #expect(Self.refusal(host, elsewhere) == .wrongArchitecture(path: elsewhere, host: PackageArchitecture.host, offered: ["riscv64"]))

        let missing = try Self.forge(host, manifest: honest, entries: [], key: host.key)
        #expect(Self.refusal(host, missing) == .missingObject(path: missing, architecture: PackageArchitecture.host, entry: entry))

        // Manifest and signatures say test.renamed; the object's own descriptor says test.versioned.
        var renamed = honest
        renamed.id = "test.renamed"
        let objectSignature = try PluginSignature.make(fileSHA256: ContentHash.sha256(object), pluginID: "test.renamed",
                                                       version: "1.0.0", key: host.key)
        let mismatched = try Self.forge(host, manifest: renamed,
                                        entries: [(entry, object), (entry + ".sig", Array(objectSignature.text.utf8))], key: host.key)
        #expect(Self.refusal(host, mismatched) == .descriptorMismatch(
            path: mismatched, architecture: PackageArchitecture.host, manifestID: "test.renamed", manifestVersion: "1.0.0",
            id: "test.versioned", version: "1.0.0"))
        #expect(try Self.names(host).isEmpty, "nothing was placed, not even a staged copy")
    }

    @Test("a lower version is refused, naming --allow-downgrade; with it, installed, recorded as a downgrade and taken by the next reload")
    func downgrade() throws {
        let (host, older) = try Self.servingNewer()
        #expect(Self.refusal(host, older)?.description
            == "\(older) is version 1.0.0 of test.versioned, lower than version 1.1.0 installed or last in service here: a downgrade is refused — to roll back on purpose, install it with --allow-downgrade")
        let change = try Self.install(host, older, allowDowngrade: true)
        #expect(change.entry.action == .downgrade && change.entry.previousVersion == "1.1.0")
        #expect(host.runtime.reload().first?.description.hasPrefix("reloaded test.versioned 1.1.0 → 1.0.0") == true)
        #expect(host.runtime.registry.records.map(\.version) == ["1.0.0"])
    }

    @Test("a version below the one last in service is refused even after the file was uninstalled")
    func downgradeAfterUninstall() throws {
        let (host, older) = try Self.servingNewer()
        _ = try PluginPackager.uninstall("test.versioned", folder: host.folder.path, dataDirectory: host.data, by: "tester")
        #expect(Self.refusal(host, older) == .downgrade(path: older, id: "test.versioned", installed: "1.1.0", offered: "1.0.0"))
    }

    @Test("install over a running plugin: a host verifying the folder throughout never finds a file without its signature")
    func atomicPlacement() async throws {
        let host = try Host()
        let packages = try ["1.0.0", "1.1.0", "1.2.0", "1.3.0"].map { try Self.pack(host, $0).path }
        _ = try Self.install(host, packages[0])
        host.runtime.loadPlugins()
        let seen = Reports()
        let watcher = try host.runtime.watch { seen.add($0) }
        defer { watcher.stop() }
        // A starting host's view, over and over: list the folder, read each file, check it by the trust policy.
        let policy = PluginTrustPolicy(dataDirectory: host.data, development: false)
        let folder = host.folder.path
        let checker = Task.detached { () -> [String] in
            var refusals: [String] = []
            for _ in 0..<4000 {
                for path in (try? PluginRegistry.pluginFiles(in: folder)) ?? [] {
                    guard let bytes = FileManager.default.contents(atPath: path) else { continue }
                    do throws(PluginProblem) { try policy.verify([UInt8](bytes), path: path) } catch { refusals.append(error.description) }
                }
            }
            return refusals
        }
        for package in packages.dropFirst() { _ = try Self.install(host, package) }
        #expect(await checker.value == [])
        try await SignedReloadTests.wait(seen) { $0.newVersion == "1.3.0" }
        #expect(!seen.reports.contains { $0.change == .failed }, "\(seen.reports)")
        #expect(host.runtime.registry.records.map(\.version) == ["1.3.0"])
        #expect(try Self.names(host) == ["test.versioned.so", "test.versioned.so.sig"])
    }

    @Test("uninstall removes the file and its signature; a running host withdraws it; history lists every step with its key and who")
    func uninstallAndHistory() async throws {
        let host = try Host()
        let first = try Self.pack(host, "1.0.0").path, second = try Self.pack(host, "1.1.0").path
        _ = try Self.install(host, first)
        host.runtime.loadPlugins()
        let seen = Reports()
        let watcher = try host.runtime.watch { seen.add($0) }
        defer { watcher.stop() }
        _ = try Self.install(host, second)
        try await SignedReloadTests.wait(seen) { $0.newVersion == "1.1.0" }
        let removed = try PluginPackager.uninstall("test.versioned", folder: host.folder.path, dataDirectory: host.data,
                                                   by: "tester")
        #expect(HostMessage.describe(removed, .en)
            == "uninstalled test.versioned 1.1.0: removed \(host.folder.appendingPathComponent("test.versioned.so").path) and its signature")
        try await SignedReloadTests.wait(seen) { $0.change == .removed }
        #expect(seen.reports.contains { $0.description.hasPrefix("removed test.versioned 1.1.0") }, "\(seen.reports)")
        #expect(host.runtime.registry.records.isEmpty)
        #expect(try Self.names(host).isEmpty)
        #expect(throws: PackageError.notInstalled(id: "test.versioned", folder: host.folder.path)) {
            try PluginPackager.uninstall("test.versioned", folder: host.folder.path, dataDirectory: host.data, by: "tester")
        }

        let history = PluginHistory(dataDirectory: host.data)
        let (entries, unreadable) = try history.entries()
        #expect(unreadable.isEmpty)
        #expect(entries.map { "\($0.action.rawValue) \($0.id) \($0.version) \($0.previousVersion ?? "-") \($0.by) \($0.publisherKey == host.key.publicKeyHex)" }
            == ["install test.versioned 1.0.0 - tester true", "install test.versioned 1.1.0 1.0.0 tester true",
                "uninstall test.versioned 1.1.0 - tester true"])
        #expect(entries.first?.publisher == "Test Bank" && entries.first?.package?.count == 64)
        #expect(TrustFile.status(history.path)?.mode == 0o600)
        let lines = try String(contentsOfFile: history.path, encoding: .utf8).split(separator: "\n")
        let keys = try #require(JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any]).keys.sorted()
        #expect(keys == ["action", "by", "file", "id", "package", "publisher", "publisherKey", "time", "version"])
        #expect(HostMessage.render(Array(entries.suffix(1)), .en)
            == "\(entries[2].time)  uninstall  test.versioned 1.1.0 — tester, key \(host.key.publicKeyHex.prefix(16))…")
    }

    @Test("pack refuses an object given for another architecture, no object for this host, and texts without a description")
    func packRefusals() throws {
        let host = try Host()
        let built = try host.build("1.0.0")
        let other = PackageArchitecture.host == "x86_64" ? "aarch64" : "x86_64"
        #expect(throws: PackageError.objectArchitecture(path: built.plugin.path, given: other, found: PackageArchitecture.host)) {
            try PluginPackager.pack(PackRequest(objects: [(PackageArchitecture.host, built.plugin.path), (other, built.plugin.path)],
                                                key: host.key, texts: [:], changelog: ""), isolation: Self.inProcess)
        }
        #expect(throws: PackageError.noHostObject(host: PackageArchitecture.host)) {
            try PluginPackager.pack(PackRequest(objects: [], key: host.key, texts: [:], changelog: ""), isolation: Self.inProcess)
        }
        #expect(throws: PackageError.incompleteTexts(language: "ru", missing: "description")) {
            try PackRequest.texts(titles: ["en=Top-up", "ru=Пополнение"], descriptions: ["en=Mobile top-up"])
        }
        #expect(throws: PackageError.badObjectOption("x86_64")) { try PackRequest.objects(["x86_64"]) }
    }
    @Test("a .sig holding two signatures: the block for the file's bytes is the one checked; bytes neither names are refused")
    func signatureBlocks() throws {
        let host = try Host()
        let old = try host.build("1.0.0"), new = try host.build("1.1.0")
        let target = host.folder.appendingPathComponent("versioned.so")
        try host.copy(new.plugin, as: "versioned.so")
        let both = try String(contentsOf: old.signature, encoding: .utf8) + String(contentsOf: new.signature, encoding: .utf8)
        try both.write(toFile: target.path + ".sig", atomically: true, encoding: .utf8)
        let policy = PluginTrustPolicy(dataDirectory: host.data, development: false)
        try policy.verify(try [UInt8](Data(contentsOf: new.plugin)), path: target.path)
        try policy.verify(try [UInt8](Data(contentsOf: old.plugin)), path: target.path)
        let other = try [UInt8](Data(contentsOf: try host.build("1.2.0").plugin))
        let newHash = try PluginSignature.parse(try String(contentsOf: new.signature, encoding: .utf8), path: "").fileSHA256
        #expect(throws: PluginProblem.untrusted(.changedAfterSigning(path: target.path, fileSHA256: ContentHash.sha256(other),
                                                                     signedSHA256: newHash))) {
            try policy.verify(other, path: target.path)
        }
    }

    @Test("every package refusal has its own Russian text, naming the package", arguments: [
        PackageError.truncated(path: "p.rbspkg", entry: "package.sig", size: 10),
        .malformed(path: "p.rbspkg", offset: 3, reason: "x"), .badSignature(path: "p.rbspkg", entry: "package.sig"),
        .untrustedKey(path: "p.rbspkg", publicKey: "ab", shared: true),
        .wrongArchitecture(path: "p.rbspkg", host: "x86_64", offered: ["aarch64"]),
        .missingObject(path: "p.rbspkg", architecture: "x86_64", entry: "objects/x86_64.so"),
        .abiOutOfRange(path: "p.rbspkg", min: "2.0", below: "3.0", host: "1.3"),
        .missingService(path: "p.rbspkg", service: "rbs.sbp/1", host: "1.4"),
        .descriptorMismatch(path: "p.rbspkg", architecture: "x86_64", manifestID: "a", manifestVersion: "1", id: "b", version: "1"),
        .downgrade(path: "p.rbspkg", id: "a", installed: "1.1.0", offered: "1.0.0"),
    ])
    func russianTexts(_ error: PackageError) {
        let russian = HostMessage.describe(error, .ru)
        #expect(russian != error.description)
        #expect(russian.hasPrefix("p.rbspkg") || russian.hasPrefix("в p.rbspkg"), "\(russian)")
        #expect(russian.unicodeScalars.contains { (0x0410...0x044F).contains($0.value) }, "\(russian)")
    }
    @Test("a byte changed anywhere in a package (container, manifest, object, signatures) is refused, never accepted")
    func everyByteCounts() throws {
        let host = try Host()
        let (path, _) = try Self.pack(host, "1.0.0")
        let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let policy = PluginTrustPolicy(dataDirectory: host.data, development: false)
        _ = try PluginPackager.verify(original, path: path, policy: policy)
        var accepted: [Int] = []
        for offset in stride(from: 0, to: original.count, by: max(1, original.count / 600)) {
            var changed = original
            // The lowest bit: flipping 0x20 would only change a hex letter's case, which the signature format ignores.
            changed[offset] ^= 0x01
            if (try? PluginPackager.verify(changed, path: path, policy: policy)) != nil { accepted.append(offset) }
        }
        #expect(accepted == [])
    }
    @Test("a plugin folder other users can write to is refused before anything is placed: hosts would not load from it")
    func unsafeFolder() throws {
        let host = try Host()
        let (path, _) = try Self.pack(host, "1.0.0")
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: host.folder.path)
        let folder = host.folder.path
        #expect(Self.refusal(host, path) == .untrusted(path: folder, .writableByOthers(.pluginFolder(folder), path: folder, mode: 0o777)))
        #expect(try Self.names(host).isEmpty)
    }
}
