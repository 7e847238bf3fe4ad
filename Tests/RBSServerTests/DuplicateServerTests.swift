import Foundation
import Hummingbird
import RBSLedger
@testable import RBSServer
import Testing

/// The duplicate-payment warning over the API: the review names the earlier entry, and signing asks for
/// `confirmDuplicate: true` (409 `duplicate`) before any code is looked at.
@Suite("serve: duplicate payments", .serialized)
struct DuplicateServerTests {
    /// Opens, fills and submits the quick payment; answers the run id and the review.
    private func review(_ api: TestBank.API, _ bank: TestBank, _ token: String, amount: String = "1500.50") async throws -> (String, TestBank.API.Answer) {
        let run = try #require(try await api.open("pay.pp.quick", token)["id"] as? String)
        try await api.fill(run, try bank.quickPayment(from: bank.alice, amount: amount), token)
        let review = try await api.call(.post, "/api/v1/runs/\(run)/submit", token: token)
        #expect(review.status == 200)
        return (run, review)
    }

    @Test("the same payment again: the review carries duplicate, signing answers 409 duplicate naming entry 1 and keeps the code; confirmDuplicate posts it")
    func confirmAgain() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let token = try await api.login(bank.alice)
            let (first, firstReview) = try await review(api, bank, token)
            #expect(firstReview.object["duplicate"] == nil)
            let posted = try await api.call(.post, "/api/v1/runs/\(first)/sign", token: token, json: ["code": bank.code(bank.alice)])
            #expect(posted.status == 200 && posted.object["journal"] as? Int == 1)

            bank.clock.advance(60)
            let (run, again) = try await review(api, bank, token)
            let warned = try #require(again.object["duplicate"] as? [String: Any])
            #expect(warned["journal"] as? Int == 1 && warned["amount"] as? String == "1500.50" && warned["currency"] as? String == "RUB")
            #expect(warned["payee"] as? String == "ООО Ромашка" && warned["account"] as? String == "40702810638000000123")
            #expect(warned["purpose"] as? String == "Оплата по счёту 7")
            #expect((warned["postedAt"] as? String)?.hasSuffix("Z") == true)
            #expect((warned["message"] as? String)?.hasPrefix("this payment repeats journal entry 1, posted ") == true)

            let code = bank.code(bank.alice)
            let asked = try await api.call(.post, "/api/v1/runs/\(run)/sign", token: token, json: ["code": code])
            #expect(asked.status == 409)
            #expect(asked.object["type"] as? String == "urn:rbs-host:problem:duplicate")
            let duplicate = try #require(asked.object["duplicate"] as? [String: Any])
            #expect(duplicate["journal"] as? Int == 1)
            #expect((asked.object["detail"] as? String)?.contains("sign with confirmDuplicate: true") == true)
            #expect(try bank.ledger.journal.entries().count == 1)

            // Nothing was signed and the code was not spent: the same code posts it once confirmed.
            let confirmed = try await api.call(.post, "/api/v1/runs/\(run)/sign", token: token,
                                               json: ["code": code, "confirmDuplicate": true])
            #expect(confirmed.status == 200, "\(confirmed.text)")
            #expect(confirmed.object["status"] as? String == "posted" && confirmed.object["journal"] as? Int == 2)
            #expect(try bank.ledger.journal.verify() == .ok(2))
        }
    }

    @Test("another amount, or 24 hours later, is no duplicate; another customer's payment never is")
    func notDuplicates() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let token = try await api.login(bank.alice)
            let (first, _) = try await review(api, bank, token)
            #expect(try await api.call(.post, "/api/v1/runs/\(first)/sign", token: token, json: ["code": bank.code(bank.alice)]).status == 200)
            bank.clock.advance(30)
            let (other, otherReview) = try await review(api, bank, token, amount: "1500.51")
            #expect(otherReview.object["duplicate"] == nil)
            #expect(try await api.call(.post, "/api/v1/runs/\(other)/sign", token: token, json: ["code": bank.code(bank.alice)]).status == 200)

            // Bob pays the same payee the same amount: not Alice's duplicate, nor his own.
            let bobToken = try await api.login(bank.bob)
            let bobRun = try #require(try await api.open("pay.pp.quick", bobToken)["id"] as? String)
            try await api.fill(bobRun, try bank.quickPayment(from: bank.bob), bobToken)
            let bobReview = try await api.call(.post, "/api/v1/runs/\(bobRun)/submit", token: bobToken)
            #expect(bobReview.status == 200 && bobReview.object["duplicate"] == nil)

            bank.clock.advance(24 * 60 * 60 + 1)
            let later = try await api.login(bank.alice)
            let (run, laterReview) = try await review(api, bank, later)
            #expect(laterReview.object["duplicate"] == nil)
            #expect(try await api.call(.post, "/api/v1/runs/\(run)/sign", token: later, json: ["code": bank.code(bank.alice)]).status == 200)
        }
    }

    @Test("a duplicate posted after the review (another run) is caught at signing: 409, nothing signed")
    func postedMeanwhile() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let token = try await api.login(bank.alice)
            let (first, _) = try await review(api, bank, token)
            let (second, secondReview) = try await review(api, bank, token)
            #expect(secondReview.object["duplicate"] == nil)
            #expect(try await api.call(.post, "/api/v1/runs/\(first)/sign", token: token, json: ["code": bank.code(bank.alice)]).status == 200)
            bank.clock.advance(30)
            let asked = try await api.call(.post, "/api/v1/runs/\(second)/sign", token: token, json: ["code": bank.code(bank.alice)])
            #expect(asked.status == 409 && asked.object["type"] as? String == "urn:rbs-host:problem:duplicate")
            // The run is back at its review: it can still be signed once the person confirms.
            let confirmed = try await api.call(.post, "/api/v1/runs/\(second)/sign", token: token,
                                               json: ["code": bank.code(bank.alice), "confirmDuplicate": true])
            #expect(confirmed.status == 200 && confirmed.object["journal"] as? Int == 2)
        }
    }
}
