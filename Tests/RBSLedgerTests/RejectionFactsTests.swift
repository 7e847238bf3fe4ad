import Foundation
import GRDB
import Testing
@testable import RBSLedger

/// A rejection's facts journaled beside its English message (schema step `v18-rejection-facts`, issue #28 item 7), so
/// `journal show`, receipts and a retried request say the core's reason in the reader's language; `verify` checks them
/// against the hashed message.
@Suite("Rejection facts in the journal")
struct RejectionFactsTests {
    /// A payment more than the current account holds, journaled as rejected (entry 1).
    @discardableResult
    static func rejected(_ f: Fixture) throws -> (Rejection, Document) {
        let document = try FeeTests.payment(f, amount: "999999.00", extra: [])
        guard case .rejected(_, 1, let reason) = try f.ledger.signAndPost(document, code: f.nextCode()) else {
            throw FixtureError("the payment was not rejected as entry 1")
        }
        return (reason, document)
    }

    struct FixtureError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    @Test("a rejection's facts are journaled and read back with it: the entry, the repeated outcome")
    func journaledAndReadBack() throws {
        let f = try Fixture()
        let (reason, document) = try Self.rejected(f)
        let facts = ["account": CoreTests.current, "balance": "150000.00", "amount": "999999.00", "currency": "RUB"]
        #expect(reason.facts == facts)
        let entry = try #require(try f.ledger.journal.entries().first)
        #expect(entry.reasonFacts == facts && entry.reason == reason.message)
        // The same signed document again answers the first outcome, facts and all.
        guard case .rejected(_, 1, let repeated) = try f.ledger.signAndPost(document, code: f.nextCode()) else {
            Issue.record("not the first outcome")
            return
        }
        #expect(repeated.facts == facts && repeated.message == reason.message)
        #expect(try f.ledger.journal.verify() == .ok(1))
    }

    @Test("SQLite: verify names an entry whose facts were altered, or are no JSON object, and accepts an entry without any")
    func alteredFactsFailVerify() throws {
        let f = try Fixture(engine: .sqlite)
        try Self.rejected(f)
        try f.ledger.close()
        let queue = try DatabaseQueue(path: f.directory.appendingPathComponent("rbs.sqlite").path)
        try queue.write { db in try db.execute(sql: "DROP TRIGGER journal_no_update") }
        func verify() throws -> VerifyResult {
            let ledger = try Ledger(dataDirectory: f.directory, clock: f.clock.closure)
            defer { try? ledger.close() }
            return try ledger.journal.verify()
        }
        let kept = try queue.read { db in try String.fetchOne(db, sql: "SELECT reason_facts FROM journal WHERE seq = 1") }
        #expect(kept == #"{"account":"\#(CoreTests.current)","amount":"999999.00","balance":"150000.00","currency":"RUB"}"#)

        // A Russian reason must not say another balance than the signed English one.
        let forged = kept?.replacingOccurrences(of: "150000.00", with: "1500000.00")
        try queue.write { db in try db.execute(sql: "UPDATE journal SET reason_facts = ? WHERE seq = 1", arguments: [forged]) }
        guard case .bad(1, let altered) = try verify() else { Issue.record("altered facts were not found"); return }
        #expect(altered == #"its rejection's fact balance="1500000.00" is not in its journaled reason (the reason_facts column was altered)"#)

        try queue.write { db in try db.execute(sql: "UPDATE journal SET reason_facts = 'not json' WHERE seq = 1") }
        guard case .bad(1, let unreadable) = try verify() else { Issue.record("unreadable facts were not found"); return }
        #expect(unreadable == "its rejection's facts (reason_facts) are not a JSON object of strings")

        // An entry from before the facts were kept has none: the journaled message is its reason.
        try queue.write { db in try db.execute(sql: "UPDATE journal SET reason_facts = NULL WHERE seq = 1") }
        #expect(try verify() == .ok(1))
    }
}
