import Foundation
import Testing

/// `rbs-host plugin publish|rollout status|rollout rollback` on one host (the data folder's ledger) as a person runs
/// them: which version `run` gets, what each command prints, the JSON keys of `rollout status --json`, and every
/// refusal. Two hosts on one PostgreSQL, the automatic rollback and the open forms: Tests/Postgres/rollout.py.
@Suite("Staged rollouts from the command line")
struct PluginRolloutCommandTests {
    /// A sandbox with a trusted publisher key and transfer.own 1.1.0 packed with it.
    static func published() throws -> (HostSandbox, package: String) {
        let sandbox = try HostSandbox()
        let key = sandbox.data.appendingPathComponent("publisher.key").path
        try #require(try sandbox.host(["plugin", "keygen", key, "--name", "Example Bank"]).status == 0)
        try #require(try sandbox.host(["trust", "add", key + ".pub", "--ids", "ru.example.*"]).status == 0)
        let package = try pack(sandbox, version: "1.1.0")
        try sandbox.initKeys()
        return (sandbox, package)
    }

    /// transfer.own at `version`, packed with the sandbox's publisher key (made by ``published()``).
    static func pack(_ sandbox: HostSandbox, version: String) throws -> String {
        let key = sandbox.data.appendingPathComponent("publisher.key").path
        let source = try String(contentsOf: Repo.root.appendingPathComponent("Examples/c/transfer-own/transfer_own.c"), encoding: .utf8)
            .replacingOccurrences(of: ".version = \"1.0.0\"", with: ".version = \"\(version)\"")
        let name = "t" + version.replacingOccurrences(of: ".", with: "")
        let file = sandbox.data.appendingPathComponent("\(name).c"), object = sandbox.data.appendingPathComponent("\(name).so")
        try source.write(to: file, atomically: true, encoding: .utf8)
        let include = Repo.root.appendingPathComponent("SDK/Sources/CRBSPlugin/include")
        let compiled = try runProcess(URL(fileURLWithPath: "/usr/bin/env"),
                                      ["cc", "-std=c11", "-shared", "-fPIC", "-fvisibility=hidden", "-I", include.path,
                                       "-o", object.path, file.path], environment: ProcessInfo.processInfo.environment)
        try #require(compiled.status == 0, "cc: \(compiled)")
        let changes = sandbox.data.appendingPathComponent("CHANGES-\(name)").path
        try "\(version): a rebuild\n".write(toFile: changes, atomically: true, encoding: .utf8)
        let package = sandbox.data.appendingPathComponent("\(name).rbspkg").path
        let packed = try sandbox.host(["plugin", "pack", "--so", "\(PluginPackageCommandTests.architecture)=\(object.path)",
                                       "--key", key, "--title", "en=Own transfer", "--description", "en=Between accounts",
                                       "--changelog", changes, "-o", package])
        try #require(packed.status == 0, "\(packed)")
        return package
    }

    /// The plugin version of the document `run transfer.own` posts now.
    static func version(_ sandbox: HostSandbox, amount: String) throws -> String? {
        sandbox.step()
        let result = try sandbox.host(sandbox.runArguments("transfer.own", ["fromAccount=\(Demo.current)", "toAccount=\(Demo.savings)",
                                                                            "amount=\(amount)"], code: try sandbox.code()) + ["--json"])
        let report = try #require((try? jsonObject(result.stdout)) as? [String: Any], "\(result)")
        return (report["document"] as? [String: Any])?["pluginVersion"] as? String
    }

    @Test("publish to everyone → run gets 1.1.0 → status counts it → rollback → run gets 1.0.0 → an ended version is not published again")
    func publishStatusRollback() throws {
        let (sandbox, package) = try Self.published()
        #expect(try Self.version(sandbox, amount: "10.00") == "1.0.0")
        let status0 = try sandbox.host(["plugin", "rollout", "status"])
        #expect(status0.stdout == "nothing has been published on \(sandbox.data.appendingPathComponent("rbs.sqlite").path)\n", "\(status0)")

        let published = try sandbox.host(["plugin", "publish", package, "--percent", "100", "--minimum-runs", "3"])
        #expect(published.status == 0)
        #expect(published.stdout == "publishing ru.example.transfers 1.1.0 to 100% of customers (rolled back if more than 20% of its runs fault, after 3 runs); every host of \(sandbox.data.appendingPathComponent("rbs.sqlite").path) follows at its next sync\n", "\(published)")
        #expect(try Self.version(sandbox, amount: "11.00") == "1.1.0")

        let status = try sandbox.host(["plugin", "rollout", "status", "--json"])
        let lines = try #require((try? jsonObject(status.stdout)) as? [[String: Any]], "\(status)")
        #expect(lines.map { $0["version"] as? String } == ["1.1.0", "1.0.0"])
        #expect(Set(lines[0].keys) == ["plugin", "version", "percent", "state", "customers", "runs", "posts", "refusals", "faults",
                                       "faultThreshold", "minimumRuns", "publishedAt", "publishedBy"])
        #expect(lines[0]["faultThreshold"] as? Int == 20 && lines[0]["minimumRuns"] as? Int == 3)
        #expect(lines[1]["faultThreshold"] == nil && lines[1]["minimumRuns"] == nil)
        // The table says what would roll the rolling version back, under its counts.
        let rolling = try sandbox.host(["plugin", "rollout", "status"]).stdout.split(separator: "\n").map(String.init)
        #expect(rolling.last == "ru.example.transfers 1.1.0: rolled back if more than 20% of its runs fault, after 3 runs", "\(rolling)")
        #expect(lines[0]["state"] as? String == "rolling" && lines[0]["percent"] as? Int == 100)
        #expect(lines[0]["runs"] as? Int == 1 && lines[0]["posts"] as? Int == 1 && lines[0]["customers"] as? Int == 1)
        #expect(lines[1]["state"] as? String == "not-published" && lines[1]["posts"] as? Int == 1)

        let rolled = try sandbox.host(["plugin", "rollout", "rollback", "ru.example.transfers", "--reason", "the fee is wrong"],
                                      environment: ["USER": "ops"])
        #expect(rolled.stdout == "ru.example.transfers 1.1.0 is rolled back: every host stops offering it at its next sync\n", "\(rolled)")
        #expect(try Self.version(sandbox, amount: "12.00") == "1.0.0")
        let table = try sandbox.host(["plugin", "rollout", "status", "--lang", "ru"])
        let rows = table.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
        #expect(rows.first == "ПЛАГИН ВЕРСИЯ ДОЛЯ СОСТОЯНИЕ КЛИЕНТЫ ЗАПУСКИ ПРОВЕДЕНО ОТКАЗЫ СБОИ", "\(table)")
        #expect(rows.contains("ru.example.transfers 1.1.0 100% откачен 1 1 1 0 0"), "\(table)")
        #expect(rows.last == "ru.example.transfers 1.1.0: rolled back by ops: the fee is wrong", "\(table)")

        let again = try sandbox.host(["plugin", "publish", package, "--percent", "10"])
        #expect(again.status == 1)
        #expect(again.stderr == "error: ru.example.transfers 1.1.0 is rolled back (rolled back by ops: the fee is wrong): it is not published again — publish a new version\n")
        let nothing = try sandbox.host(["plugin", "rollout", "rollback", "ru.example.transfers"])
        #expect(nothing.status == 1)
        #expect(nothing.stderr == "error: no version of ru.example.transfers is rolling out on \(sandbox.data.appendingPathComponent("rbs.sqlite").path)\n")
    }

    @Test("a version lower than one published (rolling or superseded) is refused without --allow-downgrade; a rolled-back one is no floor")
    func noSilentDowngrade() throws {
        let (sandbox, package) = try Self.published()
        let lower = try Self.pack(sandbox, version: "1.0.5")
        #expect(try sandbox.host(["plugin", "publish", package, "--percent", "50"]).status == 0)
        let refused = try sandbox.host(["plugin", "publish", lower, "--percent", "50"])
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.stderr == "error: \(lower) is version 1.0.5 of ru.example.transfers, lower than version 1.1.0 published to "
                + "this ledger's customers or last in service here: a downgrade is refused — to roll customers back on purpose, "
                + "publish it with --allow-downgrade\n")
        let status = try sandbox.host(["plugin", "rollout", "status", "--json"])
        let rolling = ((try? jsonObject(status.stdout)) as? [[String: Any]])?.filter { $0["state"] as? String == "rolling" }
        #expect(rolling?.map { $0["version"] as? String } == ["1.1.0"], "\(status)")
        // On purpose: published, 1.1.0 superseded.
        let onPurpose = try sandbox.host(["plugin", "publish", lower, "--percent", "50", "--allow-downgrade"])
        #expect(onPurpose.status == 0, "\(onPurpose)")
        // A version rolled back (taken from customers) is no floor: the fix may be the version before it.
        let (other, newer) = try Self.published()
        #expect(try other.host(["plugin", "publish", newer, "--percent", "10"]).status == 0)
        #expect(try other.host(["plugin", "rollout", "rollback", "ru.example.transfers", "--reason", "faults"]).status == 0)
        let fix = try Self.pack(other, version: "1.0.7")
        let fixed = try other.host(["plugin", "publish", fix, "--percent", "10"])
        #expect(fixed.status == 0, "\(fixed)")
    }

    @Test("a share outside 1…100, a package that does not verify: refused before anything is published")
    func refusals() throws {
        let (sandbox, package) = try Self.published()
        let zero = try sandbox.host(["plugin", "publish", package, "--percent", "0"])
        #expect(zero.status != 0 && zero.stderr.contains("--percent 0: give 1 to 100"), "\(zero)")
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: package)))
        bytes[bytes.count / 2] ^= 0x01
        let damaged = sandbox.data.appendingPathComponent("damaged.rbspkg").path
        try Data(bytes).write(to: URL(fileURLWithPath: damaged))
        let refused = try sandbox.host(["plugin", "publish", damaged, "--percent", "10"])
        #expect(refused.status == 1 && refused.stderr.hasPrefix("error: \(damaged): its contents are not what was signed"), "\(refused)")
        let status = try sandbox.host(["plugin", "rollout", "status", "--json"])
        #expect(((try? jsonObject(status.stdout)) as? [Any])?.isEmpty == true, "\(status)")
    }
}
