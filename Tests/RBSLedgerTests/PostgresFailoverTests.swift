import Foundation
import RBSMoney
import Synchronization
import Testing
@testable import RBSLedger

/// Issue 30 item 4 at the ledger's level: a primary with a synchronous standby of the test's own (made by
/// Tests/Postgres/cluster.sh from the cluster `make test` started), one host given both servers, payments going
/// through PostgreSQL's one-call writes while the primary crashes and the standby is promoted. What
/// `concurrent_hosts.py --failover` checks through three serving hosts under a timed load, checked here without a
/// throughput bound, so a loaded machine cannot fail it for being slow.
@Suite("PostgreSQL: failover to a synchronous standby",
       .enabled(if: TestDatabase.server != nil && FailoverPair.clusterScript != nil, TestDatabase.skipReason),
       .enabled(if: TestEngine.current == .sqlite, FailoverPair.secondPassReason))
struct PostgresFailoverTests {
    @Test("every payment acknowledged before the primary crashed is on the promoted standby once; the host follows the promotion, and each payment retried with its request id across the outage is journaled once")
    func acknowledgedPaymentsSurviveFailover() throws {
        let pair = try FailoverPair()
        defer { pair.stop() }
        let (ledger, clock, secret) = try pair.ledger()
        defer { try? ledger.close() }
        let account = CoreTests.current
        let opening = try #require(try ledger.bank.account(number: account)?.balance.amount)

        // One client posting payments one after another, each under its request id; an attempt that gets no answer
        // (the server is gone, or not yet promoted) is retried with the same document and request id.
        let crashAfter = 4, afterPromotion = 4
        let acknowledged = Acknowledgements()
        let promoted = Atomic<Bool>(false)
        let failures = Failures()
        let finished = DispatchSemaphore(value: 0)
        let poster = Thread {
            defer { finished.signal() }
            var index = 0
            let deadline = Date().addingTimeInterval(90)
            while Date() < deadline {
                if promoted.load(ordering: .relaxed) && acknowledged.afterPromotion >= afterPromotion { return }
                let request: LedgerRequest
                do { request = try LedgerRequest(id: "failover-\(index)") } catch { failures.add("\(error)"); return }
                let amount = "\(index + 1).00"
                var document: Document?
                while document == nil, Date() < deadline {
                    do {
                        document = try ledger.draft(operation: "topup.mobile", plugin: "ru.example.payments.quick", pluginVersion: "1.0.0", fields: [
                            DocumentField("from", account), DocumentField("account", FeeTests.payee), DocumentField("amount", amount),
                            DocumentField("currency", "RUB"), DocumentField("bic", "044525593"), DocumentField("name", "ПАО МТС"),
                            DocumentField("purpose", "Пополнение +7 916 123-45-67"), DocumentField("fee", "0.10"),
                        ])
                    } catch {
                        failures.outage(error)
                        usleep(200_000)
                    }
                }
                guard let document else { return }
                while Date() < deadline {
                    clock.advance(30)
                    do {
                        let outcome = try ledger.signAndPost(document, code: TOTP.code(secret: secret, at: clock.now), request: request)
                        guard case .posted(let receipt) = outcome else { failures.add("payment \(index) was not posted: \(outcome)"); return }
                        acknowledged.add(request.id, sequence: receipt.sequence, amount: amount, promoted: promoted.load(ordering: .relaxed))
                        break
                    } catch {
                        failures.outage(error)
                        usleep(200_000)
                    }
                }
                index += 1
            }
        }
        poster.start()

        let started = Date()
        while acknowledged.count < crashAfter, Date().timeIntervalSince(started) < 60 { usleep(50_000) }
        try #require(acknowledged.count >= crashAfter, "only \(acknowledged.count) payments before the crash")
        let beforeCrash = acknowledged.snapshot
        try pair.cluster("crash", pair.primary)
        usleep(1_000_000)
        try pair.cluster("promote", pair.standby)
        promoted.store(true, ordering: .relaxed)
        #expect(finished.wait(timeout: .now() + 100) == .success)

        #expect(failures.problems.isEmpty, "\(failures.problems)")
        // The crash was met (the client posts every 200 ms while no server takes writes, over a second).
        #expect(!failures.outages.isEmpty)
        // Between the crash and the promotion the host answered with what is wrong, naming both servers.
        #expect(failures.outages.allSatisfy { $0.contains(pair.address.server) }, "\(failures.outages.prefix(3))")
        #expect(acknowledged.afterPromotion >= afterPromotion)

        // On the promoted standby: the host writes there now, every acknowledged payment is journaled once at the
        // entry its answer named, the chain and the balances verify.
        let port = try ledger.database.read { db in try db.value(Int64.self, "SELECT inet_server_port()") }
        #expect(port.map(Int.init) == pair.standbyPort)
        let all = acknowledged.snapshot
        #expect(Set(beforeCrash.keys).isSubset(of: Set(all.keys)))
        let journaled = try ledger.database.read { db in
            try db.rows("SELECT r.request_id, r.journal_seq FROM requests r ORDER BY r.journal_seq").map { row in
                (try row.decode(String.self, forColumn: "request_id"), try row.decode(Int64.self, forColumn: "journal_seq"))
            }
        }
        #expect(Dictionary(journaled, uniquingKeysWith: { first, _ in first }) == all.mapValues { $0.sequence })
        #expect(journaled.count == all.count, "a request journaled twice, or one journaled and never answered")
        let documents = try ledger.database.read { db in
            try db.value(Int64.self, "SELECT count(*) - count(DISTINCT document_id) FROM journal")
        }
        #expect(documents == 0, "a document journaled twice")
        #expect(try ledger.journal.verify() == .ok(all.count))
        let spent = try all.values.reduce(Decimal(0)) { sum, payment in
            sum + (try #require(Decimal(string: payment.amount))) + (try #require(Decimal(string: "0.10")))
        }
        #expect(try ledger.bank.account(number: account)?.balance.amount == opening - spent)
    }

    @Test("the ledger's lock is not held across the flush: with the synchronous standby away, a payment's entry is visible to another session while its host still waits, and the host is answered once the standby has it")
    func lockReleasedBeforeTheFlush() throws {
        let pair = try FailoverPair()
        defer { pair.stop() }
        let (ledger, clock, secret) = try pair.ledger()
        defer { try? ledger.close() }
        func payment(_ amount: String) throws -> Document {
            try ledger.draft(operation: "payment.domestic", plugin: "ru.example.payments", pluginVersion: "1.0.0", fields: [
                DocumentField("from", CoreTests.current), DocumentField("account", FeeTests.payee), DocumentField("amount", amount),
                DocumentField("currency", "RUB"), DocumentField("bic", "044525593"), DocumentField("name", "ООО Ромашка"),
                DocumentField("purpose", "Оплата \(amount)"),
            ])
        }
        func code() -> String {
            clock.advance(30)
            return TOTP.code(secret: secret, at: clock.now)
        }
        guard case .posted = try ledger.signAndPost(try payment("1.00"), code: code()) else {
            Issue.record("the first payment was not posted"); return
        }
        let watcher = try PostgresStore(address: pair.address)
        defer { try? watcher.close() }
        func journaled(_ document: Document) throws -> Bool {
            try watcher.read { db in try db.exists("SELECT 1 FROM journal WHERE document_id = ?", document.id) }
        }
        // The primary now waits for the standby at every durable commit.
        try pair.cluster("pause", pair.standby)
        let second = try payment("2.00")
        let secondCode = code()
        let answered = DispatchSemaphore(value: 0)
        let outcome = Mutex<String?>(nil)
        DispatchQueue.global().async {
            defer { answered.signal() }
            let text: String
            do { text = "\(try ledger.signAndPost(second, code: secondCode))" } catch { text = "failed: \(error)" }
            outcome.withLock { $0 = text }
        }
        var visible = false
        for _ in 0..<200 where !visible {
            usleep(50_000)
            visible = try journaled(second)
        }
        // Committed (and the lock released) before its flush reached the standby...
        #expect(visible, "the payment's entry was not visible while its durable commit waited")
        // ...but not answered before then.
        #expect(answered.wait(timeout: .now() + 1) == .timedOut, "answered before the standby had it: \(outcome.withLock { $0 } ?? "")")
        try pair.cluster("resume", pair.standby)
        #expect(answered.wait(timeout: .now() + 60) == .success)
        #expect(outcome.withLock { $0 }?.hasPrefix("posted") == true, "\(outcome.withLock { $0 } ?? "no answer")")
        try PostgresChainTests.expectChained(ledger, count: 2)
    }
}

/// The payments answered as posted, by request id.
private final class Acknowledgements: @unchecked Sendable {
    private let lock = NSLock()
    private var payments: [String: (sequence: Int64, amount: String)] = [:]
    private var promoted = 0

    func add(_ request: String, sequence: Int64, amount: String, promoted after: Bool) {
        lock.withLock {
            payments[request] = (sequence, amount)
            if after { promoted += 1 }
        }
    }

    var count: Int { lock.withLock { payments.count } }
    var afterPromotion: Int { lock.withLock { promoted } }
    var snapshot: [String: (sequence: Int64, amount: String)] { lock.withLock { payments } }
}

/// What the client saw go wrong: outages (expected while no server takes writes) and anything else (a failure).
private final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var seenOutages: [String] = []
    private var seenProblems: [String] = []

    func outage(_ error: any Error) {
        let text = String(describing: error)
        lock.withLock {
            if case .server = error as? LedgerError { seenOutages.append(text) } else { seenProblems.append(text) }
        }
    }

    func add(_ problem: String) { lock.withLock { seenProblems.append(problem) } }
    var outages: [String] { lock.withLock { seenOutages } }
    var problems: [String] { lock.withLock { seenProblems } }
}

/// A primary and its synchronous standby in a folder of their own (cluster.sh start, then standby), and the
/// address naming both with `target_session_attrs=read-write`, on a fresh database made on the primary.
final class FailoverPair: Sendable {
    /// Tests/Postgres/cluster.sh beside these tests, when the tests' server came from it (PostgreSQL's programs are
    /// then on this machine).
    static var clusterScript: String? {
        guard ProcessInfo.processInfo.environment["RBS_TEST_POSTGRES_CLUSTER"] != nil else { return nil }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Postgres/cluster.sh").path
        return FileManager.default.isExecutableFile(atPath: script) ? script : nil
    }

    /// Why the suite does not run again in make test's second pass of the ledger's suites (on PostgreSQL): it makes
    /// its own servers whatever the engine of the fixtures, and the first pass ran it.
    static let secondPassReason: Comment = "the failover suite runs in the pass with RBS_TEST_LEDGER_ENGINE unset (it makes its own primary and standby)"

    let folder: URL
    let primary: String
    let standby: String
    let address: PostgresAddress
    let standbyPort: Int

    init() throws {
        folder = temporaryDirectory()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // The postgres user runs the servers (as root): it must reach the folders inside.
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
        primary = folder.appendingPathComponent("primary").path
        standby = folder.appendingPathComponent("standby").path
        let primaryURL = try Self.run("start", primary)
        var server = try PostgresAddress.parse(primaryURL)
        let database = "rbs_failover_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        try PostgresStore.administer("CREATE DATABASE \(database)", at: server)
        let standbyURL = try Self.run("standby", primary, standby)
        let standbyServer = try PostgresAddress.parse(standbyURL)
        standbyPort = standbyServer.servers[0].port
        server.database = String(database)
        server.servers += standbyServer.servers
        server.targetSession = .readWrite
        address = server
    }

    func cluster(_ arguments: String...) throws { _ = try Self.run(arguments) }

    /// A ledger made on the pair (the host given both servers) from a fresh data folder with its keys enrolled: the
    /// ledger, its manual clock and the TOTP secret.
    func ledger() throws -> (ledger: Ledger, clock: ManualClock, secret: Data) {
        let directory = temporaryDirectory()
        let clock = ManualClock()
        let ledger = try Ledger.create(dataDirectory: directory, location: .postgres(address), clock: clock.closure).ledger
        let keys = KeyStore(dataDirectory: directory)
        _ = try keys.initialize(name: "Test User", force: false, ocra: nil)
        return (ledger, clock, try keys.load().totpSecret ?? Data())
    }

    func stop() {
        for place in [standby, primary] { _ = try? Self.run("stop", place) }
        try? FileManager.default.removeItem(at: folder)
    }

    private static func run(_ arguments: String...) throws -> String { try run(arguments) }

    /// Runs cluster.sh with `arguments` and gives its last line of output (an address, for start and standby).
    private static func run(_ arguments: [String]) throws -> String {
        guard let script = clusterScript else { throw FailoverPairError("Tests/Postgres/cluster.sh is not here") }
        // Spawned and waited for by hand (Foundation's Process did not see it end inside the test runner), its
        // output in files, not pipes: a server it starts keeps inherited descriptors open, so a pipe never ends.
        let logs = temporaryDirectory()
        try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: logs) }
        let outputFile = logs.appendingPathComponent("out").path, errorFile = logs.appendingPathComponent("err").path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputFile, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errorFile, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv: [UnsafeMutablePointer<CChar>?] = ([script] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, script, &actions, nil, argv, environ)
        guard spawned == 0 else { throw FailoverPairError("cluster.sh could not be started: \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let text = (try? String(contentsOfFile: outputFile, encoding: .utf8)) ?? ""
        let problem = (try? String(contentsOfFile: errorFile, encoding: .utf8)) ?? ""
        // Exited (the low 7 bits zero) with status 0.
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            throw FailoverPairError("cluster.sh \(arguments.joined(separator: " ")) failed (wait status \(status)): \(problem)")
        }
        return text.split(separator: "\n").last.map(String.init) ?? ""
    }
}

struct FailoverPairError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
