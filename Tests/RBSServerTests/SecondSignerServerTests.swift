import Foundation
import Hummingbird
import RBSLedger
@testable import RBSServer
import Testing

/// Two signers over the API: the first signature awaits, `GET /pending`, approve and reject by another user.
@Suite("serve: second signer", .serialized)
struct SecondSignerServerTests {
    /// Alice's customer with a second user, carol, and a second signer above 1 000 RUB.
    private func company(_ bank: TestBank) throws -> TestBank.Person {
        let record = try PasswordRecord.make(password: "carol password", rounds: 1 << 10)
        // Both changes take alice's current code (the step-up): one code per 30-second step.
        let alice = try #require(try bank.ledger.customers.credentials(named: "alice"))
        let (carol, enrolment) = try bank.ledger.customers.addUser(
            to: alice, name: "carol", passwordRecord: record.text, code: try bank.ledger.customers.code(for: "alice", at: bank.clock.now))
        bank.clock.advance(30)
        try bank.ledger.customers.setSecondSigner(["RUB": 1000], of: alice, code: try bank.ledger.customers.code(for: "alice", at: bank.clock.now))
        bank.clock.advance(30)  // alice's next signature takes the next code
        return TestBank.Person(name: "carol", password: "carol password", secret: try #require(enrolment.totpSecret), customer: carol)
    }

    /// Alice fills, submits and signs the quick payment; answers the receipt.
    private func alicePays(_ api: TestBank.API, _ bank: TestBank, _ token: String, amount: String) async throws -> TestBank.API.Answer {
        let run = try #require(try await api.open("pay.pp.quick", token)["id"] as? String)
        try await api.fill(run, try bank.quickPayment(from: bank.alice, amount: amount), token)
        #expect(try await api.call(.post, "/api/v1/runs/\(run)/submit", token: token).status == 200)
        return try await api.call(.post, "/api/v1/runs/\(run)/sign", token: token, json: ["code": bank.code(bank.alice)])
    }

    @Test("above the threshold alice's signature awaits; carol sees it pending and approves with her code: posted; alice cannot approve her own; other customers see nothing")
    func approve() async throws {
        let bank = try TestBank()
        let carol = try company(bank)
        try await bank.test { api in
            let alice = try await api.login(bank.alice)
            let signed = try await alicePays(api, bank, alice, amount: "1500.50")
            #expect(signed.status == 200)
            #expect(signed.object["status"] as? String == "awaiting-second-signature" && signed.object["journal"] as? Int == 1)
            #expect(signed.object["posting"] == nil)
            #expect(try await api.call(.get, "/api/v1/accounts", token: alice).array.first?["balance"] as? String == "150000.00")

            let carolToken = try await api.login(carol)
            #expect(try await api.call(.get, "/api/v1/accounts", token: carolToken).array.first?["balance"] as? String == "150000.00")
            let pending = try await api.call(.get, "/api/v1/pending", token: carolToken)
            #expect(pending.status == 200 && pending.array.count == 1)
            let item = try #require(pending.array.first)
            #expect(item["journal"] as? Int == 1 && item["signedBy"] as? String == "alice" && item["canSign"] as? Bool == true)
            #expect(item["amount"] as? String == "1500.50" && item["payee"] as? String == "ООО Ромашка" && item["currency"] as? String == "RUB")
            #expect((item["fields"] as? [String: String])?["purpose"] == "Оплата по счёту 7")
            #expect(try await api.call(.get, "/api/v1/pending", token: alice).array.first?["canSign"] as? Bool == false)

            let bob = try await api.login(bank.bob)
            #expect(try await api.call(.get, "/api/v1/pending", token: bob).array.isEmpty)
            let foreign = try await api.call(.post, "/api/v1/pending/1/approve", token: bob, json: ["code": bank.code(bank.bob)])
            #expect(foreign.status == 404)

            let own = try await api.call(.post, "/api/v1/pending/1/approve", token: alice, json: ["code": bank.code(bank.alice, steps: 1)])
            #expect(own.status == 403 && own.object["type"] as? String == "urn:rbs-host:problem:same-signer")

            let carolCode = bank.code(carol)
            let wrong = try await api.call(.post, "/api/v1/pending/1/approve", token: carolToken,
                                           json: ["code": carolCode == "000000" ? "111111" : "000000"])
            #expect(wrong.status == 422 && wrong.object["attemptsLeft"] as? Int == 4)
            let approved = try await api.call(.post, "/api/v1/pending/1/approve", token: carolToken, json: ["code": carolCode])
            #expect(approved.status == 200, "\(approved.text)")
            #expect(approved.object["status"] as? String == "posted" && approved.object["journal"] as? Int == 2)
            #expect((approved.object["posting"] as? [String: Any])?["balanceAfter"] as? String == "148499.50")
            let again = try await api.call(.post, "/api/v1/pending/1/approve", token: carolToken, json: ["code": bank.code(carol, steps: 1)])
            #expect(again.status == 409 && again.object["type"] as? String == "urn:rbs-host:problem:already-decided")

            let journal = try await api.call(.get, "/api/v1/journal", token: carolToken)
            #expect(journal.array.map { $0["kind"] as? String ?? "" } == ["awaiting-second-signature", "posted"])
            #expect(try bank.ledger.journal.verify() == .ok(2))
        }
    }

    @Test("the same payment twice above the threshold: the second signing is asked to confirm (409 duplicate, awaiting); after the first approval the second approval is too, until confirmDuplicate")
    func duplicatesOfAwaitingPayments() async throws {
        let bank = try TestBank()
        let carol = try company(bank)
        try await bank.test { api in
            let alice = try await api.login(bank.alice)
            #expect(try await alicePays(api, bank, alice, amount: "2000").object["journal"] as? Int == 1)
            bank.clock.advance(30)
            // The repeat is refused at signing, naming the awaiting entry as awaiting; signed once confirmed.
            let run = try #require(try await api.open("pay.pp.quick", alice)["id"] as? String)
            try await api.fill(run, try bank.quickPayment(from: bank.alice, amount: "2000"), alice)
            #expect(try await api.call(.post, "/api/v1/runs/\(run)/submit", token: alice).status == 200)
            let refused = try await api.call(.post, "/api/v1/runs/\(run)/sign", token: alice, json: ["code": bank.code(bank.alice)])
            #expect(refused.status == 409 && refused.object["type"] as? String == "urn:rbs-host:problem:duplicate", "\(refused.text)")
            let duplicate = refused.object["duplicate"] as? [String: Any]
            #expect(duplicate?["journal"] as? Int == 1 && duplicate?["status"] as? String == "awaiting-second-signature", "\(refused.text)")
            let signed = try await api.call(.post, "/api/v1/runs/\(run)/sign", token: alice,
                                            json: ["code": bank.code(bank.alice), "confirmDuplicate": true])
            #expect(signed.object["status"] as? String == "awaiting-second-signature" && signed.object["journal"] as? Int == 2, "\(signed.text)")

            let carolToken = try await api.login(carol)
            #expect(try await api.call(.post, "/api/v1/pending/1/approve", token: carolToken, json: ["code": bank.code(carol)]).status == 200)
            // Entry 3 posted the payment: entry 2 now repeats it, in the list and at its approval.
            let pending = try await api.call(.get, "/api/v1/pending", token: carolToken)
            #expect(pending.array.map { $0["journal"] as? Int } == [2] && pending.array.first?["duplicate"] as? Int == 3, "\(pending.text)")
            bank.clock.advance(30)
            let unconfirmed = try await api.call(.post, "/api/v1/pending/2/approve", token: carolToken, json: ["code": bank.code(carol)])
            #expect(unconfirmed.status == 409 && unconfirmed.object["type"] as? String == "urn:rbs-host:problem:duplicate", "\(unconfirmed.text)")
            #expect((unconfirmed.object["duplicate"] as? [String: Any])?["journal"] as? Int == 3)
            // The code was not looked at: the same code approves once confirmed.
            let confirmed = try await api.call(.post, "/api/v1/pending/2/approve", token: carolToken,
                                               json: ["code": bank.code(carol), "confirmDuplicate": true])
            #expect(confirmed.status == 200 && confirmed.object["status"] as? String == "posted", "\(confirmed.text)")
            #expect(try bank.ledger.journal.verify() == .ok(4))
        }
    }

    @Test("carol declines with a reason (and her code): rejected, nothing posted; a replayed code and a missing reason are refused")
    func reject() async throws {
        let bank = try TestBank()
        let carol = try company(bank)
        try await bank.test { api in
            let alice = try await api.login(bank.alice)
            #expect(try await alicePays(api, bank, alice, amount: "2000").object["journal"] as? Int == 1)
            bank.clock.advance(30)
            #expect(try await alicePays(api, bank, alice, amount: "3000").object["journal"] as? Int == 2)
            let carolToken = try await api.login(carol)
            let code = bank.code(carol)
            let noReason = try await api.call(.post, "/api/v1/pending/1/reject", token: carolToken, json: ["code": code])
            #expect(noReason.status == 422 && noReason.object["atom"] as? String == "reason")
            let declined = try await api.call(.post, "/api/v1/pending/1/reject", token: carolToken, json: ["code": code, "reason": "not agreed"])
            #expect(declined.status == 200)
            #expect(declined.object["status"] as? String == "rejected" && declined.object["reason"] as? String == "declined by the second signer carol: not agreed")
            // The reason in the reader's language, from its journaled facts; `reason` stays the journaled English.
            let history = try await api.call(.get, "/api/v1/journal?lang=ru", token: alice).array
            let line = try #require(history.first { $0["kind"] as? String == "rejected" })
            #expect(line["reason"] as? String == "declined by the second signer carol: not agreed")
            #expect(line["reasonText"] as? String == "второй подписант carol отклонил документ: not agreed", "\(line)")
            let replayed = try await api.call(.post, "/api/v1/pending/2/approve", token: carolToken, json: ["code": code])
            #expect(replayed.status == 409 && replayed.object["type"] as? String == "urn:rbs-host:problem:replayed-code")
            #expect(try await api.call(.get, "/api/v1/accounts", token: alice).array.first?["balance"] as? String == "150000.00")
            #expect(try await api.call(.get, "/api/v1/pending", token: carolToken).array.map { $0["journal"] as? Int } == [2])
        }
    }
}
