import Foundation
import RBSCore
import Testing
@testable import RBSServer

@Suite("What the web client needs: the catalogue in the customer's language, runs to resume, runs that expire")
struct WebClientTests {
    @Test("GET /api/v1/messages answers the page's words in the language asked for, else the one Accept-Language prefers")
    func catalogue() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let russian = try await api.call(.get, "/api/v1/messages?lang=ru")
            #expect(russian.status == 200)
            #expect(russian.object["lang"] as? String == "ru")
            let words = try #require(russian.object["messages"] as? [String: String])
            #expect(words["logIn"] == "Вход" && words["checkAndSign"] == "Проверка и подпись")
            #expect(words["posted"] == HostMessage.posted.text(.ru), "the page's status word is the REPL's")
            #expect(Set(words.keys) == Set(PageText.allCases.map(\.rawValue)))
            #expect(russian.object["runIdleMinutes"] as? Int == 30)

            let preferred = try await api.call(.get, "/api/v1/messages", language: "de-DE,ru;q=0.9,en;q=0.8")
            #expect(preferred.object["lang"] as? String == "ru")
            let english = try await api.call(.get, "/api/v1/messages", language: "en-GB,en;q=0.9")
            #expect(english.object["lang"] as? String == "en")
            #expect((english.object["messages"] as? [String: String])?["logIn"] == "Log in")
            #expect(try await api.call(.get, "/api/v1/messages").object["lang"] as? String == "en")
        }
    }

    @Test("Every page text has both languages, and the Russian one is not the English one left untranslated")
    func everyTextInBoth() {
        // Words that are the same in both languages by nature: none of the page's are, except the other
        // language's code and name, which are each other's.
        for text in PageText.allCases {
            let english = text.text(.en), russian = text.text(.ru)
            #expect(!english.isEmpty && !russian.isEmpty, "\(text)")
            if text != .otherLanguage && text != .otherLanguageName {
                #expect(english != russian, "\(text) is the same in both languages: \(english)")
                #expect(russian.range(of: "[A-Za-z]{3,}", options: .regularExpression) == nil || russian.contains("{"),
                        "\(text) has an English word in Russian: \(russian)")
            }
        }
    }

    @Test("Accept-Language: the tag with the highest q among ru and en; English when neither is there")
    func acceptLanguage() {
        #expect(HostLanguage.preferred(acceptLanguage: "ru-RU,ru;q=0.9,en-US;q=0.8,en;q=0.7") == .ru)
        #expect(HostLanguage.preferred(acceptLanguage: "en;q=0.5, ru;q=0.6") == .ru)
        #expect(HostLanguage.preferred(acceptLanguage: "fr-FR,en;q=0.3") == .en)
        #expect(HostLanguage.preferred(acceptLanguage: "ru;q=0, en") == .en)
        #expect(HostLanguage.preferred(acceptLanguage: "de") == .en)
        #expect(HostLanguage.preferred(acceptLanguage: nil) == .en)
    }

    @Test("In Russian: a refused amount, the review's captions and a wrong code are said in Russian; each review line names its field")
    func russianAnswers() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let token = try await api.login(bank.alice)
            let run = try #require(try await api.open("pay.pp.quick", token)["id"] as? String)
            let ambiguous = try await api.call(.put, "/api/v1/runs/\(run)/atoms/amount", token: token, json: ["value": "1,500"], language: "ru")
            #expect(ambiguous.status == 422)
            let detail = try #require(ambiguous.object["detail"] as? String)
            #expect(detail.hasPrefix("1,500 — неоднозначно: это 1500 (разделитель разрядов) или 1,5"), "\(detail)")
            try await api.fill(run, try bank.quickPayment(from: bank.alice, amount: "1 500,50"), token)
            let review = try await api.call(.post, "/api/v1/runs/\(run)/submit", token: token, json: [String: String](), language: "ru")
            #expect(review.status == 200, "\(review.text)")
            let fields = try #require(review.object["fields"] as? [[String: Any]])
            let amount = try #require(fields.first)
            #expect(amount["caption"] as? String == "Сумма" && amount["value"] as? String == "1\u{00A0}500,50 RUB")
            #expect(amount["atom"] as? String == "amount", "the amount line leads back to the amount field")
            #expect(fields.contains { $0["caption"] as? String == "Получатель" && $0["atom"] as? String == "destName" })
            let wrong = bank.code(bank.alice) == "000000" ? "111111" : "000000"
            let refused = try await api.call(.post, "/api/v1/runs/\(run)/sign", token: token, json: ["code": wrong], language: "ru")
            #expect(refused.status == 422)
            #expect((refused.object["detail"] as? String)?.hasPrefix("одноразовый код неверен") == true, "\(refused.text)")
        }
    }

    @Test("The core's refusal of the amount (insufficient funds) names the amount's field, in the customer's language")
    func refusalAtTheAmount() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let token = try await api.login(bank.alice)
            let run = try #require(try await api.open("pay.pp.quick", token)["id"] as? String)
            try await api.fill(run, try bank.quickPayment(from: bank.alice, amount: "999 999,00"), token)
            let refused = try await api.call(.post, "/api/v1/runs/\(run)/submit", token: token, json: [String: String](), language: "ru")
            #expect(refused.status == 422 && refused.object["atom"] as? String == "amount", "\(refused.text)")
            #expect((refused.object["detail"] as? String)?.hasPrefix("банк отклонит этот документ: недостаточно средств") == true,
                    "\(refused.text)")
        }
    }

    @Test("A one-time code typed with a space, as the authenticator app shows it, signs")
    func codeWithSpace() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let token = try await api.login(bank.alice)
            let run = try #require(try await api.open("pay.pp.quick", token)["id"] as? String)
            try await api.fill(run, try bank.quickPayment(from: bank.alice), token)
            #expect(try await api.call(.post, "/api/v1/runs/\(run)/submit", token: token).status == 200)
            let code = bank.code(bank.alice)
            let signed = try await api.call(.post, "/api/v1/runs/\(run)/sign", token: token,
                                            json: ["code": String(code.prefix(3)) + " " + String(code.dropFirst(3))])
            #expect(signed.status == 200 && signed.object["status"] as? String == "posted", "\(signed.text)")
            // The signed run answers its receipt: a reloaded receipt page shows it again.
            let shown = try await api.call(.get, "/api/v1/runs/\(run)", token: token)
            #expect(shown.object["state"] as? String == "signed" && shown.object["title"] as? String == "Quick payment")
            #expect((shown.object["receipt"] as? [String: Any])?["journal"] as? Int == signed.object["journal"] as? Int)
        }
    }

    @Test("GET /api/v1/runs lists the customer's own runs, most recently used first, with when each expires")
    func openRunsListed() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let alice = try await api.login(bank.alice)
            let bob = try await api.login(bank.bob)
            let first = try #require(try await api.open("pay.pp.quick", alice)["id"] as? String)
            bank.clock.advance(5)
            let second = try #require(try await api.open("pay.pp.tax", alice)["id"] as? String)
            _ = try await api.open("pay.pp.quick", bob)
            let listed = try await api.call(.get, "/api/v1/runs", token: alice)
            #expect(listed.status == 200)
            #expect(listed.array.map { $0["id"] as? String } == [second, first])
            #expect(listed.array.first?["state"] as? String == "open" && listed.array.first?["operation"] as? String == "pay.pp.tax")
            let used = try #require(listed.array.first?["lastUsedAt"] as? String).prefix(19)
            let expires = try #require(listed.array.first?["expiresAt"] as? String)
            #expect(!used.isEmpty && expires > String(used), "\(used) … \(expires)")
            #expect(try await api.call(.get, "/api/v1/runs", token: bob).array.count == 1)
            // Two open runs of one operation are told apart by what their forms hold: amounts, then the first text.
            #expect(listed.array.allSatisfy { $0["summary"] == nil }, "nothing filled in yet: \(listed.text)")
            try await api.fill(first, bank.quickPayment(from: bank.alice), alice)
            let third = try #require(try await api.open("pay.pp.quick", alice)["id"] as? String)
            _ = try await api.commit(third, "amount", "7", alice)
            let summaries = Dictionary(uniqueKeysWithValues: try await api.call(.get, "/api/v1/runs", token: alice).array.map {
                ($0["id"] as? String ?? "", $0["summary"] as? String)
            })
            #expect(summaries[first] == "1,500.50 RUB · ООО Ромашка" && summaries[third] == "7.00 RUB", "\(summaries)")
            // A number typed names a form with no text (a phone to top up); a budget field's "0" never does.
            let topup = try #require(try await api.open("topup.mobile", alice)["id"] as? String)
            _ = try await api.commit(topup, "phone", "9161234567", alice)
            let listedAgain = try await api.call(.get, "/api/v1/runs", token: alice).array
            #expect(listedAgain.first { $0["id"] as? String == topup }?["summary"] as? String == "9161234567", "\(listedAgain)")
        }
    }

    @Test("GET /api/v1/runs titles each run in the language of the request, not the one it was opened in")
    func openRunsTitledInTheReadersLanguage() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let alice = try await api.login(bank.alice)
            // Opened on the English page; the person then switches to Russian (the page asks in its language).
            _ = try #require(try await api.call(.post, "/api/v1/runs", token: alice, json: ["operation": "pay.pp.quick"], language: "en").object["id"] as? String)
            let russian = try await api.call(.get, "/api/v1/runs", token: alice, language: "ru")
            #expect(russian.array.map { $0["title"] as? String } == ["Быстрый платёж"])
            let english = try await api.call(.get, "/api/v1/runs?lang=en", token: alice, language: "ru")
            #expect(english.array.map { $0["title"] as? String } == ["Quick payment"])
        }
    }

    @Test("A run unused for the idle time expires: its plugin instance is closed, and it is no longer found")
    func idleRunsExpire() async throws {
        var limits = OnlineBank.Limits()
        limits.runIdle = 600
        let bank = try TestBank(limits: limits)
        try await bank.test { api in
            let token = try await api.login(bank.alice)
            let run = try #require(try await api.open("pay.pp.quick", token)["id"] as? String)
            bank.clock.advance(290)
            #expect(try await api.commit(run, "destName", "ООО Ромашка", token).status == 200)  // a use: the time starts again
            for _ in 0..<2 {  // the login ends after 5 minutes unused: each request keeps it
                bank.clock.advance(290)
                #expect(try await api.call(.get, "/api/v1/session", token: token).status == 200)
            }
            #expect(try await api.call(.get, "/api/v1/runs/\(run)", token: token).status == 200)
            bank.clock.advance(290)
            #expect(try await api.call(.get, "/api/v1/session", token: token).status == 200)
            bank.clock.advance(290)
            #expect(try await api.call(.get, "/api/v1/session", token: token).status == 200)
            bank.clock.advance(30)
            let health = try await api.call(.get, "/health")
            #expect(health.object["openRuns"] as? Int == 0)
            let gone = try await api.call(.get, "/api/v1/runs/\(run)", token: token)
            #expect(gone.status == 404)
            #expect(try await api.call(.get, "/api/v1/runs", token: token).array.isEmpty)
        }
    }

    @Test("A customer holds at most runsPerCustomer runs; a cancelled one makes room")
    func runsBounded() async throws {
        var limits = OnlineBank.Limits()
        limits.runsPerCustomer = 2
        let bank = try TestBank(limits: limits)
        try await bank.test { api in
            let token = try await api.login(bank.alice)
            // A form only looked at gives its place to the next one: the least recently used untouched one.
            let looked = try #require(try await api.open("pay.pp.quick", token)["id"] as? String)
            let first = try #require(try await api.open("pay.pp.quick", token)["id"] as? String)
            _ = try await api.commit(first, "amount", "5", token)
            let replacing = try await api.call(.post, "/api/v1/runs", token: token, json: ["operation": "pay.pp.quick"])
            #expect(replacing.status == 201, "\(replacing.text)")
            #expect(try await api.call(.get, "/api/v1/runs/\(looked)", token: token).status == 404)
            let second = try #require(replacing.object["id"] as? String)
            _ = try await api.commit(second, "amount", "6", token)
            // Both hold a value now: the next is refused, in the person's words (no API route), until one is cancelled.
            let third = try await api.call(.post, "/api/v1/runs", token: token, json: ["operation": "pay.pp.quick"], language: "ru")
            #expect(third.status == 429 && third.object["type"] as? String == "urn:rbs-host:problem:too-many-runs")
            #expect((third.object["detail"] as? String)?.hasPrefix("у вас открыто 2 форм") == true, "\(third.text)")
            #expect(try await api.call(.delete, "/api/v1/runs/\(first)", token: token).status == 204)
            #expect(try await api.call(.post, "/api/v1/runs", token: token, json: ["operation": "pay.pp.quick"]).status == 201)
        }
    }

    @Test("A signed run, kept only to answer its receipt again, gives its place to a new run at the bound")
    func signedRunsMakeRoom() async throws {
        var limits = OnlineBank.Limits()
        limits.runsPerCustomer = 2
        let bank = try TestBank(limits: limits)
        try await bank.test { api in
            let token = try await api.login(bank.alice)
            let signed = try #require(try await api.open("pay.pp.quick", token)["id"] as? String)
            try await api.fill(signed, try bank.quickPayment(from: bank.alice), token)
            #expect(try await api.call(.post, "/api/v1/runs/\(signed)/submit", token: token).status == 200)
            #expect(try await api.call(.post, "/api/v1/runs/\(signed)/sign", token: token, json: ["code": bank.code(bank.alice)]).status == 200)
            let open = try #require(try await api.open("pay.pp.quick", token)["id"] as? String)
            _ = try await api.commit(open, "amount", "5", token)
            let next = try await api.call(.post, "/api/v1/runs", token: token, json: ["operation": "pay.pp.quick"])
            #expect(next.status == 201)
            #expect(try await api.call(.get, "/api/v1/runs/\(signed)", token: token).status == 404)
            #expect(try await api.call(.get, "/api/v1/runs/\(open)", token: token).status == 200)
            _ = try await api.commit(try #require(next.object["id"] as? String), "amount", "6", token)
            #expect(try await api.call(.post, "/api/v1/runs", token: token, json: ["operation": "pay.pp.quick"]).status == 429)
        }
    }

    @Test("The default bounds are stated: 20 runs a customer, 30 minutes unused")
    func defaults() {
        #expect(OnlineBank.Limits().runsPerCustomer == 20)
        #expect(OnlineBank.Limits().runIdle == 30 * 60)
    }
}
