import Foundation
import Testing

/// The JSON contracts of `list` and `plugins`, where plugins come from, and what a bad command line does.
@Suite("Command-line contract")
struct ContractTests {
    static let operations: [[String: String]] = [
        ["id": "card.block", "title": "Block a card", "category": "Cards", "plugin": "ru.example.cards", "pluginVersion": "1.1.0"],
        ["id": "card.unblock", "title": "Unblock a card", "category": "Cards", "plugin": "ru.example.cards", "pluginVersion": "1.1.0"],
        ["id": "pay.pp.quick", "title": "Quick payment", "category": "Payments", "plugin": "ru.example.payments.quick",
         "pluginVersion": "1.0.0"],
        ["id": "topup.mobile", "title": "Mobile top-up", "category": "Payments", "plugin": "ru.example.payments.quick",
         "pluginVersion": "1.0.0"],
        ["id": "pay.pp.tax", "title": "Budget payment", "category": "Payments", "plugin": "ru.example.payments.tax",
         "pluginVersion": "1.1.0"],
        ["id": "transfer.own", "title": "Transfer between own accounts", "category": "Transfers",
         "plugin": "ru.example.transfers", "pluginVersion": "1.0.0"],
    ]

    @Test("list --json: exactly {id, title, category, plugin, pluginVersion} for each of the six operations")
    func listJSON() throws {
        let sandbox = try HostSandbox()
        let result = try sandbox.host(["list", "--json"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty)
        let array = try #require(try jsonObject(result.stdout) as? [[String: Any]])
        #expect(array.count == 6)
        for item in array {
            #expect(keys(item) == ["id", "title", "category", "plugin", "pluginVersion"])
        }
        let strings = array.map { $0.compactMapValues { $0 as? String } }
        #expect(strings == Self.operations)
    }

    @Test("plugins --json: exactly {path, id, version, abi, status, error}, all four listed (not loaded until used), error null")
    func pluginsJSON() throws {
        let sandbox = try HostSandbox()
        let result = try sandbox.host(["plugins", "--json"])
        #expect(result.status == 0, "\(result)")
        let array = try #require(try jsonObject(result.stdout) as? [[String: Any]])
        #expect(array.count == 4)
        for item in array {
            #expect(keys(item) == ["path", "id", "version", "abi", "status", "error"])
            #expect(item["status"] as? String == "listed")
            #expect(item["error"] is NSNull)
            #expect(item["abi"] as? String == "1.6.0")
            // pay.pp.tax is 1.1.0 since the single tax payment's fields 60 and 22 (issue #34); the cards plugin since
            // card.unblock and the signer's own cards (issue #29).
            #expect(item["version"] as? String == (["ru.example.payments.tax", "ru.example.cards"].contains(item["id"] as? String) ? "1.1.0" : "1.0.0"))
        }
        let byFile = Dictionary(uniqueKeysWithValues: array.map {
            (URL(fileURLWithPath: $0["path"] as? String ?? "").lastPathComponent, $0["id"] as? String ?? "")
        })
        #expect(byFile == ["card-block.so": "ru.example.cards", "pay-quick.so": "ru.example.payments.quick",
                           "pay-tax.so": "ru.example.payments.tax", "transfer-own.so": "ru.example.transfers"])
        #expect(array.allSatisfy { ($0["path"] as? String ?? "").hasPrefix(sandbox.plugins.path) })
    }

    /// A folder with a copy of one plugin.
    private func folder(with files: [String], in sandbox: HostSandbox) throws -> URL {
        let folder = sandbox.data.appendingPathComponent("plugins-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for file in files {
            try FileManager.default.copyItem(at: Repo.plugins.appendingPathComponent(file), to: folder.appendingPathComponent(file))
        }
        return folder
    }

    @Test("describe: a plugin whose create() crashes exits 1 (the worker ended the run), an unknown operation 2")
    func describeCreateCrash() throws {
        let sandbox = try HostSandbox()
        let folder = sandbox.data.appendingPathComponent("plugins-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let include = Repo.root.appendingPathComponent("SDK/Sources/CRBSPlugin/include")
        let compiled = try runProcess(URL(fileURLWithPath: "/usr/bin/env"),
                                      ["cc", "-std=c11", "-shared", "-fPIC", "-fvisibility=hidden", "-I", include.path, "-DFAULT=1", "-DWHERE=1",
                                       "-o", folder.appendingPathComponent("fault.so").path,
                                       Repo.root.appendingPathComponent("Tests/Fixtures/faults/fault.c").path],
                                      environment: ProcessInfo.processInfo.environment)
        try #require(compiled.status == 0, "cc: \(compiled)")
        let crashed = try sandbox.host(["describe", "fault.op", "--json", "--dev", "--plugins", folder.path])
        #expect(crashed.status == 1, "\(crashed)")
        #expect(crashed.stderr.contains("create()") && crashed.stderr.contains("killed by SIGSEGV"), "\(crashed)")
        let unknown = try sandbox.host(["describe", "no.such.op", "--json", "--dev", "--plugins", folder.path])
        #expect(unknown.status == 2, "\(unknown)")
    }

    @Test("--plugins DIR wins over RBS_PLUGINS; RBS_PLUGINS alone is honoured")
    func pluginFolderOverride() throws {
        let sandbox = try HostSandbox()
        let onlyCards = try folder(with: ["card-block.so"], in: sandbox)
        let onlyTransfers = try folder(with: ["transfer-own.so"], in: sandbox)

        // RBS_PLUGINS (the sandbox sets it to the full Plugins folder) is overridden by --plugins.
        let flag = try sandbox.host(["list", "--json", "--plugins", onlyCards.path])
        #expect(flag.status == 0, "\(flag)")
        let flagIds = try #require(try jsonObject(flag.stdout) as? [[String: Any]]).compactMap { $0["id"] as? String }
        #expect(flagIds == ["card.block", "card.unblock"])

        let env = try sandbox.host(["list", "--json"], environment: ["RBS_PLUGINS": onlyTransfers.path])
        #expect(env.status == 0, "\(env)")
        let envIds = try #require(try jsonObject(env.stdout) as? [[String: Any]]).compactMap { $0["id"] as? String }
        #expect(envIds == ["transfer.own"])

        let plugins = try sandbox.host(["plugins", "--json"], environment: ["RBS_PLUGINS": onlyTransfers.path])
        let paths = try #require(try jsonObject(plugins.stdout) as? [[String: Any]]).compactMap { $0["path"] as? String }
        #expect(paths == [onlyTransfers.appendingPathComponent("transfer-own.so").path])

        // An operation of a plugin not in the chosen folder is unknown there.
        let describe = try sandbox.host(["describe", "pay.pp.quick", "--json", "--plugins", onlyCards.path])
        #expect(describe.status != 0)
        #expect(describe.stdout.isEmpty)
    }

    @Test("--data DIR wins over RBS_HOME")
    func dataFolderOverride() throws {
        let sandbox = try HostSandbox()
        let other = sandbox.data.appendingPathComponent("other-home")
        let initialised = try sandbox.host(["keys", "init", "--name", "elsewhere", "--data", other.path])
        #expect(initialised.status == 0, "\(initialised)")
        #expect(FileManager.default.fileExists(atPath: other.appendingPathComponent("signing.key").path))
        #expect(!FileManager.default.fileExists(atPath: sandbox.data.appendingPathComponent("signing.key").path))
        // RBS_HOME has no keys yet; --data has.
        #expect(try sandbox.host(["keys", "show"]).status != 0)
        let show = try sandbox.host(["keys", "show", "--data", other.path])
        #expect(show.status == 0)
        #expect(show.stdout.contains("elsewhere"))
    }

    @Test("a bad command line exits non-zero with a message on standard error", arguments: [
        ["list", "--bogus"],
        ["frobnicate"],
        ["describe"],
        ["describe", "card.block", "--set", "no-equals-sign"],
        ["describe", "card.block", "--set", "=value"],
        ["run", "card.block", "--set", "reason=1"],  // no --code
        ["keys", "code", "--ahead", "many"],
        // A step count past a day overflowed the clock and trapped (SIGILL), in the REPL too.
        ["keys", "code", "--ahead", "307445734561825859"],
    ])
    func badCommandLine(_ arguments: [String]) throws {
        let sandbox = try HostSandbox()
        let result = try sandbox.host(arguments)
        #expect(result.status != 0, "\(result)")
        #expect(!result.stderr.isEmpty)
        #expect(result.stdout.isEmpty)
    }

    @Test("a folder with broken plugins lists the others, reports the broken ones, exits 0")
    func brokenPlugin() throws {
        let sandbox = try HostSandbox()
        let folder = try folder(with: ["card-block.so", "pay-quick.so"], in: sandbox)
        try Data("not a shared object".utf8).write(to: folder.appendingPathComponent("garbage.so"))
        let whole = try Data(contentsOf: Repo.plugins.appendingPathComponent("pay-tax.so"))
        try whole.prefix(4096).write(to: folder.appendingPathComponent("truncated.so"))
        try Data().write(to: folder.appendingPathComponent("empty.so"))
        sandbox.plugins = folder

        let list = try sandbox.host(["list", "--json"])
        #expect(list.status == 0, "\(list)")
        let ids = try #require(try jsonObject(list.stdout) as? [[String: Any]]).compactMap { $0["id"] as? String }
        #expect(ids == ["card.block", "card.unblock", "pay.pp.quick", "topup.mobile"])
        // One line per broken plugin on standard error, naming it; standard output stays clean JSON.
        #expect(list.stderrLines.count == 3, "\(list.stderr)")
        for name in ["garbage.so", "truncated.so", "empty.so"] {
            #expect(list.stderrLines.filter { $0.contains(name) }.count == 1, "\(name) in \(list.stderr)")
        }

        let plugins = try sandbox.host(["plugins", "--json"])
        #expect(plugins.status == 0, "\(plugins)")
        let records = try #require(try jsonObject(plugins.stdout) as? [[String: Any]])
        #expect(records.count == 5)
        for record in records {
            #expect(keys(record) == ["path", "id", "version", "abi", "status", "error"])
            let file = URL(fileURLWithPath: record["path"] as? String ?? "").lastPathComponent
            if ["garbage.so", "truncated.so", "empty.so"].contains(file) {
                #expect(record["status"] as? String == "failed", "\(record)")
                #expect(record["id"] is NSNull)
                #expect(record["version"] is NSNull)
                #expect((record["error"] as? String)?.contains(file) == true, "\(record)")
            } else {
                #expect(record["status"] as? String == "listed", "\(record)")
                #expect(record["error"] is NSNull)
            }
        }

        // The good plugins still work.
        let form = try sandbox.describe("card.block", ["cardNumber=4111111111111111"])
        #expect(form["cardNumber"].error == nil)
    }

    @Test("an empty plugin folder: list is [] and exits 0")
    func emptyFolder() throws {
        let sandbox = try HostSandbox()
        sandbox.plugins = try folder(with: [], in: sandbox)
        let list = try sandbox.host(["list", "--json"])
        #expect(list.status == 0)
        #expect((try jsonObject(list.stdout) as? [Any])?.isEmpty == true)
    }
}
