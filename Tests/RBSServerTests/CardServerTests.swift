import Foundation
import Hummingbird
import RBSLedger
@testable import RBSServer
import Testing

/// The customer's cards over the API (issue #29): `GET /api/v1/cards` lists the customer's own, masked; blocking and
/// unblocking are runs of card.block and card.unblock, signed as every operation; another's card is never offered,
/// and the core refuses it whatever a client sends.
@Suite("serve: cards", .serialized)
struct CardServerTests {
    @Test("GET /api/v1/cards: the customer's own cards, masked, with their state; each customer sees only theirs")
    func listsOwnCards() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let alice = try await api.call(.get, "/api/v1/cards", token: try await api.login(bank.alice))
            #expect(alice.status == 200, "\(alice.text)")
            #expect(alice.array.count == 1)
            let card = try #require(alice.array.first)
            #expect(Set(card.keys) == ["id", "account", "masked", "lastFour", "scheme", "state", "blockReason", "issuedAtMilliseconds",
                                       "changedAtMilliseconds", "changedBySequence"])
            #expect(card["masked"] as? String == "4111 11** **** 1111" && card["state"] as? String == "active" && card["scheme"] as? String == "visa")
            #expect(card["account"] as? String == (try bank.ledger.customers.accounts(of: bank.alice.customer)[0].number))
            #expect(!alice.text.contains("4111111111111111"))
            let bob = try await api.call(.get, "/api/v1/cards", token: try await api.login(bank.bob))
            #expect(bob.array.map { $0["masked"] as? String } == ["2202 20** **** 0008"])
            #expect(try await api.call(.get, "/api/v1/cards").status == 401)
        }
    }

    @Test("alice blocks her card and unblocks it through runs: each signed and journaled, the list follows")
    func blockAndUnblock() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let token = try await api.login(bank.alice)
            for (operation, values, state) in [("card.block", [("cardNumber", "4111 11** **** 1111" as Any), ("reason", "lost"), ("confirm", true)], "blocked"),
                                               ("card.unblock", [("cardNumber", "4111 11** **** 1111" as Any), ("confirm", true)], "active")] {
                let run = try #require(try await api.open(operation, token)["id"] as? String)
                try await api.fill(run, values, token)
                let review = try await api.call(.post, "/api/v1/runs/\(run)/submit", token: token)
                #expect(review.status == 200)
                // No amount and no payee: the review is headed by what the document does, its action a word, not "block".
                let word = operation == "card.block" ? "block" : "unblock"
                #expect(review.object["heading"] as? String == "\(word.prefix(1).uppercased() + word.dropFirst()) the card 4111 11** **** 1111")
                let lines = review.object["fields"] as? [[String: Any]] ?? []
                #expect(lines.first { $0["caption"] as? String == "Action" }?["value"] as? String == "\(word) the card", "\(lines)")
                bank.clock.advance(30)
                let signed = try await api.call(.post, "/api/v1/runs/\(run)/sign", token: token, json: ["code": bank.code(bank.alice)])
                #expect(signed.status == 200 && signed.object["status"] as? String == "posted", "\(operation): \(signed.text)")
                let cards = try await api.call(.get, "/api/v1/cards", token: token).array
                #expect(cards.first?["state"] as? String == state, "\(operation): \(cards)")
            }
            let cards = try bank.ledger.cards(ofCustomer: "alice")
            #expect(cards.first?.changedBySequence == 2 && cards.first?.blockReason == nil)
        }
    }

    @Test("bob's card typed into alice's form is refused at its field, with alice's cards named; nothing is signed")
    func anothersCardRefused() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let token = try await api.login(bank.alice)
            let opened = try await api.open("card.block", token)
            #expect(atom("yourCards", in: opened["atoms"])?["caption"] as? String == "Your cards: 4111 11** **** 1111 (active)")
            let run = try #require(opened["id"] as? String)
            let answer = try await api.commit(run, "cardNumber", "2202 20** **** 0008", token)
            #expect(atom("cardNumber", in: answer.object["changed"])?["error"] as? String
                    == "2202 20** **** 0008 is not one of your cards: yours are 4111 11** **** 1111", "\(answer.text)")
            // The web client's language switch reloads the run in the other language: what the plugin wrote while it
            // ran (rbs.run-texts/1) follows, with no call into the plugin.
            let russian = try await api.call(.get, "/api/v1/runs/\(run)", token: token, language: "ru")
            #expect(atom("yourCards", in: russian.object["atoms"])?["caption"] as? String == "Ваши карты: 4111 11** **** 1111 (активна)",
                    "\(russian.text)")
            #expect(atom("cardNumber", in: russian.object["atoms"])?["error"] as? String
                    == "2202 20** **** 0008 — не ваша карта: ваши — 4111 11** **** 1111", "\(russian.text)")
            #expect(try bank.ledger.cards(ofCustomer: "bob").first?.blocked == false)
        }
    }
}
