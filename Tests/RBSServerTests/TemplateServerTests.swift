import Foundation
import Hummingbird
import RBSLedger
@testable import RBSServer
import Testing

/// A customer's own templates over the API (saved from a form or a signed entry, listed, renamed, run, deleted) and
/// the repeat of a journal entry: each opens a form with the values filled in, and no customer reaches another's.
@Suite("serve: templates and repeat", .serialized)
struct TemplateServerTests {
    private func names(_ answer: TestBank.API.Answer) -> [String] { answer.array.compactMap { $0["name"] as? String } }

    private func value(_ run: [String: Any], _ atom: String) -> String? {
        ((run["atoms"] as? [[String: Any]]) ?? []).first { $0["id"] as? String == atom }?["value"] as? String
    }

    private func path(_ name: String) -> String { name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? name }

    @Test("a template saved from an open form is the customer's alone: listed, renamed, run with its values, deleted")
    func lifecycle() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let alice = try await api.login(bank.alice), bob = try await api.login(bank.bob)
            let run = try #require(try await api.open("pay.pp.quick", alice)["id"] as? String)
            try await api.fill(run, try bank.quickPayment(from: bank.alice), alice)
            let saved = try await api.call(.post, "/api/v1/templates", token: alice, json: ["name": "Romashka", "run": run])
            #expect(saved.status == 201, "\(saved.text)")
            #expect(saved.object["operation"] as? String == "pay.pp.quick" && saved.object["title"] as? String == "Quick payment")
            let kept = ((saved.object["values"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }
            #expect(kept.contains("destName") && kept.contains("amount"), "\(kept)")
            #expect(names(try await api.call(.get, "/api/v1/templates", token: alice)) == ["Romashka"])
            #expect(names(try await api.call(.get, "/api/v1/templates", token: bob)).isEmpty, "bob does not see alice's templates")

            let again = try await api.call(.post, "/api/v1/templates", token: alice, json: ["name": "Romashka", "run": run])
            #expect(again.status == 409 && again.object["type"] as? String == "urn:rbs-host:problem:template-exists", "\(again.text)")
            let spaced = try await api.call(.post, "/api/v1/templates", token: alice, json: ["name": "my rent", "run": run])
            #expect(spaced.status == 422 && spaced.object["atom"] as? String == "name", "\(spaced.text)")
            #expect((spaced.object["detail"] as? String)?.hasPrefix("'my rent' cannot name a template") == true)
            let both = try await api.call(.post, "/api/v1/templates", token: alice, json: ["name": "x", "run": run, "entry": 1])
            #expect(both.status == 400, "\(both.text)")

            let renamed = try await api.call(.put, "/api/v1/templates/Romashka", token: alice, json: ["name": "Ромашка_счёт"])
            #expect(renamed.status == 200 && renamed.object["name"] as? String == "Ромашка_счёт", "\(renamed.text)")
            #expect(names(try await api.call(.get, "/api/v1/templates", token: alice)) == ["Ромашка_счёт"])
            #expect(try await api.call(.post, "/api/v1/templates/\(path("Ромашка_счёт"))/run", token: bob).status == 404,
                    "bob cannot run alice's template")

            let opened = try await api.call(.post, "/api/v1/templates/\(path("Ромашка_счёт"))/run", token: alice)
            #expect(opened.status == 201, "\(opened.text)")
            #expect(value(opened.object, "destName") == "ООО Ромашка" && value(opened.object, "destAccount") == "40702810638000000123")
            #expect(opened.object["dropped"] == nil && opened.object["refused"] == nil, "\(opened.text)")
            let second = try #require(opened.object["id"] as? String)
            #expect(second != run)
            let review = try await api.call(.post, "/api/v1/runs/\(second)/submit", token: alice)
            #expect(review.status == 200 && review.object["payee"] as? String == "ООО Ромашка", "\(review.text)")

            #expect(try await api.call(.delete, "/api/v1/templates/\(path("Ромашка_счёт"))", token: alice).status == 204)
            #expect(names(try await api.call(.get, "/api/v1/templates", token: alice)).isEmpty)
            #expect(try await api.call(.delete, "/api/v1/templates/\(path("Ромашка_счёт"))", token: alice).status == 404)
        }
    }

    @Test("a signed entry is repeated and kept as a template with the values entered then; another customer's entry is not found")
    func repeatAndSaveFromEntry() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let alice = try await api.login(bank.alice), bob = try await api.login(bank.bob)
            let entry = try await HistoryStatementTests.pay(bank, api, bank.alice, alice, ["amount": "250"])
            let repeated = try await api.call(.post, "/api/v1/journal/\(entry)/repeat", token: alice)
            #expect(repeated.status == 201, "\(repeated.text)")
            #expect(repeated.headers[.location] == "/api/v1/runs/\(repeated.object["id"] as? String ?? "")")
            #expect(value(repeated.object, "destName") == "ООО Ромашка" && value(repeated.object, "destDesc") == "Оплата по счёту 7")
            let saved = try await api.call(.post, "/api/v1/templates", token: alice, json: ["name": "from_entry", "entry": entry])
            #expect(saved.status == 201, "\(saved.text)")
            #expect(try await api.call(.post, "/api/v1/journal/\(entry)/repeat", token: bob).status == 404)
            #expect(try await api.call(.post, "/api/v1/templates", token: bob, json: ["name": "stolen", "entry": entry]).status == 404)
            #expect(try await api.call(.post, "/api/v1/journal/999/repeat", token: alice).status == 404)
        }
    }
}
