import Foundation
import RBSLedger
import Testing

/// The data folder's guarantees (README, "Data folder"): a vanished or replaced ledger is refused, a damaged one is
/// said as itself, the folder and its files are private, a request id posts once, and the exit status is honest.
@Suite("Data folder")
struct DataFolderTests {
    static let transfer = ["fromAccount=\(Demo.current)", "toAccount=\(Demo.savings)", "amount=1.00"]

    /// Every command that needs the ledger, as a person would type it.
    static func ledgerCommands(_ sandbox: HostSandbox) -> [[String]] {
        [["journal"], ["verify"], ["describe", "transfer.own", "--json"],
         sandbox.runArguments("transfer.own", transfer, code: "000000")]
    }

    /// `cp -a`: the backup the README describes.
    static func copyFolder(_ from: URL, to: URL) throws {
        let result = try runProcess(URL(fileURLWithPath: "/bin/cp"), ["-a", from.path, to.path],
                                    environment: ProcessInfo.processInfo.environment)
        try #require(result.status == 0, "cp -a: \(result)")
    }

    /// Changes the core's tables with python3's sqlite3 module, as someone with the file would.
    static func tamper(_ sandbox: HostSandbox, _ sql: String) throws {
        let script = "import sqlite3, sys\ndb = sqlite3.connect(sys.argv[1])\ndb.executescript(sys.argv[2])\ndb.commit()\n"
        let result = try runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script, sandbox.database.path, sql],
                                    environment: ProcessInfo.processInfo.environment)
        try #require(result.status == 0, "python3 sqlite3: \(result)")
    }

    @Test("a deleted or truncated database with a key present is refused by every command, saying what was found and how to restore; the folder copied back is accepted")
    func vanishedLedger() throws {
        let sandbox = try HostSandbox()
        try sandbox.initKeys()
        let first = try sandbox.run("transfer.own", Self.transfer)
        #expect(first.report.status == "posted")
        let backup = FileManager.default.temporaryDirectory.appendingPathComponent("rbs-backup-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: backup) }
        try Self.copyFolder(sandbox.data, to: backup)

        for damage in ["deleted", "truncated"] {
            for suffix in ["", "-wal", "-shm"] { unlink(sandbox.database.path + suffix) }
            if damage == "truncated" {
                #expect(FileManager.default.createFile(atPath: sandbox.database.path, contents: Data(), attributes: [.posixPermissions: 0o600]))
            }
            for arguments in Self.ledgerCommands(sandbox) {
                let result = try sandbox.host(arguments)
                let said = result.stderr + result.stdout
                #expect(result.status != 0, "\(damage), \(arguments[0]): \(result)")
                #expect(said.contains("history is missing"), "\(damage), \(arguments[0]): \(result)")
                #expect(said.contains(damage == "deleted" ? "rbs.sqlite is missing" : "rbs.sqlite is empty (0 bytes)"), "\(result)")
                #expect(said.contains("ledger-tip records ledger") && said.contains("journal entry 1"), "\(result)")
                #expect(said.contains("Restore the data folder") && said.contains("rbs-host init --force"), "\(result)")
            }
            // Nothing was created in its place.
            #expect(!FileManager.default.fileExists(atPath: sandbox.database.path) || damage == "truncated")

            // The backup of the whole folder, copied back, is this ledger again.
            try FileManager.default.removeItem(at: sandbox.data)
            try Self.copyFolder(backup, to: sandbox.data)
            let verified = try sandbox.host(["verify"])
            #expect(verified.status == 0 && verified.stdout == "ok 1 entry\n", "after restoring: \(verified)")
        }
        // Keys without a ledger and without a tip record: still refused (a key says documents were signed).
        for name in ["rbs.sqlite", "rbs.sqlite-wal", "rbs.sqlite-shm", "ledger-tip"] {
            unlink(sandbox.data.appendingPathComponent(name).path)
        }
        let keysOnly = try sandbox.host(["journal"])
        #expect(keysOnly.status != 0 && keysOnly.stderr.contains("a signing key exists"), "\(keysOnly)")
        #expect(try sandbox.host(["init"]).status != 0, "plain init must not start a ledger over a key's history")
    }

    @Test("another ledger or an older copy is refused; init --force adopts it and keeps the used code and the lock-out")
    func replacedLedger() throws {
        let sandbox = try HostSandbox()
        try sandbox.initKeys()
        #expect(try sandbox.run("transfer.own", Self.transfer).report.status == "posted")
        let older = FileManager.default.temporaryDirectory.appendingPathComponent("rbs-older-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: older) }
        try Self.copyFolder(sandbox.data, to: older)
        sandbox.step()
        let usedCode = try sandbox.code()
        #expect(try sandbox.run("transfer.own", Self.transfer, code: usedCode).report.status == "posted")

        // Only the database put back from the older copy: entry 2 is missing.
        for suffix in ["", "-wal", "-shm"] {
            unlink(sandbox.database.path + suffix)
            let copy = older.appendingPathComponent("rbs.sqlite" + suffix)
            if FileManager.default.fileExists(atPath: copy.path) {
                try FileManager.default.copyItem(at: copy, to: URL(fileURLWithPath: sandbox.database.path + suffix))
            }
        }
        let stale = try sandbox.host(["verify"])
        #expect(stale.status != 0 && stale.stderr.contains("ends at journal entry 1") && stale.stderr.contains("2–2 are missing"), "\(stale)")

        // Another ledger altogether (a fresh folder's database) is refused as such.
        let other = try HostSandbox()
        for suffix in ["", "-wal", "-shm"] {
            unlink(sandbox.database.path + suffix)
            let copy = URL(fileURLWithPath: other.database.path + suffix)
            if FileManager.default.fileExists(atPath: copy.path) {
                try FileManager.default.copyItem(at: copy, to: URL(fileURLWithPath: sandbox.database.path + suffix))
            }
        }
        let foreign = try sandbox.host(["journal"])
        #expect(foreign.status != 0 && foreign.stderr.contains("is another ledger"), "\(foreign)")

        // Deliberately accepted: the database as it is; what the record knew beyond it is given up.
        let adopted = try sandbox.host(["init", "--force"])
        #expect(adopted.status == 0 && adopted.stdout.contains("adopted") && adopted.stdout.contains("is given up"), "\(adopted)")
        #expect(try sandbox.host(["verify"]).stdout == "ok 0 entries\n")
        // The code used before is still used: the record carried it over.
        let replay = try sandbox.run("transfer.own", Self.transfer, code: usedCode)
        #expect(replay.report.status == "invalid" && replay.report.errors.contains { $0.message.contains("already used") },
                "\(replay.report.errors)")

        // A lock-out survives a wiped database and init --force.
        for _ in 0..<5 { _ = try sandbox.host(sandbox.runArguments("transfer.own", Self.transfer, code: "000000")) }
        for suffix in ["", "-wal", "-shm"] { unlink(sandbox.database.path + suffix) }
        let restarted = try sandbox.host(["init", "--force"])
        #expect(restarted.status == 0 && restarted.stdout.contains("created a new ledger"), "\(restarted)")
        let locked = try sandbox.run("transfer.own", Self.transfer)
        #expect(locked.report.status == "invalid" && locked.report.errors.contains { $0.message.contains("locked") },
                "\(locked.report.errors)")
    }

    @Test("a damaged database is said as itself by every command, with a non-zero exit")
    func damagedDatabase() throws {
        let sandbox = try HostSandbox()
        try sandbox.initKeys()
        #expect(try sandbox.run("transfer.own", Self.transfer).report.status == "posted")
        #expect(try sandbox.host(["verify"]).status == 0)  // checkpoints the WAL into the file
        var bytes = try Data(contentsOf: sandbox.database)
        for i in 4096..<bytes.count { bytes[i] = 0xA5 }
        try bytes.write(to: sandbox.database)
        for arguments in Self.ledgerCommands(sandbox) {
            let result = try sandbox.host(arguments)
            #expect(result.status != 0, "\(arguments[0]): \(result)")
            #expect((result.stderr + result.stdout).contains("is damaged or is not an rbs-host database"), "\(arguments[0]): \(result)")
            #expect(!(result.stderr + result.stdout).contains("no account can be chosen"), "\(arguments[0]): \(result)")
        }
    }

    @Test("a data folder others can use, or a file of it others can read, is refused with the chmod to run")
    func openFolder() throws {
        let sandbox = try HostSandbox()
        chmod(sandbox.data.path, 0o777)
        for arguments in [["list"], ["journal"], ["trust", "list"]] {
            let result = try sandbox.host(arguments)
            #expect(result.status != 0, "\(arguments): \(result)")
            #expect(result.stderr.contains("has mode 777") && result.stderr.contains("chmod 700 \(sandbox.data.path)"), "\(result)")
        }
        chmod(sandbox.data.path, 0o700)
        chmod(sandbox.database.path, 0o644)
        let file = try sandbox.host(["journal"])
        #expect(file.status != 0 && file.stderr.contains("chmod 600 \(sandbox.database.path)"), "\(file)")
        chmod(sandbox.database.path, 0o600)
        #expect(try sandbox.host(["journal"]).status == 0)
        #expect(try sandbox.host(["list"]).status == 0)  // scans the plugins: writes the plugin cache
        // What the host writes is private whatever the umask: the database, its tip record and the plugin cache.
        for name in ["rbs.sqlite", "ledger-tip", "plugin-cache.bin"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: sandbox.data.appendingPathComponent(name).path)
            #expect((attributes[.posixPermissions] as? Int) == 0o600, "\(name)")
        }
    }

    @Test("a trusted-keys file owned by another user is refused, naming the owner and the chown")
    func foreignTrustedKeys() throws {
        guard geteuid() == 0 else {
            Issue.record("this test needs root to make a file owned by another user (useradd, chown); the suite runs as uid \(geteuid()) — run make test as root")
            return
        }
        let name = "rbs-foreign-test"
        if getpwnam(name) == nil {
            let added = try runProcess(URL(fileURLWithPath: "/usr/sbin/useradd"), ["--no-create-home", "--shell", "/usr/sbin/nologin", name],
                                       environment: ProcessInfo.processInfo.environment)
            try #require(added.status == 0 || getpwnam(name) != nil, "useradd \(name) failed, so a foreign owner cannot be tested: \(added)")
        }
        let uid = try #require(getpwnam(name)).pointee.pw_uid
        let sandbox = try HostSandbox()
        let keys = sandbox.data.appendingPathComponent("trusted-keys")
        try "\(String(repeating: "ab", count: 32)) attacker\n".write(to: keys, atomically: true, encoding: .utf8)
        chmod(keys.path, 0o600)
        try #require(chown(keys.path, uid, getegid()) == 0, "chown failed")
        for arguments in [["trust", "list"], ["list"]] {
            let result = try sandbox.host(arguments)
            #expect(result.status != 0, "\(arguments): \(result)")
            #expect(result.stderr.contains("trusted-keys is owned by uid \(uid) (\(name)), not by uid 0 (root)"), "\(result)")
            #expect(result.stderr.contains("chown root \(keys.path)"), "\(result)")
        }
    }

    @Test("verify reconciles: a balance that does not match the postings, or a posting without its entry, is named")
    func reconciliation() throws {
        let sandbox = try HostSandbox()
        try sandbox.initKeys()
        #expect(try sandbox.run("transfer.own", Self.transfer).report.status == "posted")
        #expect(try sandbox.host(["verify"]).stdout == "ok 1 entry\n")
        try Self.tamper(sandbox, "UPDATE accounts SET balance = '149999.50' WHERE number = '\(Demo.current)'")
        let balance = try sandbox.host(["verify"])
        #expect(balance.status == 1, "\(balance)")
        #expect(balance.stdout.contains("does not reconcile: account \(Demo.current) holds 149999.50 RUB, but its opening balance 150000.00 plus its postings give 149999.00 RUB"), "\(balance)")
        try Self.tamper(sandbox, """
            UPDATE accounts SET balance = '149999.00' WHERE number = '\(Demo.current)';
            INSERT INTO postings (document_id, debit, credit, amount, currency, time_ms, journal_seq)
                VALUES ('forged', '\(Demo.savings)', '\(Demo.current)', '0.00', 'RUB', 0, 7);
            """)
        let orphan = try sandbox.host(["verify"])
        #expect(orphan.status == 1 && orphan.stdout.contains("names journal entry 7, which is not a posted entry"), "\(orphan)")
    }

    @Test("exit(0) inside a plugin loaded in the host's process (--isolation none) during run --json: a non-zero exit and one line saying so")
    func exitInPlugin() throws {
        let sandbox = try HostSandbox()
        try sandbox.initKeys()
        let folder = try CheckFixtures.folder(in: sandbox, "exit-plugin")
        try CheckFixtures.build("exit_in_value_changed", into: folder)
        sandbox.plugins = folder
        // In a worker (the default) the plugin's exit ends only the worker; in the host's own process it must not end
        // `run` with status 0.
        let result = try sandbox.host(["run", "check.exit", "--set", "name=x", "--set", "amount=1", "--code", "123456", "--json",
                                       "--isolation", "none"])
        #expect(!result.signalled && result.status == 70, "\(result)")
        #expect(result.stderr.contains("was told to exit while `run` was still running"), "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
    }

    @Test("run --request-id killed at random moments 100 times and retried: every document posted exactly once")
    func requestIdRetries() throws {
        let sandbox = try HostSandbox()
        try sandbox.initKeys()
        let secret = try Data(contentsOf: sandbox.data.appendingPathComponent("totp.secret"))
        func code() -> String { TOTP.code(secret: secret, at: Date(timeIntervalSince1970: Double(sandbox.clock))) }
        var generator = SeededGenerator(seed: 0x0EC0_DE19)
        // How long a run takes now (the second one: the first scans the plugins).
        var runMilliseconds = 40
        for index in 0..<2 {
            sandbox.step()
            let began = DispatchTime.now()
            let warm = try sandbox.host(sandbox.runArguments("transfer.own", Self.transfer, code: code()) + ["--request-id", "warm-\(index)"])
            #expect(warm.status == 0, "\(warm)")
            runMilliseconds = max(20, Int((DispatchTime.now().uptimeNanoseconds - began.uptimeNanoseconds) / 1_000_000))
        }
        let iterations = 100
        var killed = 0, killedAfterCommit = 0
        var documents: [String: String] = [:]
        for iteration in 0..<iterations {
            let request = "pay-\(iteration)"
            sandbox.step()
            let startedAt = sandbox.clock
            // Every fourth run pauses after its commit (a debug-build hook), so some kills land exactly there.
            let pause = iteration % 4 == 0
            var environment = sandbox.environment()
            if pause { environment["RBS_PAUSE_AFTER_COMMIT_MS"] = "300" }
            let child = try ChildProcess(Repo.binary, sandbox.runArguments("transfer.own", Self.transfer, code: code()) + ["--request-id", request],
                                         environment: environment)
            // Within three quarters of a measured run, so most runs are cut (a bound equal to the expected number of
            // kills failed half the time under load).
            let delay = Int.random(in: 1...max(2, runMilliseconds * 3 / 4), using: &generator) + (pause ? runMilliseconds : 0)
            if !child.wait(until: .now() + .milliseconds(delay)) { child.killNow() }
            let first = child.finish()
            try #require(!first.timedOut, "iteration \(iteration): a run hung: \(first)")
            if first.signalled { killed += 1 }

            // The retry: a fresh code, the same request id, until it reports.
            sandbox.step()
            let retry = try sandbox.host(sandbox.runArguments("transfer.own", Self.transfer, code: code()) + ["--request-id", request])
            let report = try decode(RunJSON.self, retry.stdout)
            #expect(retry.status == 0 && report.status == "posted", "iteration \(iteration): \(retry)")
            let document = try #require(report.document, "iteration \(iteration)")
            documents[request] = document.id
            // The document was made by the killed run when its time is the killed run's clock.
            if first.signalled, document.createdAt == ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(startedAt))) {
                killedAfterCommit += 1
            }
            if !first.signalled {
                let said = try decode(RunJSON.self, first.stdout)
                #expect(said.document?.id == document.id, "iteration \(iteration): the first run and its retry name different documents")
            }
        }
        #expect(killed >= iterations / 3, "only \(killed) of \(iterations) runs were killed")
        #expect(killedAfterCommit >= 1, "no run was killed after its commit (\(killed) kills)")

        // Exactly one journal entry per request, no other entries, and the core reconciles.
        let journal = try sandbox.journal()
        #expect(journal.count == iterations + 2, "\(journal.count) entries for \(iterations + 2) requests")
        #expect(Set(journal.map(\.documentId)).count == journal.count)
        #expect(Set(documents.values).isSubset(of: Set(journal.map(\.documentId))))
        #expect(journal.allSatisfy { $0.kind == "posted" })
        let verified = try sandbox.host(["verify"])
        #expect(verified.status == 0, "\(verified)")
        for (request, document) in documents.prefix(3) {
            let answer = try sandbox.host(["journal", "--request-id", request, "--json"])
            let answered = try decode(RunJSON.self, answer.stdout)
            #expect(answer.status == 0 && answered.document?.id == document, "\(answer)")
        }
        let unknown = try sandbox.host(["journal", "--request-id", "never-sent", "--json"])
        let unknownReport = try decode(RunJSON.self, unknown.stdout)
        #expect(unknown.status == 1 && unknownReport.status == "unknown", "\(unknown)")
    }
}
