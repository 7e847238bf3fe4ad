import Foundation
import GRDB
import Testing
@testable import RBSLedger

/// The journal's time-ordered document key (schema step `v15-ordered-document-key`, issue #33 item 4): what it is
/// made of, that a document's repeats are still found by it and refused twice by the database, and that a data folder
/// written before the step is upgraded without loss.
@Suite("Ordered document key")
struct OrderedDocumentKeyTests {
    static let payer = "40817810438000000001"

    @Test("the key leads with the document's created_at and ends with the id's first 21 bits; a non-hex id keeps the time alone")
    func keyLayout() {
        let id = "abcdef" + String(repeating: "0", count: 58)
        #expect(JournalEntry.documentKey(of: id, createdAtMilliseconds: 1_750_000_000_123) == 1_750_000_000_123 << 21 | 0xabcdef >> 3)
        #expect(JournalEntry.documentKey(of: "not hex", createdAtMilliseconds: 5) == 5 << 21)
        // Times outside 1970…2109 are clamped: the key stays non-negative and ordered by time where it can be.
        #expect(JournalEntry.documentKey(of: id, createdAtMilliseconds: -1) == 0xabcdef >> 3)
        #expect(JournalEntry.documentKey(of: id, createdAtMilliseconds: .max) == (Int64(1) << 42 - 1) << 21 | 0xabcdef >> 3)
        // A later document has a larger key whatever its id.
        #expect(JournalEntry.documentKey(of: "ffffff" + id.dropFirst(6), createdAtMilliseconds: 1000)
            < JournalEntry.documentKey(of: "000000" + id.dropFirst(6), createdAtMilliseconds: 1001))
    }

    @Test("the key of stored canonical bytes is the key of the decoded document")
    func keyFromCanonicalBytes() throws {
        let f = try Fixture(engine: .sqlite)
        for advance: TimeInterval in [0, 0.001, 86_400 * 400] {
            f.clock.advance(advance)
            let document = try f.payment()
            #expect(JournalEntry.createdAtMilliseconds(ofCanonical: document.canonicalBytes) == document.createdAtMilliseconds)
            #expect(JournalEntry.documentKey(of: document.id, canonical: document.canonicalBytes)
                == JournalEntry.documentKey(of: document.id, createdAtMilliseconds: document.createdAtMilliseconds))
        }
        #expect(JournalEntry.createdAtMilliseconds(ofCanonical: Data("RBSDOC1\nop=x\n".utf8)) == nil)
    }

    @Test("a document signed again, alone or in a later batch, answers with its first outcome and posts nothing")
    func repeatsFoundByOrderedKey() throws {
        let f = try Fixture()
        let first = try f.payment(amount: "10.00")
        let posted = try f.ledger.signAndPost(first, code: f.nextCode())
        #expect(posted.sequence == 1)
        f.clock.advance(3600)  // drafted an hour later: its key lies far from the first one's
        let later = try f.payment(amount: "20.00")
        let outcomes = try f.ledger.process(batch: [later, first, later], code: f.nextCode())
        #expect(outcomes.map(\.sequence) == [2, 1, 2])
        #expect(try f.ledger.signAndPost(first, code: f.nextCode()).sequence == 1)
        #expect(try f.ledger.journal.entries().count == 2)
        #expect(try f.balance(Self.payer) == 150_000 - 30)
        #expect(try f.ledger.journal.verify() == .ok(2))
    }

    @Test("SQLite: the database itself refuses a second entry of a document under its ordered key, and a second completion")
    func databaseRefusesCopy() throws {
        let (f, _) = try JournalTests.closedLedgerWithThreeEntries()
        let queue = try DatabaseQueue(path: f.directory.appendingPathComponent("rbs.sqlite").path)
        func copy(of sequence: Int64, as new: Int64, secondOf: Int64?) throws {
            try queue.write { db in
                try db.execute(sql: """
                    INSERT INTO journal (seq, kind, document_id, document, signature, key_id, recorded_ms, prev_hash, hash, document_key, second_of)
                    SELECT ?, kind, document_id, document, signature, key_id, recorded_ms, prev_hash, hash, document_key, ?
                    FROM journal WHERE seq = ?
                    """, arguments: [new, secondOf, sequence])
            }
        }
        // The once-only index (schema step v23-journal-unique-index), not a trigger, refuses it.
        func refusedByIndex(_ error: any Error) -> Bool {
            guard let error = error as? DatabaseError else { return false }
            return error.resultCode == .SQLITE_CONSTRAINT && error.message?.contains("journal_unique_document") == true
        }
        #expect { try copy(of: 2, as: 4, secondOf: nil) } throws: { refusedByIndex($0) }
        // One entry more by a second signature is what the index lets through (the ledger writes it only to complete
        // an awaiting entry, which verify checks); a second one is refused.
        try copy(of: 2, as: 4, secondOf: 2)
        #expect { try copy(of: 2, as: 5, secondOf: 2) } throws: { refusedByIndex($0) }
        let objects = try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT type, name FROM sqlite_master WHERE tbl_name = 'journal' AND type IN ('index', 'trigger') ORDER BY name")
                .map { "\($0["type"] as String) \($0["name"] as String)" }
        }
        #expect(objects == ["index journal_basket", "trigger journal_no_delete", "trigger journal_no_update",
                            "index journal_posted_to", "index journal_unique_document"])
        // The ledger says what the trigger said.
        let refusal = LedgerError.from(DatabaseError(resultCode: .SQLITE_CONSTRAINT,
                                                     message: "UNIQUE constraint failed: index 'journal_unique_document'"), path: "rbs.sqlite")
        #expect(refusal == .database(path: "rbs.sqlite", detail: "the document is already journaled"))
    }

    @Test("SQLite: verify names a document journaled twice, even with the once-only index gone")
    func verifyFindsSecondEntry() throws {
        let (f, documents) = try JournalTests.closedLedgerWithThreeEntries()
        let queue = try DatabaseQueue(path: f.directory.appendingPathComponent("rbs.sqlite").path)
        // Entry 2 journaled again as entry 4, chained and hashed as the ledger would: only the rule tells it.
        try queue.write { db in
            let rows = try Row.fetchAll(db, sql: "SELECT * FROM journal ORDER BY seq")
            let second = try JournalEntry(row: SQLiteTransaction(db).rows("SELECT * FROM journal WHERE seq = 2")[0])
            let tip: Data = rows[2]["hash"]
            let copy = JournalEntry(
                sequence: 4, kind: second.kind, documentId: second.documentId, document: second.document,
                signature: second.signature, keyId: second.keyId, debit: second.debit, credit: second.credit,
                amount: second.amount, currency: second.currency, balanceAfter: second.balanceAfter,
                recordedAtMilliseconds: second.recordedAtMilliseconds, authorization: second.authorization, previousHash: tip)
            try db.execute(sql: "DROP INDEX journal_unique_document")
            try copy.insert(SQLiteTransaction(db), createdAtMilliseconds: documents[1].createdAtMilliseconds)
        }
        try queue.close()
        let result = try f.reopen().journal.verify()
        guard case .bad(let sequence, let reason) = result else {
            Issue.record("verify said \(result)")
            return
        }
        #expect(sequence == 4)
        #expect(reason.hasPrefix("document \(documents[1].id) is journaled twice"))
    }

    @Test("SQLite: a data folder from before v15 (keys of the id alone, no basket times) is upgraded: verify ok, repeats and a retried basket answer with their first outcomes")
    func upgradesOldFolder() throws {
        let (f, documents) = try JournalTests.ledgerWithThreeEntries()
        // A basket holding a document journaled before it (answered with that entry) and two new ones.
        let basket = try Basket([documents[1], try f.payment(amount: "4.00"), try f.payment(amount: "5.00")])
        let signed = try f.ledger.signAndPost(basket: basket, code: f.nextCode())
        #expect(signed.outcomes.map(\.sequence) == [2, 4, 5])
        try f.ledger.close()

        // The folder as a host before v15 left it: every key the id's first 8 bytes, no basket times, the step unapplied.
        let path = f.directory.appendingPathComponent("rbs.sqlite").path
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: "DROP TRIGGER journal_no_update")
            for row in try Row.fetchAll(db, sql: "SELECT seq, document_id FROM journal") {
                let id: String = row["document_id"]
                try db.execute(sql: "UPDATE journal SET document_key = ? WHERE seq = ?",
                               arguments: [LedgerSchema.legacyDocumentKey(of: id), row["seq"] as Int64])
            }
            try db.execute(sql: "ALTER TABLE baskets DROP COLUMN document_times")
            try db.execute(sql: LedgerSchema.refuse("UPDATE", on: "journal", named: "journal_no_update",
                                                    "the journal is append-only: entries cannot be changed", in: .sqlite))
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v15-ordered-document-key'")
            // Nor the later step v23-journal-unique-index: the once-only trigger and the index of the key alone, as
            // v5-second-signer left them (the upgrade then applies v15, then v23 on the rewritten keys).
            try db.execute(sql: """
                DROP INDEX journal_unique_document;
                CREATE INDEX journal_document_key ON journal (document_key);
                CREATE TRIGGER journal_unique_document BEFORE INSERT ON journal
                    WHEN EXISTS (SELECT 1 FROM journal WHERE document_key = NEW.document_key AND document_id = NEW.document_id
                                 AND (NEW.second_of IS NULL OR seq != NEW.second_of OR kind != 'awaiting-second-signature'))
                    BEGIN SELECT RAISE(ABORT, 'the document is already journaled'); END;
                DROP INDEX journal_basket;
                CREATE INDEX journal_basket ON journal (basket_id);
                DELETE FROM grdb_migrations WHERE identifier = 'v23-journal-unique-index';
                """)
        }
        let oldKeys = try queue.read { db in try Int64.fetchAll(db, sql: "SELECT document_key FROM journal ORDER BY seq") }
        let entriesBefore = try queue.read { db in try Row.fetchAll(db, sql: "SELECT seq, hash, document FROM journal ORDER BY seq") }
        try queue.close()
        #expect(oldKeys.first == LedgerSchema.legacyDocumentKey(of: documents[0].id))

        let ledger = try f.reopen()
        #expect(try ledger.journal.verify() == .ok(5))
        let entries = try ledger.journal.entries()
        #expect(entries.map(\.hash) == entriesBefore.map { $0["hash"] as Data })
        #expect(entries.map(\.document) == entriesBefore.map { $0["document"] as Data })
        // A payment signed again is found by its new key: its first outcome, nothing posted.
        #expect(try ledger.signAndPost(documents[0], code: f.nextCode()).sequence == 1)
        #expect(try ledger.process(batch: [documents[2]], code: f.nextCode()).map(\.sequence) == [3])
        // The basket: its stored outcomes (the repeat found through the times the step wrote), and a retry.
        #expect(try ledger.outcome(ofBasket: basket.id)?.outcomes.map(\.sequence) == [2, 4, 5])
        let retried = try ledger.signAndPost(basket: basket, code: f.nextCode())
        #expect(retried.repeated && retried.outcomes.map(\.sequence) == [2, 4, 5])
        #expect(try ledger.journal.entries().count == 5)
        #expect(try ledger.bank.account(number: Self.payer)?.balance.amount == 150_000 - 15)
        // The journal and the baskets are append-only again.
        try ledger.close()
        let reopened = try DatabaseQueue(path: path)
        for sql in ["UPDATE journal SET document_key = 0 WHERE seq = 1", "UPDATE baskets SET document_times = NULL"] {
            #expect(throws: DatabaseError.self) { try reopened.write { db in try db.execute(sql: sql) } }
        }
        #expect(try reopened.read { db in try String.fetchOne(db, sql: "SELECT document_times FROM baskets") }
            == [documents[1], basket.documents[1], basket.documents[2]].map { String($0.createdAtMilliseconds) }.joined(separator: " "))
        // v23 applied after it: the once-only index in the place of the trigger and of the key's own index.
        #expect(try reopened.read { db in
            try String.fetchAll(db, sql: "SELECT type || ' ' || name FROM sqlite_master WHERE name IN ('journal_unique_document', 'journal_document_key')")
        } == ["index journal_unique_document"])
    }
}
