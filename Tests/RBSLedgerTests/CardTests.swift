import Foundation
import Testing
@testable import RBSLedger

/// Cards as the customer's products (issue #29): issued by the bank to a customer on one of their accounts, kept
/// masked, blocked and unblocked only by a document a user of their own customer signed — decided by the core, on
/// SQLite (and PostgreSQL when make test runs this suite on it).
@Suite("Cards: own cards only, decided by the core")
struct CardTests {
    struct World {
        let f: Fixture
        let eve: Customer
        let bob: Customer
        let eveCard: Card
        let bobCard: Card

        init() throws {
            f = try Fixture()
            (eve, _) = try f.ledger.customers.add(name: "eve", passwordRecord: "x")
            (bob, _) = try f.ledger.customers.add(name: "bob", passwordRecord: "y")
            eveCard = try f.ledger.issueCard(to: "eve", account: try f.ledger.customers.accounts(of: eve)[0].number,
                                             number: "4276 3800 0000 0005")
            bobCard = try f.ledger.issueCard(to: "bob", account: try f.ledger.customers.accounts(of: bob)[0].number,
                                             number: "2202200000000008")
        }

        func credentials(_ name: String) throws -> CustomerCredentials {
            try #require(try f.ledger.customers.credentials(named: name))
        }

        func code(_ name: String) throws -> String {
            f.clock.advance(30)
            return try f.ledger.customers.code(for: name, at: f.clock.now)
        }

        /// A card document as the card.block plugin builds it, signed with `signer`'s key.
        func document(card: String, action: String, by signer: Customer) throws -> Document {
            try f.ledger.draft(operation: "card.block", plugin: "ru.example.cards", pluginVersion: "1.1.0", fields: [
                DocumentField("cardMasked", card), DocumentField("cardLastFour", String(card.suffix(4))),
                DocumentField("reason", "lost"), DocumentField("action", action),
            ], keyId: signer.keyId)
        }

        func card(_ id: Int64, of name: String) throws -> Card {
            try #require(try f.ledger.cards(ofCustomer: name).first { $0.id == id })
        }
    }

    @Test("a card is issued masked, active, on the customer's account; the full number is kept nowhere")
    func issuedMasked() throws {
        let w = try World()
        #expect(w.eveCard.masked == "4276 38** **** 0005")
        #expect(w.eveCard.lastFour == "0005" && w.eveCard.scheme == "visa" && w.eveCard.state == "active")
        #expect(try w.f.ledger.cards(ofCustomer: "eve") == [w.eveCard])
        #expect(try w.f.ledger.cards(of: .customer(w.eve.holderId)) == [w.eveCard])
        // The seed's demo customer (the host's own signer's accounts) holds the two demo cards.
        #expect(try w.f.ledger.cards(of: try w.f.ledger.hostParty()).map(\.masked) == ["4111 11** **** 1111", "2200 00** **** 0004"])
        let stored = try w.f.ledger.database.read { db in try db.rows("SELECT * FROM cards").map { "\($0.values)" } }
        #expect(stored.count == 4 && !stored.joined().contains("4276380000000005"))
    }

    @Test("issuing is refused with a typed error: a bad number, an unknown customer, another's account, a repeated masked number")
    func issueRefusals() throws {
        let w = try World()
        let eveAccount = try w.f.ledger.customers.accounts(of: w.eve)[0].number
        let bobAccount = try w.f.ledger.customers.accounts(of: w.bob)[0].number
        #expect(throws: CardError.invalidNumber("the check digit is wrong (Luhn); a digit is mistyped")) {
            try w.f.ledger.issueCard(to: "eve", account: eveAccount, number: "4111111111111112")
        }
        #expect(throws: CardError.unknownCustomer("zed")) {
            try w.f.ledger.issueCard(to: "zed", account: eveAccount, number: "5500000000000004")
        }
        #expect(throws: CardError.notCustomersAccount(account: bobAccount, customer: "eve")) {
            try w.f.ledger.issueCard(to: "eve", account: bobAccount, number: "5500000000000004")
        }
        #expect(throws: CardError.sameMaskedNumber(masked: "4276 38** **** 0005", customer: "eve")) {
            try w.f.ledger.issueCard(to: "eve", account: eveAccount, number: "4276380000000005")
        }
        // Another holder may have a card of the same masked number: the core tells them apart by the signer.
        #expect(try w.f.ledger.issueCard(to: "bob", account: bobAccount, number: "4276 3800 0000 0005").masked == "4276 38** **** 0005")
    }

    @Test("a customer blocks their own card and unblocks it: each journaled, the card's state and reason follow")
    func blockAndUnblockOwn() throws {
        let w = try World()
        let eve = try w.credentials("eve")
        let block = try w.document(card: w.eveCard.masked, action: "block", by: w.eve)
        #expect(try w.f.ledger.bank.validate(block) == nil)
        guard case .acknowledged(_, let blockedAt) = try w.f.ledger.signAndPost(block, code: try w.code("eve"), as: eve) else {
            Issue.record("eve's block of her own card was not acknowledged"); return
        }
        let blocked = try w.card(w.eveCard.id, of: "eve")
        #expect(blocked.blocked && blocked.state == "blocked" && blocked.blockReason == "lost" && blocked.changedBySequence == blockedAt)
        let unblock = try w.document(card: w.eveCard.masked, action: "unblock", by: w.eve)
        guard case .acknowledged(_, let unblockedAt) = try w.f.ledger.signAndPost(unblock, code: try w.code("eve"), as: eve) else {
            Issue.record("eve's unblock of her own card was not acknowledged"); return
        }
        let active = try w.card(w.eveCard.id, of: "eve")
        #expect(!active.blocked && active.blockReason == nil && active.changedBySequence == unblockedAt)
        #expect(try w.f.ledger.journal.verify() == .ok(2))
    }

    @Test("another customer's card is refused before the code and, signed anyway, journaled as rejected with the card unchanged")
    func anothersCardRefused() throws {
        let w = try World()
        let document = try w.document(card: w.bobCard.masked, action: "block", by: w.eve)
        let refusal = try #require(try w.f.ledger.bank.validate(document))
        #expect(refusal.code == .notSignersCard)
        #expect(refusal.message == "card 2202 20** **** 0008 is not the signer's: only its own customer can block or unblock it")
        guard case .rejected(_, _, let reason) = try w.f.ledger.signAndPost(document, code: try w.code("eve"), as: try w.credentials("eve")) else {
            Issue.record("eve's block of bob's card was not rejected"); return
        }
        #expect(reason.code == .notSignersCard)
        #expect(try w.card(w.bobCard.id, of: "bob").blocked == false)
    }

    @Test("the host's own signer cannot block a customer's card, only its own (the demo cards); a customer not the host's")
    func hostSignerRefused() throws {
        let w = try World()
        func host(_ masked: String) throws -> Document {
            try w.f.ledger.draft(operation: "card.block", plugin: "ru.example.cards", pluginVersion: "1.1.0", fields: [
                DocumentField("cardMasked", masked), DocumentField("action", "block"),
            ])
        }
        #expect(try w.f.ledger.bank.validate(try host(w.eveCard.masked))?.code == .notSignersCard)
        #expect(try w.f.ledger.bank.validate(try host("4111 11** **** 1111")) == nil)
        #expect(try w.f.ledger.bank.validate(try w.document(card: "4111 11** **** 1111", action: "block", by: w.eve))?.code == .notSignersCard)
    }

    @Test("blocking a blocked card, unblocking an active one, an unknown card or action: each refused with its code")
    func stateRefusals() throws {
        let w = try World()
        let eve = try w.credentials("eve")
        let id = w.eveCard.masked
        #expect(try w.f.ledger.bank.validate(try w.document(card: id, action: "unblock", by: w.eve)) == Rejection.cardNotBlocked(w.eveCard))
        _ = try w.f.ledger.signAndPost(try w.document(card: id, action: "block", by: w.eve), code: try w.code("eve"), as: eve)
        let again = try #require(try w.f.ledger.bank.validate(try w.document(card: id, action: "block", by: w.eve)))
        #expect(again.code == .cardAlreadyBlocked && again.message == "card 4276 38** **** 0005 is already blocked")
        #expect(try w.f.ledger.bank.validate(try w.document(card: "5500 00** **** 0012", action: "block", by: w.eve))?.message
                == "card 5500 00** **** 0012 is not one the bank issued")
        #expect(try w.f.ledger.bank.validate(try w.document(card: id, action: "freeze", by: w.eve))?.code == .unknownCardAction)
    }

    @Test("a payment that names a card (its masked source) is decided as a payment, not as a card's block")
    func paymentNamingACard() throws {
        let w = try World()
        let document = try w.f.ledger.draft(operation: "card.to.account", plugin: "ru.example.cards", pluginVersion: "1.1.0", fields: [
            DocumentField("from", "40817810438000000001"), DocumentField("account", "40702810900000012345"),
            DocumentField("amount", "10.00"), DocumentField("currency", "RUB"), DocumentField("cardMasked", "4111 11** **** 1111"),
        ])
        guard case .posted = try w.f.ledger.signAndPost(document, code: w.f.nextCode()) else {
            Issue.record("a payment naming a card was not posted"); return
        }
        #expect(try w.f.ledger.cards(of: try w.f.ledger.hostParty()).allSatisfy { !$0.blocked })
    }

    @Test("in one batch a block then an unblock of the same card: the second sees the first")
    func batchSeesEarlierChange() throws {
        let w = try World()
        let id = w.eveCard.masked
        let decisions = try w.f.ledger.bank.validate(batch: [
            try w.document(card: id, action: "block", by: w.eve), try w.document(card: id, action: "block", by: w.eve),
            try w.document(card: id, action: "unblock", by: w.eve),
        ])
        #expect(decisions.map { $0?.code } == [nil, .cardAlreadyBlocked, nil])
    }
}
