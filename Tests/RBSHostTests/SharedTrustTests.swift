import Foundation
@testable import RBSLedger
import Testing

/// The server `RBS_TEST_POSTGRES` names (make test starts one with Tests/Postgres/cluster.sh), or nil.
private let testServer: PostgresAddress? = ProcessInfo.processInfo.environment["RBS_TEST_POSTGRES"]
    .flatMap { $0.isEmpty ? nil : try? PostgresAddress.parse($0) }

/// Plugin trust shared through the database (issue #17): with `--database postgres://…` the trusted publisher keys
/// are the database's, so a key trusted or withdrawn on one host is what every other host loads plugins against.
@Suite("Plugin trust shared by hosts of one database",
       .enabled(if: testServer != nil, "RBS_TEST_POSTGRES is not set: no PostgreSQL server for this suite (make test starts one with Tests/Postgres/cluster.sh)"))
final class SharedTrustTests {
    let server: PostgresAddress
    let database: PostgresAddress
    /// Two hosts: their own data folders, the same plugin folder (a signed copy of transfer-own.so).
    let first: HostSandbox
    let second: HostSandbox
    let plugin: URL
    let key: URL
    let publicKey: String

    init() throws {
        server = try #require(testServer)
        var database = server
        database.database = "rbs_trust_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        self.database = database
        try PostgresStore.administer("CREATE DATABASE \(database.database)", at: server)
        first = try HostSandbox()
        second = try HostSandbox()
        // Hosts of the shared database: their data folders keep no ledger of their own (a folder bound to its own
        // SQLite ledger is refused with another database, rightly).
        for host in [first, second] {
            for file in ["rbs.sqlite", "rbs.sqlite-wal", "rbs.sqlite-shm", "ledger-tip"] {
                try? FileManager.default.removeItem(at: host.data.appendingPathComponent(file))
            }
        }
        let folder = try CheckFixtures.folder(in: first, "plugins")
        plugin = folder.appendingPathComponent("transfer-own.so")
        try FileManager.default.copyItem(at: Repo.plugins.appendingPathComponent("transfer-own.so"), to: plugin)
        first.plugins = folder
        second.plugins = folder
        key = first.data.appendingPathComponent("publisher.key")
        let made = try first.host(["plugin", "keygen", key.path, "--name", "Shared"], environment: ["RBS_DEV": nil])
        try #require(made.status == 0, "keygen: \(made)")
        publicKey = made.stdout.split(separator: "\n").first { $0.hasPrefix("public key ") }
            .map { String($0.dropFirst("public key ".count)) } ?? ""
        let signed = try first.host(["plugin", "sign", plugin.path, "--key", key.path], environment: ["RBS_DEV": nil])
        try #require(signed.status == 0, "sign: \(signed)")
        let migrated = try first.host(["db", "migrate", "--database", url], environment: ["RBS_DEV": nil])
        try #require(migrated.status == 0, "db migrate: \(migrated)")
    }

    deinit {
        try? PostgresStore.administer("DROP DATABASE IF EXISTS \(database.database) WITH (FORCE)", at: server)
    }

    /// The shared database's address, password included, as an operator passes it.
    var url: String {
        "postgres://\(database.user):\(database.password ?? "")@\(database.host):\(database.port)/\(database.database)"
    }

    /// `rbs-host ARGS --database URL` on `host`, signatures required.
    func shared(_ host: HostSandbox, _ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> ProcessResult {
        try host.host(arguments + ["--database", url], environment: ["RBS_DEV": nil], sourceLocation: sourceLocation)
    }

    /// The operations `list --json` offers on `host` with the shared database, and its standard error.
    func listed(on host: HostSandbox) throws -> (ids: [String], stderr: String) {
        let result = try shared(host, ["list", "--json"])
        #expect(result.status == 0, "\(result)")
        let array = (try? jsonObject(result.stdout) as? [[String: Any]]) ?? []
        return (array.compactMap { $0["id"] as? String }, result.stderr)
    }

    @Test("a key trusted on one host loads the plugin on another (scanned in a child that reads the same database); removed there, refused here")
    func trustedOnOneHostLoadsOnAnother() throws {
        let before = try listed(on: second)
        #expect(before.ids.isEmpty)
        #expect(before.stderr.contains("signed by an untrusted key \(publicKey)"), "\(before.stderr)")
        #expect(before.stderr.contains("run `rbs-host trust add \(publicKey)` with this host's --database (the shared database's keys are every host's)"),
                "\(before.stderr)")

        let added = try shared(first, ["trust", "add", key.path + ".pub"])
        #expect(added.status == 0 && added.stdout == "trusted \(publicKey) (Shared)\n", "\(added)")
        // The second host's first scan runs in a child process: it too must check the database's keys.
        let after = try listed(on: second)
        #expect(after.ids == ["transfer.own"], "\(after.stderr)")
        #expect(after.stderr.isEmpty, "\(after.stderr)")
        let described = try shared(second, ["describe", "transfer.own", "--json"])
        #expect(described.status == 0, "\(described)")

        // The shared list, and the second host's own file, which is not what it loads against.
        let list = try shared(second, ["trust", "list"])
        #expect(list.stdout.hasPrefix("Trusted publisher keys in postgres://\(database.user)@\(database.host):\(database.port)/\(database.database) (table trusted_keys), shared by every host using it:\n"), "\(list)")
        #expect(list.stdout.contains("\(publicKey)  Shared"), "\(list)")
        #expect(!list.stdout.contains("rbs-test"), "the password is never printed: \(list)")
        let json = try shared(second, ["trust", "list", "--json"])
        let entries = try #require(try jsonObject(json.stdout) as? [[String: Any]])
        #expect(entries.count == 1 && entries.first?["key"] as? String == publicKey && entries.first?["name"] as? String == "Shared")
        let local = try second.host(["trust", "list", "--json"], environment: ["RBS_DEV": nil])
        #expect(local.status == 0 && !local.stdout.contains(publicKey), "the data folder's own file is separate: \(local)")
        let again = try shared(second, ["trust", "add", publicKey, "--name", "Shared"])
        #expect(again.stdout == "already trusted \(publicKey)\n", "\(again)")

        let removed = try shared(second, ["trust", "remove", "Shared"])
        #expect(removed.status == 0 && removed.stdout == "removed \(publicKey) (Shared)\n", "\(removed)")
        let refused = try listed(on: first)
        #expect(refused.ids.isEmpty, "withdrawn on the other host: refused here too")
        #expect(refused.stderr.contains("signed by an untrusted key \(publicKey)"), "\(refused.stderr)")
        let describedAgain = try shared(first, ["describe", "transfer.own"])
        #expect(describedAgain.status != 0 && describedAgain.stderr.contains("untrusted key"), "\(describedAgain)")
        let missing = try shared(first, ["trust", "remove", "Shared"])
        #expect(missing.status == 1 && missing.stderr.contains("'Shared' is not a trusted key"), "\(missing)")
    }

    @Test("a scope set and a key revoked on one host are what another host loads against; the revocation stays listed")
    func scopeAndRevocationAreShared() throws {
        let added = try shared(first, ["trust", "add", key.path + ".pub", "--ids", "ru.mybank.*"])
        #expect(added.status == 0 && added.stdout == "trusted \(publicKey) (Shared): for ru.mybank.*, no expiry\n", "\(added)")
        let scoped = try listed(on: second)
        #expect(scoped.ids.isEmpty && scoped.stderr.contains("which is trusted only for ru.mybank.*, not for 'ru.example.transfers'"),
                "\(scoped.stderr)")
        let widened = try shared(second, ["trust", "add", publicKey, "--ids", "ru.example.*", "--expires", "2999-12-31"])
        #expect(widened.stdout == "updated \(publicKey): for ru.example.*, until 2999-12-31 (UTC)\n", "\(widened)")
        #expect(try listed(on: first).ids == ["transfer.own"])

        let revoked = try shared(first, ["trust", "revoke", "Shared", "--reason", "leaked"])
        #expect(revoked.status == 0 && revoked.stdout == "revoked \(publicKey) (Shared): its plugins are refused from their next load\n",
                "\(revoked)")
        let refused = try listed(on: second)
        #expect(refused.ids.isEmpty && refused.stderr.contains("signed by \(publicKey), revoked on ") && refused.stderr.contains("(leaked)"),
                "\(refused.stderr)")
        let json = try shared(second, ["trust", "list", "--json"])
        let entries = try #require(try jsonObject(json.stdout) as? [[String: Any]])
        #expect(entries.count == 1 && entries[0]["revokedReason"] as? String == "leaked" && entries[0]["revoked"] is String
                    && entries[0]["ids"] as? [String] == ["ru.example.*"] && entries[0]["expires"] as? String == "2999-12-31",
                "\(json.stdout)")
        let readded = try shared(second, ["trust", "add", publicKey])
        #expect(readded.status == 1 && readded.stderr.contains("a revoked key is never trusted again"), "\(readded)")
        let removed = try shared(second, ["trust", "remove", publicKey])
        #expect(removed.status == 1 && removed.stderr.contains("is revoked: it stays listed"), "\(removed)")
    }

    @Test("keys in the data folder's file are not read with a shared database, and trust list says so")
    func localFileIsNotRead() throws {
        let trusted = try first.host(["trust", "add", key.path + ".pub"], environment: ["RBS_DEV": nil])
        try #require(trusted.status == 0, "\(trusted)")
        #expect(try first.host(["list", "--json"], environment: ["RBS_DEV": nil]).stdout.contains("transfer.own"))
        let shared = try listed(on: first)
        #expect(shared.ids.isEmpty, "the shared database trusts no key yet")
        let list = try self.shared(first, ["trust", "list"])
        #expect(list.stdout.contains("No trusted publisher keys."), "\(list)")
        #expect(list.stderr.contains("trusted-keys (1 key) is not read while the ledger is in a shared database"), "\(list)")
    }

    @Test("an unreachable server, a refused login and a database without the ledger are named, with what to do")
    func failuresAreNamed() throws {
        let unreachable = try first.host(["trust", "list", "--database", "postgres://rbs:secret@127.0.0.1:1/bank"],
                                         environment: ["RBS_DEV": nil])
        #expect(unreachable.status == 1)
        #expect(unreachable.stderr.contains("cannot reach PostgreSQL at 127.0.0.1:1"), "\(unreachable)")
        #expect(!unreachable.stderr.contains("secret"))
        let login = try first.host(["trust", "add", publicKey, "--database",
                                    "postgres://\(database.user):wrong-password@\(database.host):\(database.port)/\(database.database)"],
                                   environment: ["RBS_DEV": nil])
        #expect(login.status == 1 && login.stderr.contains("refused the login"), "\(login)")
        #expect(!login.stderr.contains("wrong-password"))

        var empty = server
        empty.database = "rbs_trust_empty_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(8)
        try PostgresStore.administer("CREATE DATABASE \(empty.database)", at: server)
        defer { try? PostgresStore.administer("DROP DATABASE IF EXISTS \(empty.database) WITH (FORCE)", at: server) }
        let bare = try first.host(["trust", "add", publicKey, "--database",
                                   "postgres://\(empty.user):\(empty.password ?? "")@\(empty.host):\(empty.port)/\(empty.database)"],
                                  environment: ["RBS_DEV": nil])
        #expect(bare.status == 1)
        #expect(bare.stderr.contains("holds no ledger tables yet") && bare.stderr.contains("rbs-host db migrate --database"), "\(bare)")
    }
}
