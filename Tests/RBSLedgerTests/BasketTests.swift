import Foundation
import GRDB
import Testing
@testable import RBSLedger

/// Signing baskets (issue #18) with dynamic linking over the whole basket (issue #21, Art. 5(3)(b)): one code for
/// several documents, each posted or rejected on its own, the basket's list and signature kept once and checked by
/// `verify`.
@Suite("Signing baskets")
struct BasketTests {
    static let payer = "40817810438000000001"
    static let blocked = "40817810038000000003"

    /// Five payments to five payees, 100.00 to 500.00 RUB.
    static func five(_ f: Fixture) throws -> [Document] {
        try (1...5).map { n in
            try f.payment(to: "4070281090000001234\(n)", amount: "\(n)00.00")
        }
    }

    /// The OCRA response the person's authenticator gives for `basket`'s challenge.
    static func response(_ f: Fixture, for basket: Basket) throws -> String {
        guard case .ocra(let suite, let secret) = f.identity.authenticator else {
            Issue.record("the fixture is not enrolled for OCRA")
            return ""
        }
        return try OCRA.response(suite: suite, secret: secret, input: .init(challenge: suite.challenge(forDocumentId: basket.id)))
    }

    /// The ledger error `body` throws, or `nil` when it succeeds.
    static func failure<T>(_ body: () throws -> T) -> LedgerError? { DynamicLinkingTests.failure(body) }

    @Test("a basket of five with one code posts five: five journal entries name the basket, its list and signature are stored once, verify passes")
    func fivePostedWithOneCode() throws {
        let f = try Fixture()
        let basket = try Basket(try Self.five(f))
        #expect(basket.totals == [BasketTotal(currency: "RUB", amount: "1500.00")])
        let outcome = try f.ledger.signAndPost(basket: basket, code: f.nextCode())
        #expect(!outcome.repeated && outcome.basketId == basket.id)
        #expect(outcome.outcomes.map(\.sequence) == [1, 2, 3, 4, 5])
        #expect(outcome.outcomes.allSatisfy { if case .posted = $0 { true } else { false } })
        let entries = try f.ledger.journal.entries()
        #expect(entries.count == 5)
        #expect(entries.allSatisfy { $0.basketId == basket.id && $0.kind == .posted })
        #expect(entries.map(\.documentId) == basket.list.documentIds)
        let record = try #require(try f.ledger.basket(id: basket.id))
        #expect(record.list == basket.list && record.keyId == f.identity.keyId)
        #expect(f.identity.publicKey.isValidSignature(record.signature, for: basket.list.canonicalBytes))
        #expect(try f.balance(Self.payer) == 150_000 - 1_500)
        #expect(try f.ledger.journal.verify() == .ok(5))
        let json = String(decoding: try f.ledger.journal.json(), as: UTF8.self)
        #expect(json.contains(#""basket" : "\#(basket.id)""#))
    }

    @Test("one document of the basket debits a blocked account: it is rejected on its own and the other four are posted")
    func oneRejectedFourPosted() throws {
        let f = try Fixture()
        var documents = try Self.five(f)
        documents[2] = try f.payment(from: Self.blocked, to: "40702810900000099999", amount: "10.00")
        let basket = try Basket(documents)
        let outcome = try f.ledger.signAndPost(basket: basket, code: f.nextCode())
        let kinds = outcome.outcomes.map { outcome -> String in
            switch outcome {
            case .posted: "posted"
            case .rejected(_, _, let reason): "rejected: \(reason.message)"
            case .acknowledged: "acknowledged"
            case .awaiting: "awaiting"
            }
        }
        #expect(kinds.filter { $0 == "posted" }.count == 4)
        #expect(kinds[2].hasPrefix("rejected") && kinds[2].contains(Self.blocked), "\(kinds)")
        #expect(try f.ledger.journal.entries().map(\.kind) == [.posted, .posted, .rejected, .posted, .posted])
        #expect(try f.balance(Self.payer) == 150_000 - (100 + 200 + 400 + 500))
        #expect(try f.ledger.journal.verify() == .ok(5))
    }

    @Test("the core's check of a whole basket sees the balance the earlier documents leave")
    func validateBatchIsSequential() throws {
        let f = try Fixture()
        let big = try f.payment(amount: "100000.00")
        let again = try f.payment(to: "40702810900000054321", amount: "60000.00")
        let decisions = try f.ledger.bank.validate(batch: [big, again])
        #expect(decisions[0] == nil)
        #expect(decisions[1]?.code == .insufficientFunds)
        #expect(try f.ledger.bank.validate(again) == nil)  // alone it would be posted
    }

    @Test("the same basket again answers its first outcomes and posts nothing; a request id does the same for a rebuilt basket")
    func idempotent() throws {
        let f = try Fixture()
        let basket = try Basket(try Self.five(f))
        let request = try LedgerRequest(id: "basket-1")
        let first = try f.ledger.signAndPost(basket: basket, code: f.nextCode(), request: request)
        let again = try f.ledger.signAndPost(basket: basket, code: "000000")
        #expect(again.repeated && again.outcomes == first.outcomes && again.list == first.list)
        // The same forms filled again are new documents (new nonces): the request id answers the first outcomes.
        let rebuilt = try Basket(try Self.five(f))
        let retried = try f.ledger.signAndPost(basket: rebuilt, code: "000000", request: request)
        #expect(retried.repeated && retried.basketId == basket.id && retried.outcomes == first.outcomes)
        #expect(try f.ledger.basketOutcome(of: request)?.outcomes == first.outcomes)
        #expect(try f.ledger.journal.entries().count == 5)
        #expect(try f.balance(Self.payer) == 150_000 - 1_500)
        // A request id used for one document does not name a basket.
        let single = try LedgerRequest(id: "one")
        _ = try f.ledger.signAndPost(try f.payment(amount: "1.00"), code: f.nextCode(), request: single)
        #expect(Self.failure { try f.ledger.signAndPost(basket: try Basket(try Self.five(f)), code: f.nextCode(), request: single) }
            == .requestNamesDocument("one"))
    }

    @Test("a TOTP code is accepted once: the code that signed a basket is refused for the next basket, which posts nothing")
    func codeReplayRefused() throws {
        let f = try Fixture()
        let code = f.nextCode()
        _ = try f.ledger.signAndPost(basket: try Basket(try Self.five(f)), code: code)
        let error = Self.failure { try f.ledger.signAndPost(basket: try Basket(try Self.five(f)), code: code) }
        #expect(error == .code(.replayed))
        #expect(try f.ledger.journal.entries().count == 5)
    }

    @Test("five wrong codes lock signing: the sixth attempt on a basket is refused even with the right code")
    func sixthAttemptBlocked() throws {
        let f = try Fixture()
        let basket = try Basket(try Self.five(f))
        let right = f.nextCode()
        let wrong = String(format: "%06d", (Int(right)! + 1) % 1_000_000)
        for left in stride(from: 4, through: 0, by: -1) {
            #expect(Self.failure { try f.ledger.signAndPost(basket: basket, code: wrong) } == .code(.wrong(attemptsLeft: left)))
        }
        let sixth = Self.failure { try f.ledger.signAndPost(basket: basket, code: right) }
        guard case .code(.locked) = sixth else { Issue.record("not locked: \(String(describing: sixth))"); return }
        #expect(try f.ledger.journal.entries().isEmpty)
        #expect(try f.ledger.basket(id: basket.id) == nil)
    }

    @Test("OCRA: the response for basket A is refused for basket B differing only in one amount, one payee account or one payee name — with one message")
    func ocraResponseBindsEveryPayeeAndTheTotal() throws {
        let f = try Fixture(ocra: OCRASuite.hostDefault)
        let documents = try Self.five(f)
        let a = try Basket(documents)
        let response = try Self.response(f, for: a)
        func changed(_ key: String, _ value: String) throws -> Basket {
            let d = documents[3]
            var b = documents
            b[3] = try Document(operation: d.operation, plugin: d.plugin, pluginVersion: d.pluginVersion,
                                fields: d.fields.map { $0.key == key ? DocumentField(key, value) : $0 },
                                createdAtMilliseconds: d.createdAtMilliseconds, nonce: d.nonce, keyId: d.keyId)
            return try Basket(b)
        }
        let variants = [("amount", try changed("amount", "400.01")), ("payee account", try changed("account", "40702810900000012340")),
                        ("payee name", try changed("name", "ООО Ромашкa"))]
        #expect(variants[0].1.totals == [BasketTotal(currency: "RUB", amount: "1500.01")])
        var messages: Set<String> = []
        for (element, b) in variants {
            let (challengeA, challengeB) = (try f.ledger.challenge(for: a), try f.ledger.challenge(for: b))
            #expect(b.id != a.id && challengeA != challengeB, "\(element)")
            let error = Self.failure { try f.ledger.signAndPost(basket: b, code: response) }
            guard case .code(.wrongResponse) = error else { Issue.record("\(element): \(String(describing: error))"); continue }
            messages.insert(String(describing: error!).replacingOccurrences(of: #"\d attempts? left"#, with: "N", options: .regularExpression))
        }
        // Art. 4: nothing tells which element failed.
        #expect(messages.count == 1, "\(messages)")
        #expect(try f.ledger.journal.entries().isEmpty)
        // A with its own response posts all five, each entry recording the basket's challenge; verify re-checks it.
        let outcome = try f.ledger.signAndPost(basket: a, code: response)
        #expect(outcome.outcomes.count == 5)
        let entries = try f.ledger.journal.entries()
        #expect(entries.allSatisfy { $0.authorization?.challenge == (try? f.ledger.challenge(for: a)) && $0.authorization?.response == response })
        #expect(try f.ledger.journal.verify(authenticator: f.identity.authenticator) == .ok(5))
        // Replayed for another basket: the answered challenge is not the other basket's, so it is a wrong response.
        let other = try Basket([try f.payment(amount: "1.00")])
        guard case .code(.wrongResponse) = Self.failure({ try f.ledger.signAndPost(basket: other, code: response) }) else {
            Issue.record("a replayed response was not refused"); return
        }
    }

    @Test("OCRA: a basket's challenge waits for its response; the rebuilt basket (same fields, the waiting nonces and times) is the same basket and posts")
    func ocraPendingBasket() throws {
        let f = try Fixture(ocra: OCRASuite.hostDefault)
        let a = try Basket(try Self.five(f))
        let challenge = try f.ledger.issueChallenge(for: a)
        let pending = try f.ledger.pendingBasket(id: a.id)
        #expect(pending.challenge == challenge && pending.documents == a.documents)
        let rebuilt = try Basket(try pending.documents.map { d in
            try f.ledger.draft(operation: d.operation, plugin: d.plugin, pluginVersion: d.pluginVersion, fields: d.fields, like: d)
        })
        #expect(rebuilt.id == a.id)
        _ = try f.ledger.signAndPost(basket: rebuilt, code: try Self.response(f, for: a), expectedBasketId: a.id)
        #expect(Self.failure { try f.ledger.pendingBasket(id: a.id) } == .code(.challengeUsed))
    }

    @Test("SQLite: verify names a tampered basket entry: a document changed after signing, a list changed, an entry moved out of its basket")
    func tamperedBasketFailsVerify() throws {
        let f = try Fixture(engine: .sqlite)
        let basket = try Basket(try Self.five(f))
        _ = try f.ledger.signAndPost(basket: basket, code: f.nextCode())
        #expect(try f.ledger.journal.verify() == .ok(5))
        try f.ledger.close()
        let path = f.directory.appendingPathComponent("rbs.sqlite").path
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in try db.execute(sql: "DROP TRIGGER journal_no_update; DROP TRIGGER baskets_no_update") }
        func verify() throws -> VerifyResult {
            let ledger = try Ledger(dataDirectory: f.directory, clock: f.clock.closure)
            defer { try? ledger.close() }
            return try ledger.journal.verify()
        }

        // 1. Entry 3's document gets another payee after signing.
        let original = try queue.read { db in try Data.fetchOne(db, sql: "SELECT document FROM journal WHERE seq = 3") }!
        let forged = Data(String(decoding: original, as: UTF8.self).replacingOccurrences(of: "40702810900000012343", with: "40702810900000066666").utf8)
        try queue.write { db in try db.execute(sql: "UPDATE journal SET document = ? WHERE seq = 3", arguments: [forged]) }
        guard case .bad(3, let changed) = try verify() else { Issue.record("a changed document was not found"); return }
        #expect(changed.contains("document bytes were altered") && changed.contains("basket \(basket.id.prefix(16))…, document 3 of 5"), "\(changed)")
        try queue.write { db in try db.execute(sql: "UPDATE journal SET document = ? WHERE seq = 3", arguments: [original]) }
        #expect(try verify() == .ok(5))

        // 2. The basket's list is changed (document 2 left out, the total lowered).
        var list = basket.list
        list = BasketList(keyId: list.keyId, documentIds: list.documentIds.filter { $0 != list.documentIds[1] },
                          totals: [BasketTotal(currency: "RUB", amount: "1300.00")])
        try queue.write { db in try db.execute(sql: "UPDATE baskets SET list = ?", arguments: [list.canonicalBytes]) }
        guard case .bad(1, let altered) = try verify() else { Issue.record("a changed list was not found"); return }
        #expect(altered.contains("list of basket \(basket.id.prefix(16))… was altered"), "\(altered)")
        try queue.write { db in try db.execute(sql: "UPDATE baskets SET list = ?", arguments: [basket.list.canonicalBytes]) }

        // 3. An entry's basket id is moved to another basket (or removed): the entry's hash covers it.
        try queue.write { db in try db.execute(sql: "UPDATE journal SET basket_id = NULL WHERE seq = 4") }
        guard case .bad(4, let moved) = try verify() else { Issue.record("a removed basket id was not found"); return }
        #expect(moved.contains("does not match its hash"), "\(moved)")
        try queue.write { db in try db.execute(sql: "UPDATE journal SET basket_id = ? WHERE seq = 4", arguments: [basket.id]) }
        #expect(try verify() == .ok(5))

        // 4. The basket's signature is replaced.
        try queue.write { db in try db.execute(sql: "UPDATE baskets SET signature = zeroblob(64)") }
        guard case .bad(1, let signature) = try verify() else { Issue.record("a bad basket signature was not found"); return }
        #expect(signature.contains("signature of basket") && signature.contains("does not verify"), "\(signature)")
    }

    @Test("a basket is refused when empty, with a document twice or with documents for two keys")
    func basketShape() throws {
        let f = try Fixture()
        let a = try f.payment()
        #expect(throws: BasketError.empty) { try Basket([]) }
        #expect(throws: BasketError.repeated(documentId: a.id, first: 1, again: 2)) { try Basket([a, a]) }
        let other = try Document(operation: a.operation, plugin: a.plugin, pluginVersion: a.pluginVersion, fields: a.fields,
                                 createdAtMilliseconds: a.createdAtMilliseconds, nonce: a.nonce, keyId: "0123456789abcdef")
        #expect(throws: BasketError.mixedKeys(position: 2, keyId: "0123456789abcdef", basketKeyId: a.keyId)) { try Basket([a, other]) }
        // Totals per currency, exact, sorted; the canonical list round-trips.
        let basket = try Basket([a, try f.payment(from: "40817840638000000004", amount: "10.5", currency: "USD"),
                                 try f.payment(to: "40702810900000054321", amount: "0.01")])
        #expect(basket.totals == [BasketTotal(currency: "RUB", amount: "100.01"), BasketTotal(currency: "USD", amount: "10.50")])
        #expect(try BasketList.decode(basket.list.canonicalBytes) == basket.list)
        #expect(throws: BasketError.self) { try BasketList.decode(Data("RBSBASKET1\nkey_id=zz\n".utf8)) }
    }
}
