import Foundation
import RBSLedger
import Testing

/// A mobile top-up with a fee through `serve`'s API (issue #32 item 4): `fee` and `totalDebited` in the review, the
/// receipt's posting (with the core's `feeAccount`), the journal and the statement's fee line; absent without a fee.
@Suite("Fees through the API")
struct FeeServerTests {
    @Test("a top-up's review, receipt, journal and statement carry the fee and the total debited; a quick payment has neither key")
    func feeKeys() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let token = try await api.login(bank.alice)
            let account = try bank.ledger.customers.accounts(of: bank.alice.customer)[0].number
            let run = try #require(try await api.open("topup.mobile", token)["id"] as? String)
            try await api.fill(run, [("srcAccount", account), ("operatorCode", "mts"), ("phone", "9161234567"), ("amount", "2500.00")], token)
            let review = try await api.call(.post, "/api/v1/runs/\(run)/submit", token: token)
            #expect(review.status == 200, "\(review.text)")
            #expect([review.object["amount"], review.object["fee"], review.object["totalDebited"]].map { $0 as? String } == ["2500.00", "25.00", "2525.00"])
            let lines = (review.object["fields"] as? [[String: Any]] ?? []).prefix(3).map { "\($0["caption"] as? String ?? ""): \($0["value"] as? String ?? "")" }
            #expect(lines == ["Amount: 2,500.00 RUB", "Fee: 25.00 RUB", "Total debited: 2,525.00 RUB"])

            let signed = try await api.call(.post, "/api/v1/runs/\(run)/sign", token: token, json: ["code": bank.code(bank.alice)])
            #expect(signed.object["status"] as? String == "posted", "\(signed.text)")
            let posting = try #require(signed.object["posting"] as? [String: Any])
            #expect([posting["amount"], posting["fee"], posting["feeAccount"], posting["totalDebited"], posting["balanceAfter"]].map { $0 as? String }
                    == ["2500.00", "25.00", FeeIncome.number(of: "RUB"), "2525.00", "147475.00"])

            let journal = try await api.call(.get, "/api/v1/journal", token: token)
            #expect([journal.array.first?["fee"], journal.array.first?["totalDebited"]].map { $0 as? String } == ["25.00", "2525.00"])
            let statement = try await api.call(.get, "/api/v1/accounts/\(account)/statement", token: token)
            let kinds = (statement.object["lines"] as? [[String: Any]] ?? []).map { "\($0["kind"] as? String ?? "") \($0["amount"] as? String ?? "")" }
            #expect(kinds == ["payment -2500.00", "fee -25.00"])
            #expect(try bank.ledger.journal.verify() == .ok(1))

            let quick = try #require(try await api.open("pay.pp.quick", token)["id"] as? String)
            try await api.fill(quick, try bank.quickPayment(from: bank.alice), token)
            let plain = try await api.call(.post, "/api/v1/runs/\(quick)/submit", token: token)
            #expect(plain.status == 200)
            #expect(plain.object["fee"] == nil && plain.object["totalDebited"] == nil)
        }
    }
}
