import Foundation
import Hummingbird
import RBSLedger
@testable import RBSServer
import Testing

/// What the person saw is what is signed: a signing names the review it authorises (`documentHash`), and a run
/// reviewed again since — another window changed the amount — is refused before the code is looked at; retries of
/// one signing sent while it is under way get its receipt.
@Suite("serve: a signing is bound to the review it authorises", .serialized)
struct ReviewBindingServerTests {
    @Test("a review made again in another window (4.00 → 400.00) is refused 409 review-changed with the code unused; the current review's hash signs it")
    func staleReview() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let token = try await api.login(bank.alice)
            let run = try #require(try await api.open("pay.pp.quick", token)["id"] as? String)
            try await api.fill(run, try bank.quickPayment(from: bank.alice, amount: "4"), token)
            let seen = try await api.call(.post, "/api/v1/runs/\(run)/submit", token: token)
            #expect(seen.status == 200 && seen.object["amount"] as? String == "4.00")
            let seenHash = try #require(seen.object["documentHash"] as? String)

            // The second window: the amount changed and reviewed again.
            #expect(try await api.commit(run, "amount", "400", token).status == 200)
            let now = try await api.call(.post, "/api/v1/runs/\(run)/submit", token: token)
            let nowHash = try #require(now.object["documentHash"] as? String)
            #expect(now.object["amount"] as? String == "400.00" && nowHash != seenHash)

            // The first window signs what it shows: refused, nothing journaled, the code not spent.
            let code = bank.code(bank.alice)
            let stale = try await api.call(.post, "/api/v1/runs/\(run)/sign", token: token,
                                           json: ["code": code, "documentHash": seenHash])
            #expect(stale.status == 409, "\(stale.text)")
            #expect(stale.object["type"] as? String == "urn:rbs-host:problem:review-changed")
            #expect(stale.object["detail"] as? String == "the document was changed after the review being signed (reviewed "
                    + "\(seenHash.prefix(12))…, now \(nowHash.prefix(12))…, reviewed again elsewhere): check the new review "
                    + "and sign that — nothing was signed and no one-time code was used")
            let russian = try await api.call(.post, "/api/v1/runs/\(run)/sign", token: token,
                                             json: ["code": code, "documentHash": seenHash], language: "ru")
            #expect((russian.object["detail"] as? String)?.hasPrefix("документ изменён после проверки") == true, "\(russian.text)")
            #expect(try bank.ledger.journal.entries().isEmpty)

            // The review now shown, with the same code: posted, 400.00.
            let signed = try await api.call(.post, "/api/v1/runs/\(run)/sign", token: token,
                                            json: ["code": code, "documentHash": nowHash])
            #expect(signed.status == 200, "\(signed.text)")
            #expect(signed.object["documentHash"] as? String == nowHash)
            #expect((signed.object["posting"] as? [String: Any])?["amount"] as? String == "400.00")
        }
    }

    @Test("three signings of one run at once with one requestId: one posting, every answer its receipt")
    func concurrentRetries() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let token = try await api.login(bank.alice)
            let run = try #require(try await api.open("pay.pp.quick", token)["id"] as? String)
            try await api.fill(run, try bank.quickPayment(from: bank.alice), token)
            let review = try await api.call(.post, "/api/v1/runs/\(run)/submit", token: token)
            let hash = try #require(review.object["documentHash"] as? String)
            let code = bank.code(bank.alice)
            async let first = api.call(.post, "/api/v1/runs/\(run)/sign", token: token,
                                       json: ["code": code, "requestId": "retry-1", "documentHash": hash])
            async let second = api.call(.post, "/api/v1/runs/\(run)/sign", token: token,
                                        json: ["code": code, "requestId": "retry-1", "documentHash": hash])
            async let third = api.call(.post, "/api/v1/runs/\(run)/sign", token: token,
                                       json: ["code": code, "requestId": "retry-1", "documentHash": hash])
            let answers = try await [first, second, third]
            #expect(answers.map(\.status) == [200, 200, 200], "\(answers.map(\.text))")
            #expect(Set(answers.compactMap { $0.object["journal"] as? Int }) == [1])
            #expect(try bank.ledger.journal.entries().count == 1)
        }
    }
}

/// A problem a person reads is in the request's language too where it says that something is not theirs or not right
/// (a Russian page showed these in English).
@Suite("serve: problems in the request's language", .serialized)
struct ProblemLanguageTests {
    @Test("a wrong login, another customer's entry and account, a template name in use: Russian details with Accept-Language: ru")
    func russianDetails() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let wrong = try await api.call(.post, "/api/v1/session", json: ["customer": "alice", "password": "not-hers"], language: "ru")
            #expect(wrong.status == 401 && wrong.object["detail"] as? String == "неверное имя клиента или пароль", "\(wrong.text)")
            let token = try await api.login(bank.alice)
            let entry = try await api.call(.get, "/api/v1/journal/99999", token: token, language: "ru")
            #expect(entry.status == 404 && entry.object["detail"] as? String == "записи журнала 99999 нет среди записей этого клиента")
            let bobs = try bank.ledger.customers.accounts(of: bank.bob.customer)[0].number
            let statement = try await api.call(.get, "/api/v1/accounts/\(bobs)/statement", token: token, language: "ru")
            #expect(statement.status == 404 && statement.object["detail"] as? String == "счёта \(bobs) нет среди счетов этого клиента")
            let english = try await api.call(.get, "/api/v1/accounts/\(bobs)/statement", token: token)
            #expect(english.object["detail"] as? String == "account \(bobs) is not one of this customer's accounts")

            let run = try #require(try await api.open("pay.pp.quick", token)["id"] as? String)
            try await api.fill(run, try bank.quickPayment(from: bank.alice), token)
            let first = try await api.call(.post, "/api/v1/templates", token: token, json: ["name": "rent", "run": run])
            #expect(first.status == 201, "\(first.text)")
            let again = try await api.call(.post, "/api/v1/templates", token: token, json: ["name": "rent", "run": run], language: "ru")
            #expect(again.status == 409 && again.object["detail"] as? String == "шаблон «rent» уже есть: выберите другое имя или сначала удалите тот",
                    "\(again.text)")
        }
    }
}
