import Crypto
import Foundation
import RBSMoney
import Testing
@testable import RBSLedger

@Suite("Group commit")
struct GroupCommitTests {
    static let current = CoreTests.current
    static let savings = CoreTests.savings
    static let blocked = CoreTests.blocked

    /// A second ledger with the same keys and the same (fresh) state, in a copy of the fixture's directory.
    static func twin(of f: Fixture) throws -> Ledger {
        let copy = temporaryDirectory()
        // Private, as every data folder must stay while its ledger is open (the ledger stops on a folder others can read).
        try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let ledger = try Ledger.create(dataDirectory: copy, location: try f.freshLocation(), clock: f.clock.closure).ledger
        for name in ["signing.key", "totp.secret", "signing.name"] {
            try FileManager.default.copyItem(at: f.directory.appendingPathComponent(name), to: copy.appendingPathComponent(name))
        }
        return ledger
    }

    /// What an entry says, without the time it was recorded (and so without its hash).
    static func content(_ e: JournalEntry) -> [String?] {
        [String(e.sequence), e.kind.rawValue, e.documentId, Hex.encode(e.document), Hex.encode(e.signature), e.keyId,
         e.reasonCode, e.reason, e.debit, e.credit, e.amount, e.currency, e.balanceAfter]
    }

    @Test("a batch with duplicates and insufficient funds after earlier debits gives the outcomes of one at a time")
    func batchEqualsOneAtATime() throws {
        let f = try Fixture()
        let twin = try Self.twin(of: f)
        let card = try f.ledger.draft(operation: "card.block", plugin: "ru.example.cards", pluginVersion: "1",
                                      fields: [DocumentField("card", "4276 **** 1234")])
        let before = try f.payment(amount: "1.00")  // posted before the batch
        let big = try f.payment(amount: "100000.00")
        let own = try f.payment(to: Self.savings, amount: "30000")
        let tooMuch = try f.payment(amount: "30000.00")  // 19,999.00 left after the two above
        let rest = try f.payment(amount: "19999.00")  // exactly to zero
        let back = try f.payment(from: Self.savings, to: Self.current, amount: "5")
        let fromBlocked = try f.payment(from: Self.blocked, amount: "1.00")
        let overdraw = try f.payment(amount: "5.01")  // 5.00 left
        let tooPrecise = try f.payment(amount: "1.001")
        let batch = [big, own, big, tooMuch, before, rest, back, card, fromBlocked, overdraw, own, tooPrecise, card, big]

        // One at a time on the twin, each in its own transaction.
        _ = try twin.signAndPost(before, code: f.nextCode())
        var expected: [Outcome] = []
        for document in batch { expected.append(try twin.signAndPost(document, code: f.nextCode())) }

        // The same as one batch.
        _ = try f.ledger.signAndPost(before, code: f.nextCode())
        let outcomes = try f.ledger.process(batch: batch, code: f.nextCode())

        #expect(outcomes == expected)
        let codes = outcomes.map { outcome -> String in
            switch outcome {
            case .posted: "posted"
            case .acknowledged: "acknowledged"
            case .awaiting: "awaiting"
            case .rejected(_, _, let reason): reason.code.rawValue
            }
        }
        #expect(codes == ["posted", "posted", "posted", "insufficient_funds", "posted", "posted", "posted", "acknowledged",
                          "account_blocked", "insufficient_funds", "posted", "too_many_decimals", "acknowledged", "posted"])
        #expect(outcomes[2] == outcomes[0] && outcomes[13] == outcomes[0] && outcomes[10] == outcomes[1])
        #expect(outcomes[4].sequence == 1)  // journaled before the batch
        if case .rejected(_, _, let reason) = outcomes[3] {
            #expect(reason.message.contains("balance 19999.00 RUB"))
        }
        #expect(try f.balance(Self.current) == 5)
        #expect(try f.ledger.bank.accounts() == (try twin.bank.accounts()))
        let entries = try f.ledger.journal.entries()
        #expect(entries.map(Self.content) == (try twin.journal.entries()).map(Self.content))
        #expect(entries.count == 10)
        #expect(try f.ledger.journal.verify() == .ok(10))
        #expect(try twin.journal.verify() == .ok(10))

        // The whole batch again: every document is already journaled, so the first outcomes and nothing new.
        #expect(try f.ledger.process(batch: batch, code: f.nextCode()) == outcomes)
        #expect(try f.ledger.journal.entries().count == 10)
        #expect(try f.ledger.bank.accounts() == (try twin.bank.accounts()))
    }

    @Test("batches prepared ahead, each signed while the one before commits, give the outcomes of processing them in turn")
    func preparedBatchesEqualProcessedOnes() throws {
        let f = try Fixture()
        let twin = try Self.twin(of: f)
        // Five batches of 30, the third one's payments more than the account holds once the first two are posted,
        // and a document of the first batch repeated in the fourth.
        var batches = try (0..<5).map { round in
            try (0..<30).map { _ in try f.payment(amount: round == 2 ? "9000.00" : "10.00") }
        }
        batches[3][7] = batches[0][7]
        var expected: [[Outcome]] = []
        for batch in batches { expected.append(try twin.process(batch: batch, code: f.nextCode())) }

        var outcomes: [[Outcome]] = []
        var next: PreparedBatch? = try f.ledger.prepare(batch: batches[0])
        for index in batches.indices {
            let current = try #require(next)
            #expect(current.documents == batches[index])
            next = index + 1 < batches.count ? try f.ledger.prepare(batch: batches[index + 1], after: current) : nil
            outcomes.append(try f.ledger.process(current, code: f.nextCode()))
        }
        #expect(outcomes == expected)
        #expect(outcomes[3][7] == outcomes[0][7])
        #expect(try f.ledger.bank.accounts() == (try twin.bank.accounts()))
        let entries = try f.ledger.journal.entries()
        #expect(entries.map(Self.content) == (try twin.journal.entries()).map(Self.content))
        #expect(try f.ledger.journal.verify() == .ok(entries.count))

        // A prepared batch dropped unprocessed writes nothing; one naming another key is refused before signing.
        do {
            let dropped = try f.ledger.prepare(batch: [try f.payment(amount: "1.00")], after: nil)
            #expect(dropped.documents.count == 1)
        }
        #expect(try f.ledger.journal.entries().count == entries.count)
        let foreign = try f.ledger.draft(operation: "payment", plugin: "p", pluginVersion: "1",
                                         fields: [DocumentField("amount", "1.00")], keyId: "0123456789abcdef")
        #expect(throws: LedgerError.self) { try f.ledger.prepare(batch: [foreign]) }
    }

    @Test("signed documents submitted as a batch give the outcomes of one at a time")
    func submitBatchEqualsOneAtATime() throws {
        let f = try Fixture()
        let twin = try Self.twin(of: f)
        let documents = try (0..<40).map { i in try f.payment(amount: i % 7 == 3 ? "60000.00" : "1000.50") }
        let signed = try documents.map { try f.identity.sign($0) }
        let batch = signed + signed.prefix(5)
        let outcomes = try f.ledger.bank.submit(batch: batch, publicKey: f.identity.publicKey)
        let expected = try batch.map { try twin.bank.submit(signed: $0, publicKey: f.identity.publicKey) }
        #expect(outcomes == expected)
        #expect(try f.ledger.bank.accounts() == (try twin.bank.accounts()))
        #expect(try f.ledger.journal.verify() == .ok(40))
    }

    @Test("a bad signature anywhere in a batch refuses the whole batch, naming the first")
    func badSignatureInBatch() throws {
        let f = try Fixture()
        var batch = try (0..<30).map { _ in try f.identity.sign(try f.payment()) }
        batch[17] = SignedDocument(document: batch[17].document, signature: Data(count: 64))
        batch[23] = SignedDocument(document: batch[23].document, signature: Data(count: 64))
        #expect(throws: LedgerError.badSignature(documentId: batch[17].id)) {
            try f.ledger.bank.submit(batch: batch, publicKey: f.identity.publicKey)
        }
        #expect(try f.ledger.journal.entries().isEmpty)
    }

    @Test("a document for another key refuses the batch before the code is used")
    func foreignKeyRefusedFirst() throws {
        let f = try Fixture()
        let good = try f.payment(amount: "1.00")
        let foreign = try Document(operation: "payment.domestic", plugin: "p", pluginVersion: "1", fields: [],
                                   createdAt: f.clock.now, nonce: Document.randomNonce(), keyId: "0123456789abcdef")
        let code = f.nextCode()
        #expect(throws: LedgerError.self) { try f.ledger.process(batch: [good, foreign], code: code) }
        #expect(try f.ledger.journal.entries().isEmpty)
        // The code was not spent.
        #expect(try f.ledger.process(batch: [good], code: code).count == 1)
    }

    @Test("a large batch is journaled in order while it is being signed")
    func largeBatch() throws {
        let f = try Fixture()
        let batch = try (0..<301).map { i in try f.payment(amount: i == 150 ? "200000.00" : "10.00") }
        let outcomes = try f.ledger.process(batch: batch, code: f.nextCode())
        #expect(outcomes.map(\.documentId) == batch.map(\.id))
        #expect(outcomes.map(\.sequence) == Array(1...301))
        #expect(try f.balance(Self.current) == 150_000 - 3_000)
        #expect(try f.ledger.journal.verify() == .ok(301))
    }

    @Test("the entry hash is the documented part-by-part SHA-256")
    func entryHashFollowsTheSpecification() throws {
        let f = try Fixture()
        _ = try f.ledger.process(batch: [try f.payment(amount: "12.34"), try f.payment(amount: "999999.00")], code: f.nextCode())
        for entry in try f.ledger.journal.entries() {
            var hasher = SHA256()
            func part(_ bytes: Data?) {
                guard let bytes else { hasher.update(data: Data([0xFF, 0xFF, 0xFF, 0xFF])); return }
                var n = UInt32(bytes.count).bigEndian
                hasher.update(data: Data(bytes: &n, count: 4))
                hasher.update(data: bytes)
            }
            func text(_ value: String?) { part(value.map { Data($0.utf8) }) }
            // Entries that record how they were authorised (all new ones) are RBSJ2, with five more parts.
            let authorization = try #require(entry.authorization)
            text("RBSJ2"); text(String(entry.sequence)); text(entry.kind.rawValue); text(entry.documentId)
            part(entry.document); part(entry.signature); text(entry.keyId); text(entry.reasonCode); text(entry.reason)
            text(entry.debit); text(entry.credit); text(entry.amount); text(entry.currency); text(entry.balanceAfter)
            text(String(entry.recordedAtMilliseconds))
            text(authorization.method.rawValue); text(authorization.suite); text(authorization.challenge)
            text(authorization.response); text(authorization.secretId)
            part(entry.previousHash)
            #expect(entry.hash == Data(hasher.finalize()))
        }
    }

    @Test("amount text padded to the minor units equals formatting the parsed amount")
    func paddedAmounts() throws {
        for (text, target) in [("1", 2), ("0.5", 2), ("100.00", 2), ("12", 0), ("7.1", 3), ("123456789012345678901234", 2)] {
            let scale = DecimalText.scale(of: text)!
            #expect(DecimalText.padded(text, scale: scale, to: target) == DecimalText.format(DecimalText.parse(text)!, scale: target))
        }
        for (text, scale) in [("0", 2), ("0.01", 2), ("-0.05", 2), ("150000.00", 2), ("123", 0), ("-7", 3), ("999999999999999.99", 2),
                              ("12.5", 2), ("-1234567.891", 3)] {
            let minor = try #require(DecimalText.minorUnits(text, scale: scale))
            let value = DecimalText.parse(text)!
            #expect(DecimalText.decimal(minorUnits: minor, scale: scale) == value)
            #expect(DecimalText.format(minorUnits: minor, scale: scale) == DecimalText.format(value, scale: scale))
        }
        #expect(DecimalText.minorUnits("1.001", scale: 2) == nil)
        #expect(DecimalText.minorUnits("99999999999999999.99", scale: 2) == nil)
        #expect(DecimalText.parse("12345678901234567890.5") == Decimal(string: "12345678901234567890.5", locale: Locale(identifier: "en_US_POSIX")))
        #expect(DecimalText.parse("-0.07") == Decimal(string: "-0.07", locale: Locale(identifier: "en_US_POSIX")))
    }

    @Test("the byte-level encoder writes the bytes of the text-level escaping")
    func encoderMatchesTextEscaping() throws {
        let values = ["plain", "a=b", "back\\slash", "line\nfeed", "cr\rtab\t", "ООО «Ромашка» = 7", "emoji 🙂=\\n", "", "=\n\r\t\\"]
        for (index, value) in values.enumerated() {
            let document = try Document(
                operation: "op=" + value, plugin: "p\\" + value, pluginVersion: "1" + value,
                fields: [DocumentField("a\(index)", value), DocumentField("purpose", value + "x")],
                createdAt: Date(timeIntervalSince1970: 1_750_000_000.123), nonce: Data(repeating: UInt8(index), count: 16),
                keyId: "0123456789abcdef")
            var text = CanonicalEncoding.magic + "\n"
            text += "operation=" + CanonicalEncoding.escape(document.operation) + "\n"
            text += "plugin=" + CanonicalEncoding.escape(document.plugin) + "\n"
            text += "plugin_version=" + CanonicalEncoding.escape(document.pluginVersion) + "\n"
            text += "created_at=" + Timestamp.format(milliseconds: document.createdAtMilliseconds) + "\n"
            text += "nonce=" + Hex.encode(document.nonce) + "\n"
            text += "key_id=" + document.keyId + "\n"
            text += "fields=" + String(document.fields.count) + "\n"
            for field in document.fields { text += field.key + "=" + CanonicalEncoding.escape(field.value) + "\n" }
            #expect(CanonicalEncoding.encode(document) == Data(text.utf8))
            #expect(try CanonicalEncoding.decode(CanonicalEncoding.encode(document)) == document)
        }
    }

    @Test("timestamps written digit by digit are the padded parts the text form is made of, years beyond 0000–9999 too")
    func timestampDigits() throws {
        /// The text form as it was first written: each part's decimal text, left-padded with zeros to its width.
        func padded(_ ms: Int64) -> String {
            func pad(_ value: Int64, _ width: Int) -> String {
                let text = String(value)
                return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
            }
            let days = ms >= 0 || ms % 86_400_000 == 0 ? ms / 86_400_000 : ms / 86_400_000 - 1
            let msOfDay = ms - days * 86_400_000
            let (year, month, day) = CalendarDay.civil(fromDays: Int(days))
            return pad(Int64(year), 4) + "-" + pad(Int64(month), 2) + "-" + pad(Int64(day), 2) + "T" + pad(msOfDay / 3_600_000, 2)
                + ":" + pad(msOfDay / 60_000 % 60, 2) + ":" + pad(msOfDay / 1000 % 60, 2) + "." + pad(msOfDay % 1000, 3) + "Z"
        }
        #expect(Timestamp.format(milliseconds: 0) == "1970-01-01T00:00:00.000Z")
        #expect(Timestamp.format(milliseconds: -1) == "1969-12-31T23:59:59.999Z")
        #expect(Timestamp.format(milliseconds: 1_750_000_000_123) == "2025-06-15T15:06:40.123Z")
        #expect(Timestamp.format(milliseconds: -62_167_219_200_000) == "0000-01-01T00:00:00.000Z")
        #expect(Timestamp.format(milliseconds: 253_402_300_799_999) == "9999-12-31T23:59:59.999Z")
        var generator = SystemRandomNumberGenerator()
        let edges: [Int64] = [-62_167_219_200_001, 253_402_300_800_000, -100_000_000_000_000, 400_000_000_000_000]
        for ms in edges + (0..<2_000).map({ _ in Int64.random(in: -70_000_000_000_000...260_000_000_000_000, using: &generator) }) {
            let text = Timestamp.format(milliseconds: ms)
            #expect(text == padded(ms), "\(ms)")
            if (-62_167_219_200_000...253_402_300_799_999).contains(ms) { #expect(Timestamp.parse(text) == ms, "\(ms)") }
        }
    }

    /// The signing workers yield to the committing thread (``SigningThreads``): each runs at the caller's priority
    /// lowered by ``SigningThreads/niceness`` (capped at 19), and every one of them takes work.
    @Test("the signing threads run below the committing thread's priority, all of them")
    func signingThreadsYield() throws {
        final class Seen: @unchecked Sendable {
            let condition = NSCondition()
            var priorities: [Int32] = []
            var threads: Set<UInt> = []
        }
        let which = __priority_which_t(PRIO_PROCESS.rawValue)
        let own = getpriority(which, 0), seen = Seen()
        // One piece of work a thread, each held until every thread holds one: so each thread takes exactly one, however
        // late the machine schedules them (a piece that only slept could all go to the first thread awake).
        for _ in 0..<Parallel.cores {
            SigningThreads.shared.run {
                let priority = getpriority(which, 0), thread = UInt(pthread_self())
                seen.condition.lock()
                seen.priorities.append(priority)
                seen.threads.insert(thread)
                seen.condition.broadcast()
                let deadline = Date() + 10
                while seen.priorities.count < Parallel.cores { guard seen.condition.wait(until: deadline) else { break } }
                seen.condition.unlock()
            }
        }
        seen.condition.lock()
        defer { seen.condition.unlock() }
        let deadline = Date() + 10
        while seen.priorities.count < Parallel.cores { guard seen.condition.wait(until: deadline) else { break } }
        #expect(seen.priorities.count == Parallel.cores)
        #expect(Set(seen.priorities) == [min(19, own + SigningThreads.niceness)])
        #expect(seen.threads.count == Parallel.cores)
    }

    @Test("parallel map keeps the order")
    func parallelMapOrder() {
        let items = Array(0..<1_003)
        #expect(Parallel.map(items) { $0 * 3 } == items.map { $0 * 3 })
        #expect(Parallel.map([1, 2]) { $0 + 1 } == [2, 3])
    }
}
