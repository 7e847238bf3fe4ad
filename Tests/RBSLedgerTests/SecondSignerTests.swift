import Foundation
import GRDB
import Testing
@testable import RBSLedger

/// Two signers (maker–checker): a customer's threshold, a second user, the awaiting entry and the second signature.
@Suite("second signer")
struct SecondSignerTests {
    /// A ledger with customer acme (first user ann, second user bob) needing a second signer above 100 000 RUB.
    struct Company {
        let f: Fixture
        let ann: CustomerCredentials
        let bob: CustomerCredentials
        let account: String

        init(threshold: Decimal? = 100_000, engine: TestEngine = .current) throws {
            f = try Fixture(engine: engine)
            let (ann, _) = try f.ledger.customers.add(name: "ann", passwordRecord: "x")
            let (bob, _) = try f.ledger.customers.addUser(to: "ann", name: "bob", passwordRecord: "y")
            #expect(bob.holderId == ann.id && bob.memberOf == ann.id)
            if let threshold { try f.ledger.customers.setSecondSigner(of: ann, above: threshold, currency: "RUB") }
            self.ann = try #require(try f.ledger.customers.credentials(named: "ann"))
            self.bob = try #require(try f.ledger.customers.credentials(named: "bob"))
            // The savings account (500 000 RUB), which both users see.
            account = try f.ledger.customers.accounts(of: bob)[1].number
            #expect(try f.ledger.customers.accounts(of: ann)[1].number == account)
        }

        func code(_ user: CustomerCredentials) throws -> String {
            try f.ledger.customers.code(for: user.customer.name, at: f.clock.now)
        }

        /// Ann signs a payment of `amount` from the savings account.
        func annPays(_ amount: String) throws -> Outcome {
            f.clock.advance(30)
            let document = try f.ledger.draft(operation: "payment.domestic", plugin: "ru.example.payments", pluginVersion: "1.0.0", fields: [
                DocumentField("from", account), DocumentField("account", "40702810900000012345"), DocumentField("amount", amount),
                DocumentField("currency", "RUB"), DocumentField("name", "ООО Ромашка"), DocumentField("purpose", "Оплата \(amount)"),
            ], keyId: ann.customer.keyId)
            return try f.ledger.signAndPost(document, code: try code(ann), as: ann)
        }
    }

    @Test("above the threshold the first signature awaits: nothing posted; another user approves with their own code, the core posts it, verify checks both")
    func approve() throws {
        let c = try Company()
        let before = try #require(try c.f.balance(c.account))
        #expect(try c.annPays("200000.00") == .awaiting(documentId: try c.f.ledger.journal.entries()[0].documentId, sequence: 1))
        #expect(try c.f.balance(c.account) == before)
        let awaiting = try c.f.ledger.journal.entries()[0]
        #expect(awaiting.kind == .awaiting && awaiting.debit == c.account && awaiting.amount == "200000.00" && awaiting.balanceAfter == nil)
        let pending = try c.f.ledger.pendingSecondSignatures(of: c.bob.customer)
        #expect(pending.map(\.entry.sequence) == [1] && pending.first?.signedBy == "ann")
        #expect(try c.f.ledger.pendingSecondSignatures(of: c.ann.customer).count == 1)

        // The first signer is never their own second signer.
        #expect(throws: LedgerError.secondSignature(.sameSigner(user: "ann"))) {
            try c.f.ledger.approve(entry: 1, code: try c.code(c.ann), as: c.ann)
        }
        let wrong = try c.code(c.bob) == "000000" ? "111111" : "000000"
        #expect(throws: LedgerError.code(.wrong(attemptsLeft: 4))) { try c.f.ledger.approve(entry: 1, code: wrong, as: c.bob) }
        #expect(try c.f.balance(c.account) == before)

        guard case .posted(let receipt) = try c.f.ledger.approve(entry: 1, code: try c.code(c.bob), as: c.bob) else {
            Issue.record("not posted"); return
        }
        #expect(receipt.sequence == 2 && receipt.debitBalance == before - 200_000)
        #expect(try c.f.balance(c.account) == before - 200_000)
        let second = try c.f.ledger.journal.entries()[1]
        #expect(second.kind == .posted && second.secondOf == 1 && second.keyId == c.bob.customer.keyId)
        #expect(second.documentId == awaiting.documentId && second.document == awaiting.document)
        #expect(second.authorization?.method == .totp)
        #expect(try c.f.ledger.journal.verify() == .ok(2))
        #expect(try c.f.ledger.pendingSecondSignatures(of: c.bob.customer).isEmpty)
        #expect(throws: LedgerError.secondSignature(.alreadyDecided(1, by: 2))) {
            c.f.clock.advance(30)
            return try c.f.ledger.approve(entry: 1, code: try c.code(c.bob), as: c.bob)
        }
        // Both users' journal holds both entries.
        #expect(try c.f.ledger.customers.journal(of: c.ann.customer).map(\.sequence) == [1, 2])

        // At or below the threshold one signature posts.
        guard case .posted = try c.annPays("100000.00") else { Issue.record("not posted at the threshold"); return }
    }

    @Test("a code replay is refused: the second signer's code used once does not sign the next document")
    func replay() throws {
        let c = try Company()
        _ = try c.annPays("150000.00")
        _ = try c.annPays("160000.00")
        let code = try c.code(c.bob)
        guard case .posted = try c.f.ledger.approve(entry: 1, code: code, as: c.bob) else { Issue.record("not posted"); return }
        #expect(throws: LedgerError.code(.replayed)) { try c.f.ledger.approve(entry: 2, code: code, as: c.bob) }
        #expect(try c.f.ledger.journal.entries().count == 3)
        c.f.clock.advance(30)
        guard case .posted = try c.f.ledger.approve(entry: 2, code: try c.code(c.bob), as: c.bob) else { Issue.record("not posted"); return }
    }

    @Test("declined with a reason: a rejected entry signed by the second signer, nothing posted; the core's checks run again at approval")
    func declineAndRecheck() throws {
        let c = try Company()
        let before = try #require(try c.f.balance(c.account))
        _ = try c.annPays("300000.00")
        #expect(throws: LedgerError.secondSignature(.noReason)) { try c.f.ledger.decline(entry: 1, reason: "  ", code: "123456", as: c.bob) }
        guard case .rejected(_, 2, let reason) = try c.f.ledger.decline(entry: 1, reason: "not agreed", code: try c.code(c.bob), as: c.bob) else {
            Issue.record("not declined"); return
        }
        #expect(reason.code == .declined && reason.message == "declined by the second signer bob: not agreed")
        #expect(try c.f.balance(c.account) == before)

        // Two large payments awaiting; the first approved leaves too little for the second: rejected at approval.
        _ = try c.annPays("300000.00")
        _ = try c.annPays("250000.00")
        c.f.clock.advance(30)
        guard case .posted = try c.f.ledger.approve(entry: 3, code: try c.code(c.bob), as: c.bob) else { Issue.record("not posted"); return }
        c.f.clock.advance(30)
        guard case .rejected(_, _, let refusal) = try c.f.ledger.approve(entry: 4, code: try c.code(c.bob), as: c.bob) else {
            Issue.record("not rejected"); return
        }
        #expect(refusal.code == .insufficientFunds)
        #expect(try c.f.ledger.journal.verify() == .ok(6))
    }

    @Test("what awaits a second signature: only undecided entries are `awaiting` to a filter, and the customer is not removed while one awaits")
    func awaitingUntilDecided() throws {
        let c = try Company()
        _ = try c.annPays("150000.00")
        _ = try c.annPays("160000.00")
        let awaiting = JournalFilter(status: .awaiting)
        #expect(try c.f.ledger.journal.entries(matching: awaiting).map(\.sequence) == [1, 2])
        #expect(try c.f.ledger.customers.journal(of: c.ann.customer, matching: JournalFilter(kinds: [.awaiting])).map(\.sequence) == [1, 2])
        // Removing the customer would leave both to await for ever: refused, naming them, and nothing changes.
        #expect(throws: CustomerError.awaitingSecondSignatures("ann", entries: [1, 2])) { try c.f.ledger.customers.remove(name: "ann") }
        #expect(try c.f.ledger.customers.credentials(named: "bob") != nil)
        guard case .posted = try c.f.ledger.approve(entry: 1, code: try c.code(c.bob), as: c.bob) else { Issue.record("not posted"); return }
        // Entry 1 stays `awaiting` in the append-only journal, but a filter for what awaits no longer takes it.
        #expect(try c.f.ledger.journal.entries(matching: awaiting).map(\.sequence) == [2])
        #expect(try c.f.ledger.customers.journal(of: c.bob.customer, matching: JournalFilter(kinds: [.awaiting])).map(\.sequence) == [2])
        #expect(try c.f.ledger.journal.entries(matching: JournalFilter(status: .posted)).map(\.sequence) == [3])
        c.f.clock.advance(30)
        _ = try c.f.ledger.decline(entry: 2, reason: "no", code: try c.code(c.bob), as: c.bob)
        #expect(try c.f.ledger.journal.entries(matching: awaiting).isEmpty)
        try c.f.ledger.customers.remove(name: "ann")
        #expect(try c.f.ledger.customers.credentials(named: "bob") == nil)
    }

    @Test("a repeat of a payment awaiting its second signature is a duplicate at signing; its approval needs the repeat confirmed once the first is posted")
    func duplicatesAwaitingAndApproved() throws {
        let c = try Company()
        let document = { (account: String) throws -> Document in
            try c.f.ledger.draft(operation: "payment.domestic", plugin: "ru.example.payments", pluginVersion: "1.0.0", fields: [
                DocumentField("from", account), DocumentField("account", "40702810900000012345"), DocumentField("amount", "200000.00"),
                DocumentField("currency", "RUB"), DocumentField("name", "ООО Ромашка"), DocumentField("purpose", "Оплата 200000.00"),
            ], keyId: c.ann.customer.keyId)
        }
        _ = try c.annPays("200000.00")
        // The same payment again, while the first awaits: found, and said as awaiting (not posted).
        let again = try document(c.account)
        guard case .entry(let earlier)? = try c.f.ledger.duplicates(of: [again]).first ?? nil else {
            Issue.record("an awaiting payment is no duplicate"); return
        }
        #expect(earlier.sequence == 1 && earlier.kind == .awaiting)
        #expect(Duplicate(position: nil, of: .entry(earlier)).description.contains("awaiting its second signature"))
        _ = try c.annPays("200000.00")  // signed anyway (the person confirmed): entry 2 awaits too
        #expect(try c.f.ledger.pendingSecondSignatures(of: c.bob.customer).map(\.duplicate) == [nil, nil])
        // The first approval posts (entry 3); the second awaiting one, a repeat of it now, is declined without any
        // confirmation (declining posts nothing).
        guard case .posted = try c.f.ledger.approve(entry: 1, code: try c.code(c.bob), as: c.bob) else { Issue.record("not posted"); return }
        #expect(try c.f.ledger.pendingSecondSignatures(of: c.bob.customer).map { $0.duplicate?.sequence } == [3])
        c.f.clock.advance(30)
        guard case .rejected = try c.f.ledger.decline(entry: 2, reason: "the same again", code: try c.code(c.bob), as: c.bob) else {
            Issue.record("not declined"); return
        }
        // Signed once more (entry 5): its approval would post the same payment again — refused before the code is
        // looked at, nothing written, until the second signer confirms the repeat.
        _ = try c.annPays("200000.00")
        let count = try c.f.ledger.journal.entries().count
        do {
            _ = try c.f.ledger.approve(entry: 5, code: "000000", as: c.bob)
            Issue.record("an unconfirmed repeat was approved")
        } catch {
            guard case .unconfirmedDuplicate(let duplicate) = error, case .entry(let posted) = duplicate.of else {
                Issue.record("not refused as a repeat: \(error)"); return
            }
            #expect(posted.sequence == 3 && posted.kind == .posted)
        }
        #expect(try c.f.ledger.journal.entries().count == count, "nothing journaled, no code attempt")
        c.f.clock.advance(30)
        guard case .posted = try c.f.ledger.approve(entry: 5, code: try c.code(c.bob), as: c.bob, confirmedDuplicate: true) else {
            Issue.record("the confirmed repeat is not posted"); return
        }
        #expect(try c.f.ledger.journal.verify() == .ok(6))
    }

    @Test("SQLite: verify fails when the second signature is tampered (the file edited)")
    func tampered() throws {
        let c = try Company(engine: .sqlite)
        _ = try c.annPays("200000.00")
        _ = try c.f.ledger.approve(entry: 1, code: try c.code(c.bob), as: c.bob)
        try c.f.ledger.close()
        let queue = try DatabaseQueue(path: c.f.directory.appendingPathComponent("rbs.sqlite").path)
        try queue.write { db in
            try db.execute(sql: "DROP TRIGGER journal_no_update")
            try db.execute(sql: "UPDATE journal SET signature = CAST(zeroblob(64) AS BLOB) WHERE seq = 2")
        }
        let ledger = try Ledger(dataDirectory: c.f.directory)
        #expect(try ledger.journal.verify() == .bad(sequence: 2, reason: "the signature does not verify with key \(c.bob.customer.keyId)"))
    }

    @Test("a customer without a threshold signs alone; a currency without a threshold always needs the second signer")
    func thresholds() throws {
        let alone = try Company(threshold: nil)
        guard case .posted = try alone.annPays("200000.00") else { Issue.record("not posted"); return }
        let c = try Company()
        try c.f.ledger.customers.setSecondSigner(of: c.ann.customer, above: 1000, currency: "USD")
        #expect(try c.f.ledger.customers.secondSigner(of: c.bob.customer) == ["RUB": 100_000, "USD": 1000])
        try c.f.ledger.customers.setSecondSigner(of: c.ann.customer, above: nil, currency: "RUB")
        #expect(try c.annPays("5.00") == .awaiting(documentId: try c.f.ledger.journal.entries()[0].documentId, sequence: 1))
        #expect(throws: CustomerError.secondSigner(.invalidThreshold("1.001 has more decimals than RUB has (2)"))) {
            try c.f.ledger.customers.setSecondSigner(of: c.ann.customer, above: Decimal(string: "1.001")!, currency: "RUB")
        }
    }
}
