import Foundation
import Hummingbird
import RBSLedger
@testable import RBSServer
import Testing

/// Signing baskets over the API (issues #18, #21): reviewed runs made into a basket, its review listing every
/// document and the total, one code for all, each document's receipt.
@Suite("serve: baskets", .serialized)
struct BasketServerTests {
    /// Opens, fills and submits a quick payment of `amount` to `name`; returns the run's id.
    static func reviewed(_ api: TestBank.API, _ bank: TestBank, _ token: String, amount: String, name: String) async throws -> String {
        let run = try #require(try await api.open("pay.pp.quick", token)["id"] as? String)
        try await api.fill(run, try bank.quickPayment(from: bank.alice, amount: amount).map { $0.0 == "destName" ? ($0.0, name) : $0 }, token)
        let review = try await api.call(.post, "/api/v1/runs/\(run)/submit", token: token)
        guard review.status == 200 else { throw TestFailure("submit: \(review.status) \(review.text)") }
        return run
    }

    @Test("three reviewed runs make a basket: its review lists each amount and payee and the total; a wrong code is refused, the right one posts all three; a retry answers the same receipts")
    func basketOfThree() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let token = try await api.login(bank.alice)
            var runs: [String] = []
            for (amount, name) in [("100.00", "ООО Ромашка"), ("250.50", "ООО Лютик"), ("0.50", "ООО Василёк")] {
                runs.append(try await Self.reviewed(api, bank, token, amount: amount, name: name))
            }
            let made = try await api.call(.post, "/api/v1/baskets", token: token, json: ["runs": runs])
            #expect(made.status == 201, "\(made.text)")
            let basket = try #require(made.object["basket"] as? String)
            #expect(basket.count == 64 && made.object["method"] as? String == "totp")
            let documents = try #require(made.object["documents"] as? [[String: Any]])
            #expect(documents.map { $0["run"] as? String } == runs)
            #expect(documents.map { $0["amount"] as? String } == ["100.00", "250.50", "0.50"])
            #expect(documents.map { $0["payee"] as? String } == ["ООО Ромашка", "ООО Лютик", "ООО Василёк"])
            let fields = try #require(documents[1]["fields"] as? [[String: Any]])
            #expect(fields.first?["caption"] as? String == "Amount" && fields.first?["value"] as? String == "250.50 RUB")
            let totals = try #require(made.object["totals"] as? [[String: Any]])
            #expect(totals.count == 1 && totals[0]["currency"] as? String == "RUB" && totals[0]["amount"] as? String == "351.00")

            // Bob sees neither the basket nor the runs.
            let bob = try await api.login(bank.bob)
            #expect(try await api.call(.post, "/api/v1/baskets/\(basket)/sign", token: bob, json: ["code": bank.code(bank.bob)]).status == 404)
            #expect(try await api.call(.post, "/api/v1/baskets", token: bob, json: ["runs": runs]).status == 404)

            let right = bank.code(bank.alice)
            let wrong = String(format: "%06d", (Int(right)! + 1) % 1_000_000)
            let refused = try await api.call(.post, "/api/v1/baskets/\(basket)/sign", token: token, json: ["code": wrong])
            #expect(refused.status == 422 && refused.object["attemptsLeft"] as? Int == 4, "\(refused.text)")
            let signed = try await api.call(.post, "/api/v1/baskets/\(basket)/sign", token: token, json: ["code": right, "requestId": "basket-1"])
            #expect(signed.status == 200, "\(signed.text)")
            #expect(signed.object["status"] as? String == "posted" && signed.object["basket"] as? String == basket)
            let receipts = try #require(signed.object["receipts"] as? [[String: Any]])
            #expect(receipts.map { $0["status"] as? String } == ["posted", "posted", "posted"])
            #expect(receipts.map { $0["documentHash"] as? String } == documents.map { $0["documentHash"] as? String })
            let again = try await api.call(.post, "/api/v1/baskets/\(basket)/sign", token: token, json: ["code": right, "requestId": "basket-1"])
            #expect(again.status == 200 && (again.object["receipts"] as? [[String: Any]])?.map { $0["journal"] as? Int } == receipts.map { $0["journal"] as? Int })
            let twice = try await api.call(.post, "/api/v1/baskets/\(basket)/sign", token: token, json: ["code": bank.code(bank.alice, steps: 1)])
            #expect(twice.status == 409)

            let journal = try await api.call(.get, "/api/v1/journal", token: token)
            #expect(journal.array.count == 3 && journal.array.allSatisfy { $0["basket"] as? String == basket })
            #expect(try bank.ledger.journal.verify() == .ok(3))

            // The first payment again, in a new basket: its review names the earlier entry, and signing is a 409
            // duplicate (nothing signed, the code not looked at) until the person confirms.
            let repeatRun = try await Self.reviewed(api, bank, token, amount: "100.00", name: "ООО Ромашка")
            let second = try await api.call(.post, "/api/v1/baskets", token: token, json: ["runs": [repeatRun]])
            let repeated = try #require((second.object["documents"] as? [[String: Any]])?.first?["duplicate"] as? [String: Any])
            #expect(repeated["journal"] as? Int == 1, "\(second.text)")
            // The same payment twice in one basket: the second names the first by position, with the payment's
            // amount, payee and account, and journal and postedAt null (present, as the schema says).
            let twin = try await api.call(.post, "/api/v1/baskets", token: token, json: ["runs": [
                try await Self.reviewed(api, bank, token, amount: "7.00", name: "ООО Лютик"),
                try await Self.reviewed(api, bank, token, amount: "7.00", name: "ООО Лютик")]])
            let inBasket = try #require((twin.object["documents"] as? [[String: Any]])?.last?["duplicate"] as? [String: Any], "\(twin.text)")
            #expect(inBasket["journal"] is NSNull && inBasket["postedAt"] is NSNull, "\(twin.text)")
            #expect(inBasket["document"] as? Int == 1 && inBasket["position"] as? Int == 2)
            #expect(inBasket["amount"] as? String == "7.00" && inBasket["payee"] as? String == "ООО Лютик" && inBasket["currency"] as? String == "RUB")
            let secondId = try #require(second.object["basket"] as? String)
            let asked = try await api.call(.post, "/api/v1/baskets/\(secondId)/sign", token: token, json: ["code": "000000"])
            #expect(asked.status == 409 && asked.object["type"] as? String == "urn:rbs-host:problem:duplicate", "\(asked.text)")
            let confirmed = try await api.call(.post, "/api/v1/baskets/\(secondId)/sign", token: token,
                                               json: ["code": bank.code(bank.alice, steps: 1), "confirmDuplicate": true])
            #expect(confirmed.status == 200 && confirmed.object["status"] as? String == "posted", "\(confirmed.text)")
            // The runs are finished: signed.
            #expect(try await api.call(.get, "/api/v1/runs/\(runs[0])", token: token).object["state"] as? String == "signed")
        }
    }

    @Test("a basket is refused when empty, with a run twice or an unsubmitted run; a run changed after the basket was made stops its signing")
    func refusals() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let token = try await api.login(bank.alice)
            let empty = try await api.call(.post, "/api/v1/baskets", token: token, json: ["runs": [String]()])
            #expect(empty.status == 422 && empty.object["type"] as? String == "urn:rbs-host:problem:empty-basket")
            let first = try await Self.reviewed(api, bank, token, amount: "10.00", name: "ООО Ромашка")
            let twice = try await api.call(.post, "/api/v1/baskets", token: token, json: ["runs": [first, first]])
            #expect(twice.status == 422 && twice.object["type"] as? String == "urn:rbs-host:problem:repeated-run")
            let open = try #require(try await api.open("pay.pp.quick", token)["id"] as? String)
            let unsubmitted = try await api.call(.post, "/api/v1/baskets", token: token, json: ["runs": [first, open]])
            #expect(unsubmitted.status == 409 && unsubmitted.object["type"] as? String == "urn:rbs-host:problem:not-submitted")

            let second = try await Self.reviewed(api, bank, token, amount: "20.00", name: "ООО Лютик")
            let made = try await api.call(.post, "/api/v1/baskets", token: token, json: ["runs": [first, second]])
            let basket = try #require(made.object["basket"] as? String)
            // The second payment's amount changes after the basket's review: the basket is not signed.
            #expect(try await api.commit(second, "amount", "2000.00", token).status == 200)
            let changed = try await api.call(.post, "/api/v1/baskets/\(basket)/sign", token: token, json: ["code": bank.code(bank.alice)])
            #expect(changed.status == 409 && changed.object["type"] as? String == "urn:rbs-host:problem:basket-changed", "\(changed.text)")
            #expect(try bank.ledger.journal.entries().isEmpty)
        }
    }
}
