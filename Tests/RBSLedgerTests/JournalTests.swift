import Foundation
import GRDB
import Testing
@testable import RBSLedger

@Suite("Journal")
struct JournalTests {
    /// A ledger with three posted payments, closed (so the WAL is checkpointed into the main file); these tests
    /// edit the SQLite file itself, so they run on SQLite only (PostgresStoreTests has the database's refusals).
    static func closedLedgerWithThreeEntries() throws -> (Fixture, [Document]) {
        let (f, documents) = try ledgerWithThreeEntries()
        try f.ledger.close()
        return (f, documents)
    }

    /// The same three posted payments (1.00, 2.00, 3.00), the ledger left open.
    static func ledgerWithThreeEntries() throws -> (Fixture, [Document]) {
        let f = try Fixture(engine: .sqlite)
        var documents: [Document] = []
        for amount in ["1.00", "2.00", "3.00"] {
            let document = try f.payment(amount: amount)
            documents.append(document)
            _ = try f.ledger.signAndPost(document, code: f.nextCode())
        }
        return (f, documents)
    }

    @Test("entries chain by hash from a zero genesis and verify")
    func chain() throws {
        let f = try Fixture()
        for amount in ["1.00", "2.00"] { _ = try f.ledger.signAndPost(try f.payment(amount: amount), code: f.nextCode()) }
        let entries = try f.ledger.journal.entries()
        #expect(entries.map(\.sequence) == [1, 2])
        #expect(entries[0].previousHash == Data(count: 32))
        #expect(entries[1].previousHash == entries[0].hash)
        #expect(entries.allSatisfy { $0.hash == $0.computedHash })
        #expect(try f.ledger.journal.verify() == .ok(2))
    }

    @Test("SQLite: flipping one byte of an entry's document in the database file makes verify name that entry")
    func flippedByteNamesEntry() throws {
        let (f, documents) = try Self.closedLedgerWithThreeEntries()
        let url = f.directory.appendingPathComponent("rbs.sqlite")
        var bytes = try Data(contentsOf: url)
        // The nonce appears only inside the canonical document bytes of entry 2.
        let needle = Data(("nonce=" + Hex.encode(documents[1].nonce)).utf8)
        let range = try #require(bytes.range(of: needle))
        let index = range.upperBound - 1
        bytes[index] = bytes[index] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
        try bytes.write(to: url)

        let reopened = try Ledger(dataDirectory: f.directory)
        let result = try reopened.journal.verify()
        guard case .bad(let sequence, let reason) = result else { Issue.record("verify passed: \(result)"); return }
        #expect(sequence == 2)
        #expect(reason.contains("altered"))
    }

    @Test("SQLite: the append-only triggers refuse UPDATE and DELETE")
    func appendOnly() throws {
        let (f, _) = try Self.closedLedgerWithThreeEntries()
        let queue = try DatabaseQueue(path: f.directory.appendingPathComponent("rbs.sqlite").path)
        for sql in ["UPDATE journal SET reason = 'x' WHERE seq = 1", "DELETE FROM journal WHERE seq = 1",
                    "UPDATE postings SET amount = '0' WHERE id = 1", "DELETE FROM postings", "DELETE FROM keys"] {
            #expect(throws: DatabaseError.self, "\(sql)") { try queue.write { db in try db.execute(sql: sql) } }
        }
        let count = try queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM journal") }
        #expect(count == 3)
    }

    @Test("SQLite: verify names a missing entry, a broken link and an altered outcome")
    func detectsGapsLinksAndOutcomes() throws {
        let (f, _) = try Self.closedLedgerWithThreeEntries()
        let path = f.directory.appendingPathComponent("rbs.sqlite").path
        // Someone with the file drops the triggers and edits the journal.
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: "DROP TRIGGER journal_no_update; DROP TRIGGER journal_no_delete")
            try db.execute(sql: "UPDATE journal SET balance_after = '999999.00' WHERE seq = 3")
        }
        let ledger = try Ledger(dataDirectory: f.directory)
        #expect(try ledger.journal.verify() == .bad(sequence: 3, reason: "the entry's content does not match its hash (an outcome field was altered)"))

        try queue.write { db in try db.execute(sql: "UPDATE journal SET prev_hash = zeroblob(32) WHERE seq = 2") }
        guard case .bad(2, let reason) = try ledger.journal.verify() else { Issue.record("link not detected"); return }
        #expect(reason.contains("chain is broken"))

        try queue.write { db in try db.execute(sql: "DELETE FROM journal WHERE seq = 1") }
        #expect(try ledger.journal.verify() == .bad(sequence: 1, reason: "entry 1 is missing (the next entry is 2)"))
    }

    @Test("SQLite: a value of the wrong kind in a damaged file is reported by verify and statement, naming the column, not a crash")
    func wrongKindOfValueIsReported() throws {
        let (f, _) = try Self.closedLedgerWithThreeEntries()
        let queue = try DatabaseQueue(path: f.directory.appendingPathComponent("rbs.sqlite").path)
        // SQLite keeps whatever is written: text where the time of a posting belongs.
        try queue.write { db in
            try db.execute(sql: "DROP TRIGGER postings_no_update")
            try db.execute(sql: "UPDATE postings SET time_ms = 'soon' WHERE id = 2")
        }
        let ledger = try Ledger(dataDirectory: f.directory)
        #expect {
            _ = try ledger.statement(account: "40817810438000000001")
        } throws: { error in
            "\(error)".contains("account 40817810438000000001's postings cannot be read: column time_ms holds text of 4 characters, not Int64")
        }
        // And text where the posting's journal entry number belongs.
        try queue.write { db in try db.execute(sql: "UPDATE postings SET journal_seq = 'two' WHERE id = 2") }
        #expect {
            _ = try ledger.journal.verify()
        } throws: { error in
            "\(error)".contains("is damaged or is not an rbs-host database (a posting or account cannot be read: column journal_seq holds text of 3 characters, not Int64)")
        }
    }

    @Test("SQLite: the journal refuses a second entry for a document id, and verify names an altered lookup key")
    func documentKeyIsExactAndChecked() throws {
        let (f, _) = try Self.closedLedgerWithThreeEntries()
        let queue = try DatabaseQueue(path: f.directory.appendingPathComponent("rbs.sqlite").path)
        // A copy of entry 1 under a new sequence number: same document id, refused by the database itself.
        #expect(throws: DatabaseError.self) {
            try queue.write { db in
                try db.execute(sql: """
                    INSERT INTO journal (seq, kind, document_id, document, signature, key_id, recorded_ms, prev_hash, hash, document_key)
                    SELECT 4, kind, document_id, document, signature, key_id, recorded_ms, prev_hash, hash, document_key
                    FROM journal WHERE seq = 1
                    """)
            }
        }
        // The same key with another id is not a duplicate: the key only narrows the lookup.
        try queue.write { db in
            try db.execute(sql: """
                INSERT INTO journal (seq, kind, document_id, document, signature, key_id, recorded_ms, prev_hash, hash, document_key)
                SELECT 4, kind, document_id || 'x', document, signature, key_id, recorded_ms, prev_hash, hash, document_key
                FROM journal WHERE seq = 1
                """)
            try db.execute(sql: "DROP TRIGGER journal_no_delete")
            try db.execute(sql: "DELETE FROM journal WHERE seq = 4")
            try db.execute(sql: "DROP TRIGGER journal_no_update")
            try db.execute(sql: "UPDATE journal SET document_key = document_key + 1 WHERE seq = 2")
        }
        let ledger = try Ledger(dataDirectory: f.directory)
        guard case .bad(2, let reason) = try ledger.journal.verify() else { Issue.record("not detected"); return }
        #expect(reason.contains("document key"))
    }

    @Test("the document key before v15 (what the step finds old entries by) is the id's first 8 bytes; a non-hex id gets key 0")
    func legacyDocumentKey() {
        #expect(LedgerSchema.legacyDocumentKey(of: String(repeating: "0", count: 64)) == 0)
        #expect(LedgerSchema.legacyDocumentKey(of: "0123456789abcdef" + String(repeating: "f", count: 48)) == 0x0123_4567_89ab_cdef)
        #expect(LedgerSchema.legacyDocumentKey(of: "ffffffffffffffff" + String(repeating: "0", count: 48)) == -1)
        #expect(LedgerSchema.legacyDocumentKey(of: "not hex") == 0)
    }

    @Test("SQLite: verify names a bad signature")
    func detectsBadSignature() throws {
        let (f, _) = try Self.closedLedgerWithThreeEntries()
        let queue = try DatabaseQueue(path: f.directory.appendingPathComponent("rbs.sqlite").path)
        try queue.write { db in
            try db.execute(sql: "DROP TRIGGER journal_no_update")
            try db.execute(sql: "UPDATE journal SET signature = zeroblob(64) WHERE seq = 1")
        }
        let ledger = try Ledger(dataDirectory: f.directory)
        guard case .bad(1, let reason) = try ledger.journal.verify() else { Issue.record("not detected"); return }
        #expect(reason.contains("signature"))
    }

    @Test("the JSON form round-trips the entries")
    func json() throws {
        let f = try Fixture()
        _ = try f.ledger.signAndPost(try f.payment(amount: "7.50"), code: f.nextCode())
        let data = try f.ledger.journal.json()
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("\"amount\" : \"7.50\""))
        #expect(text.contains("RBSDOC1\\noperation=payment.domestic"))
        let decoded = try JSONDecoder().decode([JournalEntry].self, from: data)
        #expect(decoded == (try f.ledger.journal.entries()))
    }

    @Test("public keys are kept by key id so entries signed by a replaced key still verify")
    func replacedKeyStillVerifies() throws {
        let f = try Fixture()
        _ = try f.ledger.signAndPost(try f.payment(amount: "1.00"), code: f.nextCode())
        _ = try f.ledger.keys.initialize(name: "Test User", force: true)
        let newIdentity = try f.ledger.keys.load()
        let code = { f.clock.advance(30); return TOTP.code(secret: newIdentity.totpSecret ?? Data(), at: f.clock.now) }()
        _ = try f.ledger.signAndPost(try f.payment(amount: "2.00"), code: code)
        #expect(try f.ledger.journal.verify() == .ok(2))
        #expect(Set(try f.ledger.journal.entries().map(\.keyId)).count == 2)
    }
}
