import Foundation
import Testing

/// Signed plugins: without --dev only plugins signed by a trusted key load; a world-writable plugin never loads.
@Suite("Signed plugins and trust")
struct TrustTests {
    /// A sandbox without RBS_DEV, a plugin folder with a copy of transfer-own.so, and a publisher key.
    private struct World {
        let sandbox: HostSandbox
        let folder: URL
        let plugin: URL
        let key: URL
        let publicKey: String

        init() throws {
            sandbox = try HostSandbox()
            folder = try CheckFixtures.folder(in: sandbox, "plugins")
            plugin = folder.appendingPathComponent("transfer-own.so")
            try FileManager.default.copyItem(at: Repo.plugins.appendingPathComponent("transfer-own.so"), to: plugin)
            sandbox.plugins = folder
            key = sandbox.data.appendingPathComponent("publisher.key")
            let made = try sandbox.host(["plugin", "keygen", key.path, "--name", "Tests"], environment: ["RBS_DEV": nil])
            try #require(made.status == 0, "keygen: \(made)")
            let lines = made.stdout.split(separator: "\n").map(String.init)
            publicKey = lines.first { $0.hasPrefix("public key ") }.map { String($0.dropFirst("public key ".count)) } ?? ""
            #expect(lines.first == "wrote \(key.path) (the private key, mode 0600: keep it secret) and \(key.path).pub (the public key)")
            #expect(made.stdout.contains("rbs-host trust add \(key.path).pub"))
        }

        /// `rbs-host ARGS` without RBS_DEV.
        func host(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> ProcessResult {
            try sandbox.host(arguments, environment: ["RBS_DEV": nil], sourceLocation: sourceLocation)
        }

        func sign() throws {
            let result = try host(["plugin", "sign", plugin.path, "--key", key.path])
            try #require(result.status == 0, "sign: \(result)")
        }

        func trust() throws {
            let result = try host(["trust", "add", key.path + ".pub"])
            try #require(result.status == 0, "trust add: \(result)")
        }

        /// The operations `list --json` offers and its standard error.
        func listed(dev: Bool = false) throws -> (ids: [String], stderr: String) {
            let result = try host(["list", "--json"] + (dev ? ["--dev"] : []))
            #expect(result.status == 0, "\(result)")
            let array = (try? jsonObject(result.stdout) as? [[String: Any]]) ?? []
            return (array.compactMap { $0["id"] as? String }, result.stderr)
        }
    }

    @Test("keygen writes a 0600 key file and a .pub file, and says which files it wrote and the public key")
    func keygen() throws {
        let world = try World()
        #expect(world.publicKey.count == 64 && world.publicKey.allSatisfy(\.isHexDigit))
        let mode = try FileManager.default.attributesOfItem(atPath: world.key.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let pub = try String(contentsOf: URL(fileURLWithPath: world.key.path + ".pub"), encoding: .utf8)
        #expect(pub.hasPrefix(world.publicKey))
        let again = try world.host(["plugin", "keygen", world.key.path])
        #expect(again.status != 0 && again.stderr.contains("already exists"))
    }

    @Test("plugin sign reads the manifest in a sandboxed worker: a plugin that aborts when opened is refused, the signer survives")
    func signOpensThePluginInAWorker() throws {
        let world = try World()
        let plugin = try CheckFixtures.build("abort_on_open", into: world.folder)
        let result = try world.host(["plugin", "sign", plugin.path, "--key", world.key.path])
        // Opened in the signing process, the constructor's abort() would end it (status 134, no message).
        #expect(result.status == 1, "\(result)")
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 1 && lines[0].hasPrefix("error: cannot read the plugin's id and version: ")
                    && lines[0].contains("killed by SIGABRT"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: plugin.path + ".sig"), "nothing is signed")
        // A well-formed plugin still signs through the worker, naming its id and version.
        let signed = try world.host(["plugin", "sign", world.plugin.path, "--key", world.key.path])
        #expect(signed.status == 0, "\(signed)")
        #expect(signed.stdout.hasPrefix("signed \(world.plugin.path) (ru.example.transfers 1.0.0)"), "\(signed.stdout)")
    }

    @Test("unsigned: refused with a message naming the file and the fix")
    func unsigned() throws {
        let world = try World()
        let (ids, stderr) = try world.listed()
        #expect(ids.isEmpty)
        #expect(stderr.contains("\(world.plugin.path): not signed"), "\(stderr)")
        #expect(stderr.contains("rbs-host plugin sign") && stderr.contains("rbs-host trust add") && stderr.contains("--dev"))
        let described = try world.host(["describe", "transfer.own"])
        #expect(described.status != 0)
    }

    @Test("signed by an untrusted key: refused, naming the key to trust")
    func untrusted() throws {
        let world = try World()
        try world.sign()
        let signature = try String(contentsOf: URL(fileURLWithPath: world.plugin.path + ".sig"), encoding: .utf8)
        #expect(signature.hasPrefix("rbs-plugin-signature 1\nfile-sha256 "))
        #expect(signature.contains("plugin ru.example.transfers\nversion 1.0.0\nkey \(world.publicKey)\nsignature "))
        let (ids, stderr) = try world.listed()
        #expect(ids.isEmpty)
        #expect(stderr.contains("signed by an untrusted key \(world.publicKey)"), "\(stderr)")
        #expect(stderr.contains("rbs-host trust add \(world.publicKey)"))
    }

    @Test("signed and trusted: loads, lists and runs; trust list shows the key; trust remove takes it away")
    func valid() throws {
        let world = try World()
        try world.sign()
        try world.trust()
        let (ids, stderr) = try world.listed()
        #expect(ids == ["transfer.own"], "\(stderr)")
        #expect(stderr.isEmpty, "\(stderr)")
        let described = try world.host(["describe", "transfer.own", "--json"])
        #expect(described.status == 0, "\(described)")
        let listed = try world.host(["trust", "list"])
        #expect(listed.stdout.contains(world.publicKey) && listed.stdout.contains("Tests"))
        let removed = try world.host(["trust", "remove", world.publicKey])
        #expect(removed.status == 0, "\(removed)")
        let after = try world.host(["trust", "list", "--json"])
        #expect(!after.stdout.contains(world.publicKey))
        // Loading for use always checks the signature, whatever was listed before.
        let refused = try world.host(["describe", "transfer.own"])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("untrusted key"), "\(refused)")
    }

    @Test("signing and trusting take effect at once, and trust remove withdraws the listing: nothing is cached")
    func trustIsNeverCached() throws {
        let world = try World()
        #expect(try world.listed().ids.isEmpty, "unsigned: refused")
        try world.sign()
        #expect(try world.listed().ids.isEmpty, "signed by an untrusted key: refused")
        try world.trust()
        #expect(try world.listed().ids == ["transfer.own"], "trusted now, without touching the plugin")
        #expect(try world.listed(dev: true).ids == ["transfer.own"])
        let removed = try world.host(["trust", "remove", world.publicKey])
        #expect(removed.status == 0, "\(removed)")
        let after = try world.listed()
        #expect(after.ids.isEmpty, "no longer trusted: not listed")
        #expect(after.stderr.contains("untrusted key"), "\(after.stderr)")
    }

    @Test("tampered by one byte after signing: refused as changed after signing")
    func tampered() throws {
        let world = try World()
        try world.sign()
        try world.trust()
        var bytes = try Data(contentsOf: world.plugin)
        bytes[bytes.count / 2] ^= 0x01
        try bytes.write(to: world.plugin)
        let (ids, stderr) = try world.listed()
        #expect(ids.isEmpty)
        #expect(stderr.contains("changed after signing"), "\(stderr)")
        let described = try world.host(["describe", "transfer.own"])
        #expect(described.status != 0 && described.stderr.contains("changed after signing"), "\(described)")
    }

    @Test("--dev and RBS_DEV=1 load an unsigned plugin")
    func development() throws {
        let world = try World()
        let flag = try world.host(["describe", "transfer.own", "--dev", "--json"])
        #expect(flag.status == 0, "\(flag)")
        let environment = try world.sandbox.host(["describe", "transfer.own", "--json"], environment: ["RBS_DEV": "1"])
        #expect(environment.status == 0, "\(environment)")
    }

    @Test("a world-writable plugin or plugin folder is refused, even signed and trusted, even with --dev")
    func worldWritable() throws {
        let world = try World()
        try world.sign()
        try world.trust()
        try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: world.plugin.path)
        for dev in [false, true] {
            let result = try world.host(["describe", "transfer.own"] + (dev ? ["--dev"] : []))
            #expect(result.status != 0)
            #expect(result.stderr.contains("other users can write to the plugin file"), "\(result)")
            #expect(result.stderr.contains("chmod go-w"))
        }
        // A fresh world (the host remembers a refused file until the file changes).
        let other = try World()
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: other.folder.path)
        let folder = try other.host(["describe", "transfer.own", "--dev"])
        #expect(folder.status != 0)
        #expect(folder.stderr.contains("other users can write to the plugin folder"), "\(folder)")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: other.folder.path)
    }

    @Test("trust add refuses what is not a key")
    func notAKey() throws {
        let world = try World()
        let result = try world.host(["trust", "add", "abc"])
        #expect(result.status != 0 && result.stderr.contains("is not a public key"))
    }
}
