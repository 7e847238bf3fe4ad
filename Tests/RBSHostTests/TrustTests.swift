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

    // MARK: - Scope, term and revocation (issue #32 item 2)

    @Test("a key trusted for other ids refuses the plugin, naming its ids; trusted again for the plugin's prefix, it loads")
    func scopedKey() throws {
        let world = try World()
        try world.sign()
        let added = try world.host(["trust", "add", world.key.path + ".pub", "--ids", "ru.mybank.*,ru.other.payment"])
        #expect(added.status == 0 && added.stdout == "trusted \(world.publicKey) (Tests): for ru.mybank.*, ru.other.payment, no expiry\n",
                "\(added)")
        let (refusedIDs, stderr) = try world.listed()
        #expect(refusedIDs.isEmpty)
        #expect(stderr.contains("\(world.plugin.path): signed by \(world.publicKey), which is trusted only for ru.mybank.*, ru.other.payment, not for 'ru.example.transfers'"),
                "\(stderr)")
        let run = try world.host(["describe", "transfer.own"])
        #expect(run.status != 0 && run.stderr.contains("not for 'ru.example.transfers'"), "\(run)")

        let widened = try world.host(["trust", "add", world.publicKey, "--ids", "ru.example.*"])
        #expect(widened.stdout == "updated \(world.publicKey): for ru.example.*, no expiry\n", "\(widened)")
        #expect(try world.listed().ids == ["transfer.own"])
        let json = try world.host(["trust", "list", "--json"])
        let entries = try #require(try jsonObject(json.stdout) as? [[String: Any]])
        #expect(entries.first?["ids"] as? [String] == ["ru.example.*"] && entries.first?["expires"] == nil, "\(json.stdout)")
        // `*` is every id again: the key reads as an unscoped one.
        let every = try world.host(["trust", "add", world.publicKey, "--ids", "*"])
        #expect(every.stdout == "updated \(world.publicKey): for every plugin id, no expiry\n", "\(every)")
    }

    @Test("trust add --ids refuses what is not an id pattern, naming it and the three shapes, and trusts nothing")
    func badIDPatterns() throws {
        let world = try World()
        for bad in ["ru..x", "ru.*.x", "*.ru", "ru.mybank*", "ru/x", ".ru", "ru.", "ру.банк"] {
            let result = try world.host(["trust", "add", world.publicKey, "--ids", bad])
            #expect(result.status == 1 && result.stderr == "error: '\(bad)' is not a plugin id pattern — give an id (ru.mybank.topup), every id under a prefix (ru.mybank.*), or * for every id\n",
                    "\(bad): \(result)")
        }
        let listed = try world.host(["trust", "list", "--json"])
        #expect((try jsonObject(listed.stdout) as? [Any])?.isEmpty == true, "nothing was trusted by a refused add: \(listed)")
    }

    @Test("a key past its last day refuses its plugins and lists as expired; --expires never lifts the term")
    func expiredKey() throws {
        let world = try World()
        try world.sign()
        let added = try world.host(["trust", "add", world.key.path + ".pub", "--expires", "2020-01-31"])
        #expect(added.stdout == "trusted \(world.publicKey) (Tests): for every plugin id, until 2020-01-31 (UTC)\n", "\(added)")
        let (ids, stderr) = try world.listed()
        #expect(ids.isEmpty)
        #expect(stderr.contains("signed by \(world.publicKey), whose trust ended after 2020-01-31 (UTC) — if you still trust its publisher, extend it with `rbs-host trust add \(world.publicKey) --expires YYYY-MM-DD`"),
                "\(stderr)")
        let table = try world.host(["trust", "list"])
        let row = try #require(table.stdout.split(separator: "\n").first { $0.hasPrefix(world.publicKey) })
        #expect(row.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
                    == [world.publicKey, "Tests", "*", "2020-01-31", "expired"], "\(table.stdout)")
        for bad in ["31.01.2027", "2027-02-30", "tomorrow"] {
            let refused = try world.host(["trust", "add", world.publicKey, "--expires", bad])
            #expect(refused.status == 1 && refused.stderr.hasPrefix("error: --expires '\(bad)': ")
                        && refused.stderr.hasSuffix("— give the last day the key is trusted as YYYY-MM-DD (UTC), or never\n"), "\(refused)")
        }
        let future = try world.host(["trust", "add", world.publicKey, "--expires", "2999-12-31"])
        #expect(future.stdout == "updated \(world.publicKey): for every plugin id, until 2999-12-31 (UTC)\n", "\(future)")
        #expect(try world.listed().ids == ["transfer.own"])
        let lifted = try world.host(["trust", "add", world.publicKey, "--expires", "never"])
        #expect(lifted.stdout == "updated \(world.publicKey): for every plugin id, no expiry\n", "\(lifted)")
    }

    @Test("a revoked key: its plugins are refused with the reason, it stays listed, and trust add and remove refuse it")
    func revokedKey() throws {
        let world = try World()
        try world.sign()
        try world.trust()
        #expect(try world.listed().ids == ["transfer.own"])
        let revoked = try world.host(["trust", "revoke", "Tests", "--reason", "key leaked; see ticket 42"])
        #expect(revoked.status == 0 && revoked.stdout == "revoked \(world.publicKey) (Tests): its plugins are refused from their next load\n",
                "\(revoked)")
        let (ids, stderr) = try world.listed()
        #expect(ids.isEmpty)
        let today = ISO8601DateFormatter.string(from: Date(), timeZone: .gmt, formatOptions: [.withFullDate])
        #expect(stderr.contains("signed by \(world.publicKey), revoked on \(today) (key leaked; see ticket 42): nothing it signed is loaded"),
                "\(stderr)")
        let again = try world.host(["trust", "revoke", world.publicKey])
        #expect(again.stdout == "\(world.publicKey) was revoked already on \(today)\n", "\(again)")
        let added = try world.host(["trust", "add", world.key.path + ".pub"])
        #expect(added.status == 1 && added.stderr.hasPrefix("error: \(world.publicKey) was revoked on \(today) (key leaked; see ticket 42): a revoked key is never trusted again"),
                "\(added)")
        let removed = try world.host(["trust", "remove", world.publicKey])
        #expect(removed.status == 1 && removed.stderr.contains("is revoked: it stays listed"), "\(removed)")
        let json = try world.host(["trust", "list", "--json"])
        let entries = try #require(try jsonObject(json.stdout) as? [[String: Any]])
        #expect(entries.count == 1 && entries[0]["revoked"] as? String == today
                    && entries[0]["revokedReason"] as? String == "key leaked; see ticket 42", "\(json.stdout)")
        // The reason survives the file (percent-encoded there), and the file reads back.
        let file = try String(contentsOf: world.sandbox.data.appendingPathComponent("trusted-keys"), encoding: .utf8)
        #expect(file.contains("\(world.publicKey) revoked=\(today) reason=key%20leaked;%20see%20ticket%2042 Tests\n"), "\(file)")
    }

    @Test("a key never trusted here can be revoked ahead: a later trust add is refused")
    func revokedAhead() throws {
        let world = try World()
        let revoked = try world.host(["trust", "revoke", world.key.path + ".pub"])
        #expect(revoked.status == 0 && revoked.stdout.hasPrefix("revoked \(world.publicKey) (Tests)"), "\(revoked)")
        let added = try world.host(["trust", "add", world.publicKey])
        #expect(added.status == 1 && added.stderr.contains("a revoked key is never trusted again"), "\(added)")
        let unknown = try world.host(["trust", "revoke", "nobody"])
        #expect(unknown.status == 1 && unknown.stderr.contains("'nobody' is not a public key"), "\(unknown)")
    }

    @Test("trusted-keys lines: an old '<hex> name' line reads as before; a bad ids= or expires= names the file and line")
    func trustedKeysLines() throws {
        let world = try World()
        try world.sign()
        let file = world.sandbox.data.appendingPathComponent("trusted-keys")
        func write(_ text: String) throws {
            try text.write(to: file, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        }
        try write("# old\n\(world.publicKey) Old Publisher Name\n")
        #expect(try world.listed().ids == ["transfer.own"])
        let json = try world.host(["trust", "list", "--json"])
        let entries = try #require(try jsonObject(json.stdout) as? [[String: Any]])
        #expect(entries.first?["name"] as? String == "Old Publisher Name" && entries.first?["ids"] as? [String] == [])
        for (line, reason) in [("ids=ru..x", "'ru..x' is not a plugin id pattern"),
                               ("expires=2027-13-01", "expires=2027-13-01 is not a day (YYYY-MM-DD)")] {
            try write("# damaged\n\(world.publicKey) \(line) Name\n")
            let listed = try world.host(["trust", "list"])
            #expect(listed.status == 1 && listed.stderr.hasPrefix("error: \(file.path):2: \(reason)"), "\(line): \(listed)")
            let (ids, stderr) = try world.listed()
            #expect(ids.isEmpty && stderr.contains("cannot read the trusted keys"), "\(line): \(stderr)")
        }
    }
}
