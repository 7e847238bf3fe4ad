import Crypto
import Foundation
import Synchronization
import Testing
@testable import RBSLedger

/// The journal's numbers and chain hashes bound inside the server at commit (schema step `v21-chain-in-server`,
/// issue 30 item 2): a write never reads the journal's tip, so hosts paying from unrelated accounts never refuse
/// each other, and the stored chain is the one `verify` has always checked.
@Suite("PostgreSQL: numbers and hashes bound in the server", .enabled(if: TestDatabase.server != nil, TestDatabase.skipReason))
struct PostgresChainTests {
    /// A customer of `ledger` with its own account and code state (as each host process of the benchmark has).
    struct Payer {
        let ledger: Ledger
        let credentials: CustomerCredentials
        let account: String
        let clock: ManualClock

        init(_ ledger: Ledger, name: String, clock: ManualClock) throws {
            self.ledger = ledger
            self.clock = clock
            let (customer, _) = try ledger.customers.add(name: name, passwordRecord: "x")
            credentials = try #require(try ledger.customers.credentials(named: name))
            account = try #require(try ledger.customers.accounts(of: customer).first?.number)
        }

        /// Drafts and signs one payment of `amount`; the round trips its signing took (not the draft's).
        func pays(_ amount: String, at time: Date) throws -> (outcome: Outcome, roundTrips: Int) {
            let document = try ledger.draft(operation: "payment.domestic", plugin: "ru.example.payments", pluginVersion: "1.0.0", fields: [
                DocumentField("from", account), DocumentField("account", FeeTests.payee), DocumentField("amount", amount),
                DocumentField("currency", "RUB"), DocumentField("name", "ООО Ромашка"), DocumentField("purpose", "Оплата \(amount)"),
            ], keyId: credentials.customer.keyId)
            let code = try ledger.customers.code(for: credentials.customer.name, at: time)
            let before = try #require(ledger.databaseRoundTrips)
            let outcome = try ledger.signAndPost(document, code: code, as: credentials)
            return (outcome, try #require(ledger.databaseRoundTrips) - before)
        }
    }

    /// Every stored hash is what ``JournalEntry/computedHash`` gives for the stored entry, each predecessor's hash is
    /// the previous entry's (in the chain's order: by position, schema step v30), there are `count` entries, and each
    /// has its own id (ids have gaps where a refused commit had taken one; `verify` checks the positions gapless).
    static func expectChained(_ ledger: Ledger, count: Int) throws {
        #expect(try ledger.journal.verify() == .ok(count))
        let entries = try ledger.journal.entries()
        #expect(entries.count == count)
        #expect(Set(entries.map(\.sequence)).count == entries.count, "ids given twice: \(entries.map(\.sequence))")
        var previous = JournalEntry.genesisHash
        for entry in entries {
            #expect(entry.hash == entry.computedHash, "entry \(entry.sequence)'s stored hash is not its content's")
            #expect(entry.previousHash == previous, "entry \(entry.sequence) does not name its predecessor's hash")
            previous = entry.hash
        }
        #expect(try ledger.journal.verify() == .ok(count))
    }

    /// Runs `sql` in another session, in the background (a lock held for a while); signalled when it has ended.
    static func inBackground(_ sql: String, at address: PostgresAddress) -> DispatchSemaphore {
        let ended = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            defer { ended.signal() }
            try? PostgresStore.administer(sql, at: address)
        }
        return ended
    }

    @Test("two hosts paying from different accounts at once never refuse each other: two round trips a payment, numbers gapless, verify ok")
    func twoHostsWithoutConflict() throws {
        let f = try Fixture(engine: .postgres)
        // The second host: the same database, its own clock (each payer's codes follow its own host's clock).
        let clocks = (f.clock, ManualClock())
        let other = try Ledger(dataDirectory: f.directory, location: f.location, clock: clocks.1.closure)
        defer { try? other.close() }
        let payers = (try Payer(f.ledger, name: "alice", clock: clocks.0), try Payer(other, name: "bob", clock: clocks.1))
        // Warm-up, as a host's first writes are: which columns hold bytes, what a payment asks.
        for payer in [payers.0, payers.1] {
            for _ in 0..<2 {
                payer.clock.advance(30)
                guard case .posted = try payer.pays("1.00", at: payer.clock.now).outcome else { Issue.record("warm-up not posted"); return }
            }
        }
        let perHost = 12
        let trips = Mutex<[Int]>([])
        let sequences = Mutex<[Int64: String]>([:])
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { host in
            let payer = host == 0 ? payers.0 : payers.1
            for n in 0..<perHost {
                payer.clock.advance(30)
                do {
                    let (outcome, count) = try payer.pays("\(n + 2).00", at: payer.clock.now)
                    guard case .posted(let receipt) = outcome else { failures.withLock { $0.append("not posted: \(outcome)") }; continue }
                    trips.withLock { $0.append(count) }
                    sequences.withLock { $0[receipt.sequence] = receipt.documentId }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 } == [])
        let counted = trips.withLock { $0 }
        #expect(counted.count == 2 * perHost)
        // Two each: one read, one commit — a refusal and a second decision would be a third and a fourth.
        #expect(counted.allSatisfy { $0 <= 2 }, "round trips per payment: \(counted)")
        // The receipts name the numbers the server bound, each the entry of the receipt's document.
        let numbered = sequences.withLock { $0 }
        #expect(numbered.keys.sorted() == (5...Int64(4 + 2 * perHost)).map { $0 })
        for entry in try f.ledger.journal.entries() where entry.sequence > 4 {
            #expect(numbered[entry.sequence] == entry.documentId)
        }
        try Self.expectChained(f.ledger, count: 4 + 2 * perHost)
        #expect(try other.journal.verify() == .ok(4 + 2 * perHost))
    }

    @Test("one host's payments signed at the same moment commit in groups: fewer round trips than payments, each receipt its own entry, a wrong code refused alone, verify ok")
    func groupCommitAcrossRequests() throws {
        let f = try Fixture(engine: .postgres)
        let names = ["anna", "boris", "vera", "gleb", "dina", "egor"]
        let payers = try names.map { try Payer(f.ledger, name: $0, clock: f.clock) }
        // Warm-up: each payer's first payments read what a payment asks and leave their answers (predictions).
        for payer in payers {
            for _ in 0..<2 {
                f.clock.advance(30)
                guard case .posted = try payer.pays("1.00", at: f.clock.now).outcome else { Issue.record("warm-up not posted"); return }
            }
        }
        let openings = try payers.map { try #require(try f.balance($0.account)) }
        let rounds = 6
        let receipts = Mutex<[Int64: String]>([:])
        let failures = Mutex<[String]>([])
        let refusedCodes = Mutex<Int>(0)
        var trips = 0
        // Another host, for the fourth round: it pays for the fourth payer just before, so this host's answers for that
        // payer are stale — a group with that payment in it is refused as a whole, and each of its payments goes alone.
        let other = try Ledger(dataDirectory: f.directory, location: f.location, clock: f.clock.closure)
        defer { try? other.close() }
        for round in 0..<rounds {
            f.clock.advance(30)
            if round == 3 {
                let payer = payers[3]
                let document = try other.draft(operation: "payment.domestic", plugin: "ru.example.payments", pluginVersion: "1.0.0", fields: [
                    DocumentField("from", payer.account), DocumentField("account", FeeTests.payee), DocumentField("amount", "5.00"),
                    DocumentField("currency", "RUB"), DocumentField("name", "ООО Ромашка"), DocumentField("purpose", "С другого хоста"),
                ], keyId: payer.credentials.customer.keyId)
                let code = try other.customers.code(for: payer.credentials.customer.name, at: f.clock.now)
                guard case .posted(let receipt) = try other.signAndPost(document, code: code, as: payer.credentials) else {
                    Issue.record("the other host's payment was not posted"); return
                }
                receipts.withLock { $0[receipt.sequence] = receipt.documentId }
                f.clock.advance(30)
            }
            let now = f.clock.now
            // All six sign at once, as six requests to one `serve`; in the third round the second payer's code is wrong.
            let documents = try payers.map { payer in
                try f.ledger.draft(operation: "payment.domestic", plugin: "ru.example.payments", pluginVersion: "1.0.0", fields: [
                    DocumentField("from", payer.account), DocumentField("account", FeeTests.payee), DocumentField("amount", "2.00"),
                    DocumentField("currency", "RUB"), DocumentField("name", "ООО Ромашка"), DocumentField("purpose", "Оплата \(round)"),
                ], keyId: payer.credentials.customer.keyId)
            }
            let codes = try payers.enumerated().map { index, payer in
                round == 2 && index == 1 ? "000000" : try f.ledger.customers.code(for: payer.credentials.customer.name, at: now)
            }
            let before = try #require(f.ledger.databaseRoundTrips)
            let start = DispatchSemaphore(value: 0)
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(20)) { for _ in payers { start.signal() } }
            // Threads of their own (concurrentPerform would run only as many at once as there are cores).
            let finished = DispatchGroup()
            for index in payers.indices {
                finished.enter()
                Thread.detachNewThread {
                defer { finished.leave() }
                let payer = payers[index]
                do {
                    start.wait()
                    let outcome = try f.ledger.signAndPost(documents[index], code: codes[index], as: payer.credentials)
                    guard case .posted(let receipt) = outcome else { failures.withLock { $0.append("not posted: \(outcome)") }; return }
                    receipts.withLock { $0[receipt.sequence] = receipt.documentId }
                } catch LedgerError.code {
                    refusedCodes.withLock { $0 += 1 }
                } catch {
                    failures.withLock { $0.append("\(payer.credentials.customer.name): \(error)") }
                }
                }
            }
            finished.wait()
            trips += try #require(f.ledger.databaseRoundTrips) - before
        }
        #expect(failures.withLock { $0 } == [])
        #expect(refusedCodes.withLock { $0 } == 1, "the wrong code was not refused, or others were refused with it")
        let payments = rounds * payers.count - 1 + 1
        // One at a time each would be one round trip (on predictions); in groups, fewer (the other host's not counted).
        #expect(trips < payments - 1, "\(trips) round trips for \(payments) payments signed six at a time: no group was committed")
        // Each receipt names its own document's entry, after the warm-up's (ids: the wrong code's refused group
        // had taken some).
        let numbered = receipts.withLock { $0 }
        let warmUp = Int64(2 * payers.count)
        #expect(numbered.count == payments && numbered.keys.allSatisfy { $0 > warmUp }, "\(numbered.keys.sorted())")
        for entry in try f.ledger.journal.entries() where entry.sequence > warmUp {
            #expect(numbered[entry.sequence] == entry.documentId, "entry \(entry.sequence) is not the receipt's document")
        }
        for (index, payer) in payers.enumerated() {
            let paid = Decimal(2 * (index == 1 ? rounds - 1 : rounds) + (index == 3 ? 5 : 0))
            #expect(try f.balance(payer.account) == openings[index] - paid, "\(payer.credentials.customer.name)'s balance")
        }
        try Self.expectChained(f.ledger, count: Int(warmUp) + payments)
    }

    @Test("entries are stored and numbered by the commit, chained apart by the host's integrator: a payment is answered while another session integrates, and verify chains what it finds")
    func chainIntegratedApart() throws {
        let f = try Fixture(engine: .postgres)
        guard case .postgres(let address) = f.location else { Issue.record("not on PostgreSQL"); return }
        for amount in ["1.00", "2.00"] { _ = try f.ledger.signAndPost(try f.payment(amount: amount), code: f.nextCode()) }
        func unintegrated() throws -> [Int64] {
            try f.ledger.database.query("SELECT seq FROM journal WHERE octet_length(hash) = 0 ORDER BY seq", []) { rows in
                try rows.map { try $0.decode(Int64.self, forColumn: "seq") }
            }
        }
        // The host's integrator chains what a commit stored, off the request's path: within moments.
        let deadline = Date().addingTimeInterval(5)
        while try !unintegrated().isEmpty && Date() < deadline { usleep(20_000) }
        #expect(try unintegrated() == [])
        // Another session integrating (its lock held 2 s): payments are stored, numbered and answered meanwhile,
        // their entries not chained yet; nothing waits for that session.
        let held = Self.inBackground("SELECT pg_advisory_xact_lock(\(PostgresStore.integrationLock)), pg_sleep(2)", at: address)
        usleep(300_000)
        let started = Date()
        var receipts: [Int64] = []
        for amount in ["3.00", "4.00"] {
            guard case .posted(let receipt) = try f.ledger.signAndPost(try f.payment(amount: amount), code: f.nextCode()) else {
                Issue.record("a payment was not posted while another session integrated"); return
            }
            receipts.append(receipt.sequence)
        }
        #expect(Date().timeIntervalSince(started) < 1.5, "the payments waited for the integration lock")
        #expect(receipts == [3, 4])
        #expect(try unintegrated() == [3, 4])
        // The chain of what is integrated is whole; an entry's hashes can be filled once, nothing else changed.
        let store = try PostgresStore(address: address)
        defer { try? store.close() }
        #expect(throws: (any Error).self) { try store.write { db in try db.execute("UPDATE journal SET amount = '1.00' WHERE seq = 3") } }
        #expect(throws: (any Error).self) { try store.write { db in try db.execute("UPDATE journal SET hash = prev_hash WHERE seq = 2") } }
        // verify waits for the other session, integrates, and checks the chain whole.
        #expect(try f.ledger.journal.verify() == .ok(4))
        #expect(try unintegrated() == [])
        held.wait()
        try Self.expectChained(f.ledger, count: 4)
    }

    @Test("on the answers the last commit gave after its writes, a payment commits in one round trip; a row another host changed meanwhile refuses them and the payment is decided on fresh rows")
    func paymentOnPredictionsInOneRoundTrip() throws {
        let f = try Fixture(engine: .postgres)
        let account = "40817810438000000001"
        // Warm-up: the first payments read (which columns hold bytes, what a payment asks) and leave their answers.
        for amount in ["1.00", "2.00"] { _ = try f.ledger.signAndPost(try f.payment(amount: amount), code: f.nextCode()) }
        let opening = try #require(try f.balance(account))
        func pays(_ ledger: Ledger, _ amount: String) throws -> (receipt: Receipt?, roundTrips: Int) {
            let document = try f.payment(amount: amount)
            let code = f.nextCode()
            let before = try #require(ledger.databaseRoundTrips)
            guard case .posted(let receipt) = try ledger.signAndPost(document, code: code) else { return (nil, 0) }
            return (receipt, try #require(ledger.databaseRoundTrips) - before)
        }
        for (index, amount) in ["3.00", "4.00", "5.00"].enumerated() {
            let (receipt, trips) = try pays(f.ledger, amount)
            #expect(receipt?.sequence == Int64(3 + index))
            #expect(trips == 1, "a payment on predictions took \(trips) round trips")
        }
        // Another host pays from the same account (its code state and balance change): this host's answers are
        // stale. Its next payment is refused on them inside the server and decided again on what is committed.
        let other = try Ledger(dataDirectory: f.directory, location: f.location, clock: f.clock.closure)
        defer { try? other.close() }
        #expect(try pays(other, "6.00").receipt?.sequence == 6)
        let (receipt, trips) = try pays(f.ledger, "7.00")
        #expect(receipt?.sequence == 7)
        #expect(trips == 3, "one refused commit on stale answers, then a read and a commit: \(trips)")
        #expect(try f.balance(account) == opening - 25)
        // The same signed document again: its once-only id lookup, presumed empty, is refused; the first outcome stands.
        let document = try f.payment(amount: "8.00")
        _ = try f.ledger.signAndPost(document, code: f.nextCode())
        _ = try f.ledger.signAndPost(document, code: f.nextCode())
        #expect(try f.balance(account) == opening - 33)
        // A request id `serve` was given is a once-only lookup too: one round trip; the same request again (a client
        // retrying) is refused on the presumption, read, and answered with the first outcome.
        let request = try LedgerRequest(id: "pay-9")
        let first = try f.payment(amount: "9.00")
        let firstCode = f.nextCode()
        let before = try #require(f.ledger.databaseRoundTrips)
        guard case .posted(let receipt9) = try f.ledger.signAndPost(first, code: firstCode, request: request) else {
            Issue.record("the payment with a request id was not posted"); return
        }
        #expect(try #require(f.ledger.databaseRoundTrips) - before == 1)
        guard case .posted(let again) = try f.ledger.signAndPost(try f.payment(amount: "9.00"), code: f.nextCode(), request: request) else {
            Issue.record("the request sent again was not answered with its first outcome"); return
        }
        #expect(again.sequence == receipt9.sequence && again.documentId == receipt9.documentId)
        #expect(try f.balance(account) == opening - 42)
        try PostgresChainTests.expectChained(f.ledger, count: 9)
    }

    @Test("a basket, a second signer's entry naming an earlier one, a fee leg and a refusal with its facts: numbered and chained in the server")
    func everyKindOfEntry() throws {
        let c = try SecondSignerTests.Company(engine: .postgres)
        let f = c.f
        // A second signer's entry names the awaiting entry's number.
        guard case .awaiting(_, let awaiting) = try c.annPays("200000.00") else { Issue.record("not awaiting"); return }
        #expect(awaiting == 1)
        guard case .posted(let approved) = try f.ledger.approve(entry: awaiting, code: try c.code(c.bob), as: c.bob) else {
            Issue.record("the approval was not posted"); return
        }
        #expect(approved.sequence == 2)
        #expect(try f.ledger.journal.entries()[1].secondOf == 1)
        // A basket: several entries in one commit, each chained to the one before.
        let basket = try Basket(try BasketTests.five(f))
        let outcome = try f.ledger.signAndPost(basket: basket, code: f.nextCode())
        let numbers = outcome.outcomes.map(\.sequence)
        #expect(numbers.count == 5 && numbers == numbers.sorted() && Set(numbers).count == 5 && numbers[0] > approved.sequence, "\(numbers)")
        // A fee leg and a refusal with its facts.
        guard case .posted(let withFee) = try f.ledger.signAndPost(
            try FeeTests.payment(f, amount: "10.00", extra: [DocumentField("fee", "1.00")]), code: f.nextCode()) else {
            Issue.record("the fee payment was not posted"); return
        }
        #expect(withFee.sequence > numbers[4])
        let fees = try f.ledger.database.read { db in try db.values(Int64.self, "SELECT journal_seq FROM fees") }
        #expect(fees == [withFee.sequence])
        guard case .rejected(_, let refusedAt, let reason) = try f.ledger.signAndPost(
            try FeeTests.payment(f, amount: "999999.00", extra: []), code: f.nextCode()) else {
            Issue.record("the payment over the balance was not refused"); return
        }
        #expect(refusedAt > withFee.sequence)
        #expect(try f.ledger.journal.entries().last?.reasonFacts == reason.facts)
        // The postings name the entries they belong to.
        let postings = try f.ledger.database.read { db in try db.values(Int64.self, "SELECT DISTINCT journal_seq FROM postings ORDER BY journal_seq") }
        #expect(postings == [approved.sequence] + numbers + [withFee.sequence])
        try Self.expectChained(f.ledger, count: 9)
    }

    @Test("a payment waiting for its own account's row holds up no other customer's (no ledger-wide lock): the other commits meanwhile and is chained first, the waiting one after it")
    func independentPaymentsDoNotWait() throws {
        let f = try Fixture(engine: .postgres)
        guard case .postgres(let address) = f.location else { Issue.record("not on PostgreSQL"); return }
        let clocks = (f.clock, ManualClock())
        let other = try Ledger(dataDirectory: f.directory, location: f.location, clock: clocks.1.closure)
        defer { try? other.close() }
        let alice = try Payer(f.ledger, name: "alice", clock: clocks.0), bob = try Payer(other, name: "bob", clock: clocks.1)
        for payer in [alice, bob] {
            for _ in 0..<2 {
                payer.clock.advance(30)
                guard case .posted = try payer.pays("1.00", at: payer.clock.now).outcome else { Issue.record("warm-up not posted"); return }
            }
        }
        // Another session holds alice's account row: her commit takes its entry's id, then waits for the row.
        let held = Self.inBackground(
            "SELECT pg_sleep(3) FROM (SELECT 1 FROM accounts WHERE number = '\(alice.account)' FOR UPDATE) AS held", at: address)
        usleep(300_000)
        alice.clock.advance(30)
        let aliceDone = DispatchSemaphore(value: 0)
        let aliceReceipt = Mutex<Receipt?>(nil), aliceOutcome = Mutex<String>("not finished")
        DispatchQueue.global().async {
            defer { aliceDone.signal() }
            do {
                let outcome = try alice.pays("2.00", at: alice.clock.now).outcome
                aliceOutcome.withLock { $0 = "\(outcome)" }
                if case .posted(let receipt) = outcome { aliceReceipt.withLock { $0 = receipt } }
            } catch {
                aliceOutcome.withLock { $0 = "threw \(error)" }
            }
        }
        let watcher = try PostgresStore(address: address)
        defer { try? watcher.close() }
        var waiting = false
        for _ in 0..<40 where !waiting {
            usleep(50_000)
            waiting = try watcher.read { db in
                // This test's database only: tests beside it on the same server have commits of their own.
                try db.exists("""
                    SELECT 1 FROM pg_stat_activity WHERE datname = current_database()
                    AND query LIKE 'CALL rbs_v30_commit_durably%' AND wait_event_type = 'Lock'
                    """)
            }
        }
        #expect(waiting, "alice's commit was not seen waiting for her row")
        // Bob's payment, on other rows, commits while hers waits — under the ledger-wide lock it waited behind hers.
        bob.clock.advance(30)
        let started = ContinuousClock.now
        guard case .posted(let bobs) = try bob.pays("3.00", at: bob.clock.now).outcome else { Issue.record("bob's payment was not posted"); return }
        #expect(ContinuousClock.now - started < .seconds(2), "bob's payment waited for alice's row")
        #expect(aliceReceipt.withLock { $0 } == nil, "alice's payment finished before bob's: the test proved nothing")
        #expect(held.wait(timeout: .now() + 20) == .success)
        #expect(aliceDone.wait(timeout: .now() + 20) == .success)
        let alices = try #require(aliceReceipt.withLock { $0 },
                                  "alice's payment was not posted after the row was released: \(aliceOutcome.withLock { $0 })")
        // Her id was taken first, his entry integrated first: the chain's order is the order of integration.
        #expect(alices.sequence < bobs.sequence)
        let entries = try f.ledger.journal.entries()
        #expect(entries.suffix(2).map(\.sequence) == [bobs.sequence, alices.sequence])
        let positions = try f.ledger.database.read { db in
            try db.values(Int64.self, "SELECT position FROM journal ORDER BY position")
        }
        #expect(positions == Array(1...Int64(6)))
        try Self.expectChained(f.ledger, count: 6)
    }

    @Test("verify reads the chain by position: a position missing is named, two entries' positions swapped break the chain; ids may skip")
    func positionsTampered() throws {
        let f = try Fixture(engine: .postgres)
        guard case .postgres(let address) = f.location else { Issue.record("not on PostgreSQL"); return }
        for amount in ["1.00", "2.00", "3.00"] { _ = try f.ledger.signAndPost(try f.payment(amount: amount), code: f.nextCode()) }
        #expect(try f.ledger.journal.verify() == .ok(3))
        // The table's owner, its UPDATE trigger off, moves entries in the chain.
        func moved(_ update: String) throws {
            try PostgresStore.administer("ALTER TABLE journal DISABLE TRIGGER journal_no_update", at: address)
            try PostgresStore.administer(update, at: address)
            try PostgresStore.administer("ALTER TABLE journal ENABLE TRIGGER journal_no_update", at: address)
        }
        let ids = try f.ledger.database.read { db in try db.values(Int64.self, "SELECT seq FROM journal ORDER BY position") }
        try moved("UPDATE journal SET position = 5 WHERE position = 2")
        #expect(try f.ledger.journal.verify()
                == .bad(sequence: ids[2], reason: "position 2 of the chain is missing (entry \(ids[2]), next, is at 3)"))
        try moved("UPDATE journal SET position = 2 WHERE position = 5")
        #expect(try f.ledger.journal.verify() == .ok(3))
        for update in ["position = 100 WHERE position = 1", "position = 1 WHERE position = 3", "position = 3 WHERE position = 100"] {
            try moved("UPDATE journal SET " + update)
        }
        guard case .bad(let at, let reason) = try f.ledger.journal.verify() else { Issue.record("swapped positions not found"); return }
        #expect(at == ids[2] && reason.contains("the chain is broken"), "\(at): \(reason)")
    }

    @Test("a host refuses a database a newer host upgraded (a schema step it does not know), naming the step; the database is left as it was")
    func newerDatabaseRefused() throws {
        let f = try Fixture(engine: .postgres)
        guard case .postgres(let address) = f.location else { Issue.record("not on PostgreSQL"); return }
        _ = try f.ledger.signAndPost(try f.payment(amount: "1.00"), code: f.nextCode())
        try f.ledger.close()
        try PostgresStore.administer("INSERT INTO rbs_schema_steps (name, applied_ms) VALUES ('v99-from-the-future', 0)", at: address)
        do {
            _ = try f.reopen()
            Issue.record("a host opened a database with a step it does not know")
        } catch {
            #expect("\(error)".contains("upgraded by a newer rbs-host (schema steps this one does not know: v99-from-the-future)"), "\(error)")
        }
        try PostgresStore.administer("DELETE FROM rbs_schema_steps WHERE name = 'v99-from-the-future'", at: address)
        let ledger = try f.reopen()
        defer { try? ledger.close() }
        #expect(try ledger.journal.verify() == .ok(1))
    }

    @Test("a commit cut off inside the server after its entry was inserted leaves no half entry; the next payment takes the number")
    func commitCutOff() throws {
        let f = try Fixture(engine: .postgres)
        guard case .postgres(let address) = f.location else { Issue.record("not on PostgreSQL"); return }
        let account = "40817810438000000001"
        for amount in ["1.00", "2.00"] { _ = try f.ledger.signAndPost(try f.payment(amount: amount), code: f.nextCode()) }
        let balance = try #require(try f.balance(account))
        // Another session holds the payer's account row for a while: the commit inserts its entry and posting, then
        // waits for the row (its last write), and is killed there.
        let held = Self.inBackground(
            "SELECT pg_sleep(4) FROM (SELECT 1 FROM accounts WHERE number = '\(account)' FOR UPDATE) AS held", at: address)
        usleep(300_000)
        let payment = try f.payment(amount: "3.00")
        let code = f.nextCode()
        let answered = DispatchSemaphore(value: 0)
        let failed = Atomic<Bool>(false)
        let ledger = f.ledger
        DispatchQueue.global().async {
            defer { answered.signal() }
            do { _ = try ledger.signAndPost(payment, code: code) } catch { failed.store(true, ordering: .relaxed) }
        }
        // Its own database's waiting commit only: it once killed a commit another test (run beside it, the same
        // server) was holding waiting on purpose, and that test failed with "terminating connection due to
        // administrator command".
        let watcher = try PostgresStore(address: address)
        defer { try? watcher.close() }
        var killed = false
        for _ in 0..<60 where !killed {
            usleep(50_000)
            killed = try watcher.read { db in
                try db.exists("""
                    SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                    WHERE datname = current_database() AND query LIKE 'CALL rbs_v%_commit_durably%' AND wait_event_type = 'Lock'
                    """)
            }
        }
        #expect(killed, "the commit was not seen waiting for the row")
        #expect(answered.wait(timeout: .now() + 20) == .success)
        let refused = failed.load(ordering: .relaxed)
        #expect(refused, "a commit killed in the server was acknowledged")
        #expect(held.wait(timeout: .now() + 20) == .success)
        // Nothing of it: no entry, no posting, the balance as it was.
        #expect(try f.ledger.journal.entries().count == 2)
        #expect(try f.balance(account) == balance)
        let postings = try f.ledger.database.read { db in try db.value(Int64.self, "SELECT count(*) FROM postings") }
        #expect(postings == 2)
        guard case .posted(let receipt) = try f.ledger.signAndPost(try f.payment(amount: "4.00"), code: f.nextCode()) else {
            Issue.record("the next payment was not posted"); return
        }
        // The next id: the killed commit's was taken and is not given again (v30: ids from a sequence).
        #expect(receipt.sequence > 2)
        try Self.expectChained(f.ledger, count: 3)
        // The recorded tip names the chain's end by position, not by id: the ledger opens again over it.
        try f.ledger.close()
        let tipText = try String(contentsOf: f.directory.appendingPathComponent("ledger-tip"), encoding: .utf8)
        #expect(tipText.contains("entry 3 "), "\(tipText)")
        let reopened = try f.reopen()
        try reopened.close()
    }

    @Test("a table another session holds exclusively for a while (autovacuum's truncation does) delays a draft and a payment, never fails them")
    func readWaitsOutATableLock() throws {
        let f = try Fixture(engine: .postgres)
        guard case .postgres(let address) = f.location else { Issue.record("not on PostgreSQL"); return }
        for amount in ["1.00", "2.00"] { _ = try f.ledger.signAndPost(try f.payment(amount: amount), code: f.nextCode()) }
        // The one-call read gives its writes 5 ms to get a row; the tables its queries read are not theirs to skip.
        for table in ["accounts", "journal", "code_state"] {
            let held = Self.inBackground(
                "DO $$ BEGIN LOCK TABLE \(table) IN ACCESS EXCLUSIVE MODE; PERFORM pg_sleep(0.4); END $$", at: address)
            usleep(100_000)
            // A query no commit answered before (so it is read, not predicted), then a payment.
            let rows = try f.ledger.database.write { db in try db.value(Int64.self, "SELECT count(*) FROM \(table) WHERE 1 = 1") }
            #expect(rows != nil)
            let outcome = try f.ledger.signAndPost(try f.payment(amount: "3.00"), code: f.nextCode())
            guard case .posted = outcome else { Issue.record("with \(table) held: \(outcome)"); return }
            #expect(held.wait(timeout: .now() + 10) == .success)
        }
        try Self.expectChained(f.ledger, count: 5)
    }

    @Test("a draft's exchange-rate quote reads both accounts' currencies in one round trip; a conversion still gets its rate")
    func draftInOneRoundTrip() throws {
        let f = try Fixture(engine: .postgres)
        _ = try f.payment(amount: "1.00")
        let before = try #require(f.ledger.databaseRoundTrips)
        let document = try f.payment(amount: "2.00")
        #expect(try #require(f.ledger.databaseRoundTrips) - before == 1)
        #expect(document[Conversion.Key.rate] == nil)
        // Between own accounts in two currencies, the quote is there (its rates read after the currencies).
        let usd = OfficialRate(currency: "USD", numericCode: "840", name: "Доллар США", nominal: 1, value: try #require(Decimal(string: "92.5058")))
        try f.ledger.importRates([usd], date: "2025-06-15", margin: try #require(Decimal(string: "0.015")), source: "XML_daily.xml")
        let converted = try f.payment(to: CoreTests.dollars, amount: "10000.00")
        #expect([converted["creditAmount"], converted["rate"], converted["ratePair"]] == ["106.50", "93.893387", "USD/RUB"])
    }

    @Test("a row changed after the read is refused with 40001 at commit though its query runs from the session's kept plan")
    func keptPlanStillRefusesAChangedRow() throws {
        let f = try Fixture(engine: .postgres)
        guard case .postgres(let address) = f.location else { Issue.record("not on PostgreSQL"); return }
        _ = try f.ledger.signAndPost(try f.payment(amount: "1.00"), code: f.nextCode())
        let store = try PostgresStore(address: address)
        defer { try? store.close() }
        let query = "SELECT number, balance FROM accounts WHERE number = '40817810438000000001'"
        // The digest the read round answers, and the one the released step's rbs_v19_digest makes of the same rows.
        func digests() throws -> (read: String?, released: String?) {
            try store.read { db in
                (try db.value(String.self, "SELECT value_text FROM rbs_v21_read('{}', ARRAY[?::text], ARRAY[0::BIGINT]) WHERE kind = 'digest'", query),
                 try db.value(String.self, "SELECT rbs_v19_digest(?::text)", query))
            }
        }
        /// The commit's check of `query` against `digest`: the SQLSTATE it refused with, "" when it passed.
        func commitState(_ digest: String) throws -> String {
            try store.read { db in
                do {
                    _ = try db.rows("SELECT journal_base FROM rbs_v21_commit(ARRAY[?::text], ARRAY[?::text])", query, digest)
                    return ""
                } catch let refusal as PostgresRefusal {
                    return refusal.sqlState
                }
            }
        }
        let before = try digests()
        #expect(before.read != nil)
        #expect(before.read == before.released)
        let read = try #require(before.read)
        // Unchanged rows pass, the first time (the plan made) and the second (the kept plan run).
        #expect(try commitState(read) == "")
        #expect(try commitState(read) == "")
        _ = try f.ledger.signAndPost(try f.payment(amount: "2.00"), code: f.nextCode())
        #expect(try commitState(read) == "40001")
        let after = try digests()
        #expect(after.read == after.released)
        #expect(after.read != before.read)
        #expect(try commitState(try #require(after.read)) == "")
    }

    @Test("the session keeps a plan only for a query seen before, and at most 32: one-off queries do not pile up")
    func keptPlansAreBounded() throws {
        let f = try Fixture(engine: .postgres)
        guard case .postgres(let address) = f.location else { Issue.record("not on PostgreSQL"); return }
        let store = try PostgresStore(address: address)
        defer { try? store.close() }
        let (seenOnce, kept, digests) = try store.read { db in
            let queries = (1...40).map { "SELECT \($0) AS n" }
            let list = queries.map { "'\($0)'" }.joined(separator: ", ")
            func keptCount() throws -> Int64? {
                try db.value(Int64.self, "SELECT count(*) FROM pg_prepared_statements WHERE name LIKE 'rbs\\_v21\\_%'")
            }
            // Seen once (as a commit's checks or answers see them): run as they are, nothing kept.
            _ = try db.rows("SELECT cardinality(rbs_v21_lines(q)) FROM unnest(ARRAY[\(list)]) AS q")
            let seenOnce = try keptCount()
            _ = try db.rows("SELECT cardinality(rbs_v21_lines(q)) FROM unnest(ARRAY[\(list)]) AS q")
            let digests = try db.values(String.self, """
                SELECT value_text FROM rbs_v21_read('{}', ARRAY[\(list)], array_fill(0::BIGINT, ARRAY[40])) WHERE kind = 'digest'
                """)
            return (seenOnce, try keptCount(), digests)
        }
        #expect(digests.count == 40)
        #expect(digests.first == Insecure.MD5.hash(data: Data(#"{"n":1}"#.utf8)).map { String(format: "%02x", $0) }.joined())
        #expect(seenOnce == 0, "a query seen once is not prepared")
        #expect((1...32).contains(try #require(kept)))
    }

    @Test("a database without the step's functions numbers in the body as before, and the chain goes on after the step")
    func withoutTheStep() throws {
        let f = try Fixture(engine: .postgres)
        guard case .postgres(let address) = f.location else { Issue.record("not on PostgreSQL"); return }
        _ = try f.ledger.signAndPost(try f.payment(amount: "1.00"), code: f.nextCode())
        let administrator = try PostgresStore(address: address)
        try administrator.write { db in
            try db.executeScript("""
                DROP PROCEDURE rbs_v22_commit_durably(TEXT[], TEXT[], TEXT[], BIGINT, TEXT, BIGINT, BYTEA, BIGINT, BIGINT, BIGINT, TEXT);
                DROP PROCEDURE rbs_v21_commit_durably(TEXT[], TEXT[], BIGINT, TEXT, BIGINT, BYTEA, BIGINT, BIGINT, BIGINT);
                DROP PROCEDURE rbs_v24_commit_durably(TEXT[], TEXT[], TEXT[], BIGINT, TEXT, BIGINT, BYTEA, BIGINT, BIGINT, BIGINT, TEXT);
                \(Self.dropV26)
                DROP FUNCTION rbs_v21_read(TEXT[], TEXT[], BIGINT[]);
                DELETE FROM rbs_schema_steps WHERE name IN ('\(PostgresStore.chainStep)', '\(PostgresStore.answersStep)',
                                                           '\(PostgresStore.answersAsRowsStep)', '\(PostgresStore.keptPlansStep)');
                """)
        }
        try administrator.close()
        // This host finds the functions gone and goes on; a host started now never looks for them.
        for amount in ["2.00", "3.00"] {
            guard case .posted = try f.ledger.signAndPost(try f.payment(amount: amount), code: f.nextCode()) else {
                Issue.record("a payment without the step was not posted"); return
            }
        }
        try f.ledger.close()
        #expect(try Ledger.migrateDatabase(dataDirectory: f.directory, location: f.location)
                == [PostgresStore.chainStep, PostgresStore.answersStep, PostgresStore.answersAsRowsStep, PostgresStore.keptPlansStep,
                    PostgresStore.integrationStep, PostgresStore.sequencedStep])
        let ledger = try f.reopen()
        defer { try? ledger.close() }
        let last = try ledger.draft(operation: "payment.domestic", plugin: "ru.example.payments", pluginVersion: "1.0.0", fields: [
            DocumentField("from", "40817810438000000001"), DocumentField("account", FeeTests.payee), DocumentField("amount", "4.00"),
            DocumentField("currency", "RUB"), DocumentField("name", "ООО Ромашка"), DocumentField("purpose", "Оплата 4.00"),
        ])
        guard case .posted(let receipt) = try ledger.signAndPost(last, code: f.nextCode()) else {
            Issue.record("a payment after the step was not posted"); return
        }
        #expect(receipt.sequence == 4)
        try Self.expectChained(ledger, count: 4)
    }
}

/// The provisional numbers of ``SpeculativeTransaction`` without a server: what is sent in their place.
@Suite("PostgreSQL: provisional journal numbers")
struct ProvisionalNumberTests {
    @Test("a provisional number is sent as rbs_v21_seq(k), the entry's hashes as server calls; a customer's digits stay text")
    func inlinedAsServerCalls() throws {
        let db = SpeculativeTransaction(answered: [:], guesses: [:], sequencing: true)
        let tip = try Journal.tip(db)
        #expect(tip.sequence == SpeculativeTransaction.provisionalBase)
        let entry = JournalEntry(sequence: tip.sequence + 1, kind: .acknowledged, documentId: "d1", document: Data("doc".utf8),
                                 signature: Data([1, 2]), keyId: "k", reason: "\(tip.sequence + 1)", recordedAtMilliseconds: 5,
                                 previousHash: tip.hash)
        try entry.insert(db, createdAtMilliseconds: 5)
        try db.execute("INSERT INTO postings (journal_seq, amount) VALUES (?, ?)", tip.sequence + 1, "\(tip.sequence + 1)")
        let writes = db.writes
        #expect(writes.count == 2)
        #expect(writes[0].contains("rbs_v21_seq(1), 'acknowledged'::text"))
        #expect(writes[0].contains("rbs_v21_prev(1), rbs_v21_hash(1, '\\x"))
        // The reason is a customer's text that spells the provisional number: it is sent as that text.
        #expect(writes[0].contains("'\(tip.sequence + 1)'::text"))
        #expect(writes[1].hasSuffix("VALUES (rbs_v21_seq(1), '\(tip.sequence + 1)'::text)"))
        // Asked again in the same transaction, the tip is the entry just inserted: the next is k = 2.
        #expect(try Journal.tip(db).sequence == tip.sequence + 1)
    }

    @Test("the commit answers again only the queries of tables the transaction writes; the others' checked rows are kept, once-only lookups neither")
    func answersOnlyForTablesWritten() throws {
        let row = SQLRow(columns: SQLColumns(["x"]), values: [.integer(1)])
        let account = "SELECT a.number, a.balance FROM accounts a LEFT JOIN customer_accounts c ON c.number = a.number WHERE a.number = ?"
        let key = "SELECT public_key FROM keys WHERE key_id = ?"
        let holder = "SELECT id FROM customers WHERE key_id = ? UNION SELECT c.id FROM customer_passkeys p JOIN customers c ON c.id = p.customer_id WHERE p.key_id = ?"
        let texts = [PostgresSQL.inlined(account, [.text("408")]), PostgresSQL.inlined(key, [.text("k1")]),
                     PostgresSQL.inlined(holder, [.text("k1"), .text("k1")])].compactMap { $0 }
        let db = SpeculativeTransaction(answered: Dictionary(uniqueKeysWithValues: texts.map { ($0, [row]) }), guesses: [:])
        _ = try db.rows(account, arguments: [.text("408")])
        _ = try db.rows(key, arguments: [.text("k1")])
        _ = try db.rows(holder, arguments: [.text("k1"), .text("k1")])
        _ = try db.rows(EmbeddedBank.journalByDocumentQuery, arguments: [.integer(7), .text("d1")])
        try db.execute("UPDATE accounts SET balance = ? WHERE number = ?", "1.00", "408")
        #expect(db.tablesWritten == ["accounts"])
        let split = db.queriesAfter(wrote: db.tablesWritten)
        #expect(split.answer.map(\.text) == [texts[0]], "the account's row is answered again after the update")
        #expect(split.keep.map(\.text) == [texts[1], texts[2]], "the key's and the holder's rows are kept as checked")
        // Without the split (a commit told nothing of its writes) every query but the once-only lookup is answered.
        #expect(db.queriesAfter(wrote: nil).answer.map(\.text) == texts)
        #expect(SQLTables.written(by: "INSERT INTO journal (seq) VALUES ($1)") == ["journal"])
        #expect(SQLTables.written(by: "DELETE FROM baskets WHERE id = $1") == ["baskets"])
        #expect(SQLTables.read(by: "DELETE FROM baskets WHERE id = $1").isEmpty)
        #expect(SQLTables.read(by: holder) == ["customers", "customer_passkeys"])
    }

    @Test("the parts sent for the server's hash give the stored hash with the real number and predecessor")
    func partsGiveTheHash() {
        let previous = Data(repeating: 7, count: 32)
        let entry = JournalEntry(sequence: 42, kind: .posted, documentId: "d", document: Data("x".utf8), signature: Data([9]),
                                 keyId: "k", debit: "a", credit: "b", amount: "1.00", currency: "RUB", balanceAfter: "2.00",
                                 recordedAtMilliseconds: 1, basketId: "basket", previousHash: previous)
        let parts = entry.hashedParts
        #expect(JournalEntry.chainHash(before: parts.before, sequence: 42, between: parts.between, previousHash: previous) == entry.hash)
    }
}

extension PostgresChainTests {
    @Test("answers as rows (v24) are the cells the server split before (v22): the same rows and digests, every kind of value")
    func answersAsRowsMatchCells() throws {
        let f = try Fixture(engine: .postgres)
        guard case .postgres(let address) = f.location else { Issue.record("not on PostgreSQL"); return }
        _ = try f.ledger.signAndPost(try f.payment(amount: "1.00"), code: f.nextCode())
        let store = try PostgresStore(address: address)
        defer { try? store.close() }
        let queries = [
            "SELECT 12::int8 AS n, 'a\"b\\c' || chr(10) || chr(1) || 'дé😀' AS t, NULL::text AS z, true AS b, '\\x00ff'::bytea AS h",
            "SELECT x FROM (VALUES (1), (2)) AS v (x) WHERE false",
            "SELECT g AS n, 'row ' || g AS t FROM generate_series(1, 3) AS g",
            "SELECT * FROM journal ORDER BY seq",
            "SELECT a.number, a.balance, a.blocked FROM accounts a ORDER BY a.number",
        ]
        let array = "ARRAY[" + queries.map { "'" + $0.replacingOccurrences(of: "'", with: "''") + "'" }.joined(separator: ", ") + "]::text[]"
        let (cells, rows) = try store.read { db in
            (try db.value(String.self, "SELECT rbs_v22_answers(\(array))"), try db.value(String.self, "SELECT rbs_v24_answers(\(array))"))
        }
        let cellsText = try #require(cells), rowsText = try #require(rows)
        let fromCells = try #require(PostgresStore.cells(fromJSON: cellsText))
        let fromRows = try #require(PostgresStore.cells(fromRowsJSON: rowsText))
        #expect(fromRows == fromCells)
        #expect(fromRows.filter { $0.kind == "digest" }.count == queries.count)
        #expect(fromRows.contains(Cell(query: 1, row: 1, name: "t", kind: "string", value: "a\"b\\c\n\u{1}дé😀")))
        // A JSON column is not read by the one-call path either way: no cells from the rows.
        let json = try store.read { db in try db.value(String.self, "SELECT rbs_v24_answers(ARRAY['SELECT ''{\"a\": 1}''::json AS j'])") }
        let jsonText = try #require(json)
        #expect(PostgresStore.cells(fromRowsJSON: jsonText) == nil)
    }
    typealias Cell = PostgresStore.Cell

    /// Two payments, then `script` run by an administrator (a database restored from before a step: its procedure
    /// dropped, its step forgotten), then three payments: the round trips each took, and the steps the next
    /// migration applies again.
    static func tripsAfterDropping(_ script: String) throws -> (trips: [Int], migrated: [String], verified: VerifyResult?) {
        let f = try Fixture(engine: .postgres)
        guard case .postgres(let address) = f.location else { Issue.record("not on PostgreSQL"); return ([], [], nil) }
        for amount in ["1.00", "2.00"] { _ = try f.ledger.signAndPost(try f.payment(amount: amount), code: f.nextCode()) }
        let administrator = try PostgresStore(address: address)
        try administrator.write { db in try db.executeScript(script) }
        try administrator.close()
        var trips: [Int] = []
        for amount in ["3.00", "4.00", "5.00"] {
            let document = try f.payment(amount: amount)
            let before = try #require(f.ledger.databaseRoundTrips)
            guard case .posted = try f.ledger.signAndPost(document, code: f.nextCode()) else {
                Issue.record("a payment after \(script) was not posted"); return (trips, [], nil)
            }
            trips.append(try #require(f.ledger.databaseRoundTrips) - before)
        }
        try f.ledger.close()
        let migrated = try Ledger.migrateDatabase(dataDirectory: f.directory, location: f.location)
        let ledger = try f.reopen()
        defer { try? ledger.close() }
        return (trips, migrated, try ledger.journal.verify())
    }

    /// v26's procedure dropped, and v29's and v30's, which a database restored from before v26 would not have either.
    static let dropV26 = """
        DROP PROCEDURE rbs_v26_commit_durably(TEXT[], TEXT[], TEXT[], TEXT[], TEXT[], TEXT[], TEXT[], BIGINT, TEXT, BIGINT, BYTEA, BIGINT, BIGINT, BIGINT, TEXT);
        DROP PROCEDURE rbs_v29_commit_durably(TEXT[], TEXT[], TEXT[], TEXT[], TEXT[], TEXT[], TEXT[], BIGINT, TEXT, BIGINT, BYTEA, BIGINT, BIGINT, BIGINT, TEXT);
        \(dropV30)
        DELETE FROM rbs_schema_steps WHERE name = '\(PostgresStore.integrationStep)';
        """
    /// v30's procedure dropped and its step forgotten (the step is applied again, idempotently).
    static let dropV30 = """
        DROP PROCEDURE rbs_v30_commit_durably(TEXT[], TEXT[], TEXT[], TEXT[], TEXT[], TEXT[], TEXT[], TEXT, TEXT, BIGINT, BYTEA, BIGINT, BIGINT, BIGINT, TEXT);
        DELETE FROM rbs_schema_steps WHERE name = '\(PostgresStore.sequencedStep)';
        """

    @Test("a database without v24's procedure (restored from before it) answers through v22's: payments post in one round trip still")
    func withoutAnswersAsRows() throws {
        let (trips, migrated, verified) = try Self.tripsAfterDropping("""
            DROP PROCEDURE rbs_v24_commit_durably(TEXT[], TEXT[], TEXT[], BIGINT, TEXT, BIGINT, BYTEA, BIGINT, BIGINT, BIGINT, TEXT);
            \(Self.dropV26)
            DELETE FROM rbs_schema_steps WHERE name IN ('\(PostgresStore.answersAsRowsStep)', '\(PostgresStore.keptPlansStep)');
            """)
        // The first finds v30's, v29's, v26's and v24's procedures gone (each call refused at lookup, nothing run) and
        // commits through v22's.
        #expect(trips == [5, 1, 1], "\(trips)")
        #expect(migrated == [PostgresStore.answersAsRowsStep, PostgresStore.keptPlansStep, PostgresStore.integrationStep,
                             PostgresStore.sequencedStep])
        #expect(verified == .ok(5))
    }

    @Test("a database without v26's procedure (restored from before it) commits through v24's: payments post in one round trip still")
    func withoutKeptPlans() throws {
        let (trips, migrated, verified) = try Self.tripsAfterDropping("""
            \(Self.dropV26)
            DELETE FROM rbs_schema_steps WHERE name = '\(PostgresStore.keptPlansStep)';
            """)
        // The first finds v30's, v29's and v26's procedures gone (each call refused at lookup, nothing run) and
        // commits through v24's.
        #expect(trips == [4, 1, 1], "\(trips)")
        #expect(migrated == [PostgresStore.keptPlansStep, PostgresStore.integrationStep, PostgresStore.sequencedStep])
        #expect(verified == .ok(5))
    }

    @Test("kept plans (v26): one plan a statement text whatever its values; a changed row still refused with 40001; a plan the session lost named by 26000")
    func keptPlansPerText() throws {
        let f = try Fixture(engine: .postgres)
        guard case .postgres(let address) = f.location else { Issue.record("not on PostgreSQL"); return }
        _ = try f.ledger.signAndPost(try f.payment(amount: "1.00"), code: f.nextCode())
        let store = try PostgresStore(address: address)
        defer { try? store.close() }
        let sql = "SELECT number, balance FROM accounts WHERE number = ? AND blocked = ?"
        func kept(_ account: String) throws -> PostgresSQL.Parametrized {
            try #require(PostgresSQL.parametrized(sql, [.text(account), .integer(0)]))
        }
        let accounts = ["40817810438000000001", "40817810738000000002", "40702810900000012345", "00000000000000000000"]
        /// `rbs_v26_commit`'s check of each statement against its digest in `db`'s transaction: the SQLSTATE it
        /// refused with, "" when it passed.
        func commitState(_ db: any SQLTransaction, _ statements: [PostgresSQL.Parametrized], _ digests: [String]) throws -> String {
            func array(_ texts: [String]) -> String {
                "ARRAY[" + texts.map { "'" + $0.replacingOccurrences(of: "'", with: "''") + "'" }.joined(separator: ", ") + "]::text[]"
            }
            do {
                _ = try db.rows("""
                    SELECT journal_base FROM rbs_v26_commit(\(array(statements.map(\.template))), \(array(statements.map(\.arguments))),
                                                            \(array(statements.map(\.types))), \(array(digests)))
                    """)
                return ""
            } catch let refusal as PostgresRefusal {
                return refusal.sqlState
            }
        }
        // The digests rbs_v21_read gives the same rows with the values written in.
        let digests = try store.read { db in
            try accounts.map { account in
                let text = try #require(PostgresSQL.inlined(sql, [.text(account), .integer(0)]))
                return try #require(try db.value(String.self, "SELECT value_text FROM rbs_v21_read('{}', ARRAY[?::text], ARRAY[0::BIGINT]) WHERE kind = 'digest'", text))
            }
        }
        #expect(digests[3] == SpeculativeTransaction.emptyDigest, "no rows: the digest of none")
        let (passed, plans) = try store.read { db in
            (try commitState(db, try accounts.map(kept), digests),
             try db.value(Int64.self, "SELECT count(*) FROM pg_prepared_statements WHERE name LIKE 'rbs\\_v26\\_%'"))
        }
        #expect(passed == "", "unchanged rows pass, each account's through the one plan")
        #expect(plans == 1, "one plan for the four accounts")
        // The four checks as one kept query (what the host sends for consecutive checks): the server's digest of its
        // one row is the host's, and one account's digest wrong refuses it.
        let merged = PostgresSQL.mergedChecks(try accounts.map(kept), digests: digests)
        #expect(merged.plans.count == 1)
        var wrong = digests
        wrong[try #require(digests.firstIndex { $0 != SpeculativeTransaction.emptyDigest })] = SpeculativeTransaction.emptyDigest
        let mergedWrong = PostgresSQL.mergedChecks(try accounts.map(kept), digests: wrong)
        let (mergedPassed, mergedRefused) = try store.read { db in
            (try commitState(db, merged.plans, merged.digests), try commitState(db, mergedWrong.plans, mergedWrong.digests))
        }
        #expect(mergedPassed == "")
        #expect(mergedRefused == "40001")
        // Since v27-kept-plans-inline the commit and the answers name each plan where they run it, calling no
        // function for a statement whose plan the session keeps.
        let bodies = try store.read { db in
            try db.rows("SELECT prosrc FROM pg_proc WHERE proname IN ('rbs_v26_commit', 'rbs_v26_answers')").map { try $0.decode(String.self, forColumn: "prosrc") }
        }
        #expect(bodies.count == 2 && bodies.allSatisfy { !$0.contains("rbs_v26_run(") && $0.contains("position(name IN known)") }, "\(bodies)")
        // A session that names a plan it does not hold (a DEALLOCATE behind the host's back) refuses with 26000,
        // which the host answers by forgetting the names and committing through v24's procedure.
        let lost = try store.read { db in
            let template = try kept(accounts[0]).template
            let name = try #require(try db.value(String.self, "SELECT rbs_v26_kept('q', ?, ?)", template, "text,int8"))
            _ = try db.rows("DEALLOCATE \(name)")
            return try commitState(db, [try kept(accounts[0])], [digests[0]])
        }
        #expect(lost == PostgresStore.unknownPlan)
        // A row changed after its digest was taken: refused as a serialisation failure, from the kept plan.
        _ = try f.ledger.signAndPost(try f.payment(amount: "2.00"), code: f.nextCode())
        let changed = try store.read { db in
            _ = try db.rows("SELECT set_config('rbs.kept_plans', '', false)")
            return try commitState(db, [try kept(accounts[0])], [digests[0]])
        }
        #expect(changed == "40001")
        let mergedChanged = try store.read { db in try commitState(db, merged.plans, merged.digests) }
        #expect(mergedChanged == "40001", "a row changed under one check of a merged one refuses it")
        // The host's payments go through v26's procedure, one round trip each once the answers are known.
        var trips: [Int] = []
        for amount in ["3.00", "4.00"] {
            let document = try f.payment(amount: amount)
            let before = try #require(f.ledger.databaseRoundTrips)
            _ = try f.ledger.signAndPost(document, code: f.nextCode())
            trips.append(try #require(f.ledger.databaseRoundTrips) - before)
        }
        #expect(trips == [1, 1], "\(trips)")
        #expect(try f.ledger.journal.verify() == .ok(4))
    }
}

