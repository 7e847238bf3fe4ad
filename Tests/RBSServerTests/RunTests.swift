import Foundation
import Hummingbird
import RBSLedger
@testable import RBSServer
import Testing

@Suite("serve: runs", .serialized)
struct RunTests {
    @Test("open the quick payment: every atom with kind, caption, value, visibility; the account picker offers only the customer's accounts")
    func open() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let token = try await api.login(bank.alice)
            let operations = try await api.call(.get, "/api/v1/operations", token: token)
            #expect(Set(operations.array.compactMap { $0["id"] as? String }).isSuperset(of: ["pay.pp.quick", "pay.pp.tax", "transfer.own"]))
            let run = try await api.open("pay.pp.quick", token)
            #expect((run["id"] as? String)?.count == 32)
            #expect(run["state"] as? String == "open")
            #expect(run["ready"] as? Bool == false)
            let atoms = try #require(run["atoms"] as? [[String: Any]])
            #expect(atoms.map { $0["id"] as? String } == ["srcAccount", "destName", "destInn", "destInnError", "destKpp", "destAccount",
                                                         "destBic", "destBicInfo", "destDesc", "amount", "btnSend"])
            let source = try #require(atom("srcAccount", in: atoms))
            #expect(source["kind"] as? String == "account")
            let offered = (source["accounts"] as? [[String: Any]])?.compactMap { $0["number"] as? String }
            let own = try bank.ledger.customers.accounts(of: bank.alice.customer).filter { !$0.blocked && $0.currency == "RUB" }.map(\.number)
            #expect(offered == own)
            let amount = try #require(atom("amount", in: atoms))
            #expect(amount["kind"] as? String == "input")
            #expect(amount["inputType"] as? String == "amount")
            #expect(amount["currency"] as? String == "RUB")
            #expect(amount["value"] as? String == "")
            #expect(atom("btnSend", in: atoms)?["kind"] as? String == "button")
        }
    }

    @Test("a commit answers only what changed: the BIC brings the bank's name into destBicInfo's caption")
    func commitAnswersChanges() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let token = try await api.login(bank.alice)
            let run = try #require(try await api.open("pay.pp.quick", token)["id"] as? String)
            let events = bank.server.bank.events.subscribe(customer: bank.alice.customer.id)
            let answer = try await api.commit(run, "destBic", "044525225", token)
            #expect(answer.status == 200)
            let changed = try #require(answer.object["changed"] as? [[String: Any]])
            #expect(Set(changed.compactMap { $0["id"] as? String }) == ["destBic", "destBicInfo"])
            let info = try #require(atom("destBicInfo", in: changed))
            #expect((info["caption"] as? String)?.contains("ПАО Сбербанк") == true)
            // The same caption reaches the customer's event stream.
            var iterator = events.makeAsyncIterator()
            let event = try #require(await iterator.next())
            #expect(event.name == "caption")
            #expect(event.data["run"] == run && event.data["atom"] == "destBicInfo")
            #expect(event.data["caption"] == info["caption"] as? String)
            // Committing the same value again changes nothing.
            let same = try await api.commit(run, "destBic", "044525225", token)
            #expect((same.object["changed"] as? [Any])?.isEmpty == true)
        }
    }

    @Test("commits in a row each answer what changed since the last answer; a commit in another language compares the form in that language")
    func commitsInARowAnswerTheirOwnChanges() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let token = try await api.login(bank.alice)
            let run = try #require(try await api.open("pay.pp.quick", token)["id"] as? String)
            func changed(_ answer: TestBank.API.Answer) -> [String: String] {
                let atoms = answer.object["changed"] as? [[String: Any]] ?? []
                return Dictionary(atoms.map { ($0["id"] as? String ?? "", $0["value"] as? String ?? "") }, uniquingKeysWith: { a, _ in a })
            }
            #expect(changed(try await api.commit(run, "amount", "100", token)) == ["amount": "100.00"])
            #expect(changed(try await api.commit(run, "amount", "200.50", token)) == ["amount": "200.50"])
            #expect(changed(try await api.commit(run, "amount", "200.50", token)).isEmpty)
            // The BIC's bank shows up in another atom's caption (the plugin's set_caption): answered with that commit.
            #expect(Set(changed(try await api.commit(run, "destBic", "044525225", token)).keys) == ["destBic", "destBicInfo"])
            #expect(changed(try await api.commit(run, "amount", "100", token)) == ["amount": "100.00"])
            // In Russian: the form is compared in Russian before and after, as it always was, so only the amount.
            let russian = try await api.call(.put, "/api/v1/runs/\(run)/atoms/amount", token: token, json: ["value": "300"], language: "ru")
            #expect(changed(russian) == ["amount": "300.00"])
            #expect((russian.object["changed"] as? [[String: Any]])?.first?["caption"] as? String == "Сумма, ₽")
        }
    }

    @Test("unknown atoms, wrong types, refused values and hidden atoms are problems naming the atom")
    func commitProblems() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let token = try await api.login(bank.alice)
            let run = try #require(try await api.open("pay.pp.quick", token)["id"] as? String)
            let unknown = try await api.commit(run, "nope", "1", token)
            #expect(unknown.status == 404)
            #expect(unknown.object["atom"] as? String == "nope")
            #expect(unknown.object["type"] as? String == "urn:rbs-host:problem:unknown-atom")
            let number = try await api.commit(run, "amount", 1500.5, token)
            #expect(number.status == 422)
            #expect(number.object["atom"] as? String == "amount")
            #expect(number.object["type"] as? String == "urn:rbs-host:problem:wrong-type")
            #expect((number.object["detail"] as? String)?.contains("the amount as typed") == true)
            let flag = try await api.commit(run, "destName", true, token)
            #expect(flag.status == 422 && flag.object["atom"] as? String == "destName")
            let text = try await api.commit(run, "destBicInfo", "x", token)
            #expect(text.status == 422 && text.object["type"] as? String == "urn:rbs-host:problem:not-editable")
            let refused = try await api.commit(run, "amount", "twelve", token)
            #expect(refused.status == 422)
            #expect(refused.object["type"] as? String == "urn:rbs-host:problem:invalid-value")
            #expect(refused.object["atom"] as? String == "amount")
            let badJSON = try await api.call(.put, "/api/v1/runs/\(run)/atoms/amount", token: token, raw: "{\"value\": }")
            #expect(badJSON.status == 400)
            let noValue = try await api.call(.put, "/api/v1/runs/\(run)/atoms/amount", token: token, json: ["amount": "1"])
            #expect(noValue.status == 400 && noValue.object["detail"] as? String == "the field \"value\" is missing")

            let tax = try #require(try await api.open("pay.pp.tax", token)["id"] as? String)
            try await api.fill(tax, [("type", "0")], token)
            let hidden = try await api.commit(tax, "basis", "ТП", token)
            #expect(hidden.status == 409)
            #expect(hidden.object["atom"] as? String == "basis")
        }
    }

    @Test("a commit's body: malformed ones are 400 in the decoder's words; escaped and spaced ones commit as before")
    func commitBodies() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let token = try await api.login(bank.alice)
            let run = try #require(try await api.open("pay.pp.quick", token)["id"] as? String)
            func put(_ raw: String) async throws -> TestBank.API.Answer {
                try await api.call(.put, "/api/v1/runs/\(run)/atoms/amount", token: token, raw: raw)
            }
            for raw in [#"{"value": }"#, #"{"value":"1"} x"#, #"{"value":"1""#, #"{"value":tru}"#, ""] {
                let answer = try await put(raw)
                #expect(answer.status == 400, "\(raw)")
                #expect(answer.object["type"] as? String == "urn:rbs-host:problem:bad-json", "\(raw)")
                // The parser's words after it: where the text stops being JSON.
                #expect((answer.object["detail"] as? String)?.hasPrefix("the body is not valid JSON") == true, "\(raw)")
            }
            #expect(try await put("garbage").object["detail"] as? String == "the body is not valid JSON: Invalid value around character 0.")
            // A body that is not UTF-8 says so and where, not that a value has "the wrong type".
            let notText = try await api.call(.put, "/api/v1/runs/\(run)/atoms/destName", token: token,
                                             bytes: Array(#"{"value":"ab"#.utf8) + [0xFF] + Array(#"cd"}"#.utf8))
            #expect(notText.status == 400 && notText.object["detail"] as? String
                    == "the body is not UTF-8 text: byte 13 (0xFF) is not part of a character", "\(notText.text)")
            for raw in [#"{"amount":"1"}"#, #"{"valu\u0065s":"1"}"#] {
                let answer = try await put(raw)
                #expect(answer.status == 400 && answer.object["detail"] as? String == "the field \"value\" is missing", "\(raw)")
            }
            let array = try await put("[]")
            #expect(array.status == 400)
            // Said in JSON's words, never Swift's ("Dictionary<String, Any>").
            #expect(array.object["detail"] as? String == "the body has the wrong type: expected an object, found an array", "\(array.text)")
            // An escape goes through the decoder and commits the same text.
            let escaped = try await put(#"{"value":"\u0031\u0030\u0030"}"#)
            #expect(escaped.status == 200 && atom("amount", in: escaped.object["changed"]) != nil)
            #expect((try await api.commit(run, "amount", "100", token).object["changed"] as? [Any])?.isEmpty == true)
            let spaced = try await put("\n{ \"value\" : \"1 500,5\" }\n")
            #expect(spaced.status == 200 && atom("amount", in: spaced.object["changed"]) != nil)
            #expect((try await api.commit(run, "amount", "1500.50", token).object["changed"] as? [Any])?.isEmpty == true)
            // Foundation's decoder takes a trailing comma; the quick reading leaves the body to it, so that stays.
            #expect(try await put(#"{"value":"1",}"#).status == 200)
            let number = try await put(#"{"value":100}"#)
            #expect(number.status == 422 && number.object["type"] as? String == "urn:rbs-host:problem:wrong-type")
            let cleared = try await put(#"{"value":null}"#)
            #expect(cleared.status == 200)
        }
    }

    @Test("the tax payment: switching the type to 1 shows fields 106–109, back to 0 hides them")
    func taxType() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let token = try await api.login(bank.alice)
            let run = try #require(try await api.open("pay.pp.tax", token)["id"] as? String)
            let budget = Set(["basis", "period", "docNumber", "docDate"])
            let shown = try await api.commit(run, "type", "1", token)
            let appeared = (shown.object["changed"] as? [[String: Any]] ?? []).filter { $0["visible"] as? Bool == true }
            #expect(budget.isSubset(of: Set(appeared.compactMap { $0["id"] as? String })))
            let hidden = try await api.commit(run, "type", "0", token)
            let gone = (hidden.object["changed"] as? [[String: Any]] ?? []).filter { $0["visible"] as? Bool == false }
            #expect(budget.isSubset(of: Set(gone.compactMap { $0["id"] as? String })))
        }
    }

    @Test("submit, review, a wrong code, the right code: posted, the balance falls, the journal has it; the run cannot be signed twice")
    func signFlow() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let token = try await api.login(bank.alice)
            let run = try #require(try await api.open("pay.pp.quick", token)["id"] as? String)
            let early = try await api.call(.post, "/api/v1/runs/\(run)/submit", token: token)
            #expect(early.status == 422)
            #expect(early.object["type"] as? String == "urn:rbs-host:problem:needs-attention")
            #expect(early.object["atom"] as? String == "srcAccount")
            #expect(((early.object["errors"] as? [[String: Any]]) ?? []).count >= 5)
            let unsubmitted = try await api.call(.post, "/api/v1/runs/\(run)/sign", token: token, json: ["code": bank.code(bank.alice)])
            #expect(unsubmitted.status == 409)

            try await api.fill(run, try bank.quickPayment(from: bank.alice), token)
            let review = try await api.call(.post, "/api/v1/runs/\(run)/submit", token: token)
            #expect(review.status == 200)
            #expect(review.object["amount"] as? String == "1500.50")
            #expect(review.object["currency"] as? String == "RUB")
            #expect(review.object["payee"] as? String == "ООО Ромашка")
            let hash = try #require(review.object["documentHash"] as? String)
            #expect(hash.count == 64)
            let fields = review.object["fields"] as? [[String: Any]] ?? []
            #expect(fields.first?["caption"] as? String == "Amount" && fields.first?["prominent"] as? Bool == true)

            let wrongCode = bank.code(bank.alice) == "000000" ? "111111" : "000000"
            let wrong = try await api.call(.post, "/api/v1/runs/\(run)/sign", token: token, json: ["code": wrongCode])
            #expect(wrong.status == 422)
            #expect(wrong.object["atom"] as? String == "code")
            #expect(wrong.object["attemptsLeft"] as? Int == 4)

            let signed = try await api.call(.post, "/api/v1/runs/\(run)/sign", token: token, json: ["code": bank.code(bank.alice)])
            #expect(signed.status == 200)
            #expect(signed.object["status"] as? String == "posted")
            #expect(signed.object["documentHash"] as? String == hash)
            let posting = try #require(signed.object["posting"] as? [String: Any])
            #expect(posting["amount"] as? String == "1500.50")
            #expect(posting["balanceAfter"] as? String == "148499.50")

            let accounts = try await api.call(.get, "/api/v1/accounts", token: token)
            #expect(accounts.array.first?["balance"] as? String == "148499.50")
            let journal = try await api.call(.get, "/api/v1/journal", token: token)
            #expect(journal.array.count == 1)
            #expect(journal.array.first?["documentHash"] as? String == hash)
            #expect(journal.array.first?["kind"] as? String == "posted")
            #expect(try bank.ledger.journal.verify() == .ok(1))

            let twice = try await api.call(.post, "/api/v1/runs/\(run)/sign", token: token, json: ["code": bank.code(bank.alice, steps: 1)])
            #expect(twice.status == 409)
            #expect(twice.object["type"] as? String == "urn:rbs-host:problem:already-signed")
        }
    }

    /// The same payment each time, confirmed as a duplicate on purpose: the code is what this test is about.
    @Test("a code used once is refused on the next run (replay), wrong codes lock after 5 and are limited per address")
    func replayedAndLocked() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let token = try await api.login(bank.alice)
            let code = bank.code(bank.alice)
            for round in 0..<2 {
                let run = try #require(try await api.open("pay.pp.quick", token)["id"] as? String)
                try await api.fill(run, try bank.quickPayment(from: bank.alice, amount: "10"), token)
                #expect(try await api.call(.post, "/api/v1/runs/\(run)/submit", token: token).status == 200)
                let answer = try await api.call(.post, "/api/v1/runs/\(run)/sign", token: token, json: ["code": code, "confirmDuplicate": true])
                if round == 0 {
                    #expect(answer.status == 200)
                } else {
                    #expect(answer.status == 409)
                    #expect(answer.object["type"] as? String == "urn:rbs-host:problem:replayed-code")
                    #expect(answer.object["atom"] as? String == "code")
                }
            }
            let run = try #require(try await api.open("pay.pp.quick", token)["id"] as? String)
            try await api.fill(run, try bank.quickPayment(from: bank.alice, amount: "10"), token)
            #expect(try await api.call(.post, "/api/v1/runs/\(run)/submit", token: token).status == 200)
            // Text that cannot be a code (a digit missed) is refused and costs nothing, by the ledger or the address.
            for _ in 0..<6 {
                let malformed = try await api.call(.post, "/api/v1/runs/\(run)/sign", token: token, json: ["code": "12345", "confirmDuplicate": true])
                #expect(malformed.status == 422 && malformed.object["attemptsLeft"] as? Int == 5)
            }
            for _ in 0..<5 {
                #expect(try await api.call(.post, "/api/v1/runs/\(run)/sign", token: token, json: ["code": "000000", "confirmDuplicate": true]).status == 422)
            }
            let locked = try await api.call(.post, "/api/v1/runs/\(run)/sign", token: token, json: ["code": bank.code(bank.alice, steps: 1), "confirmDuplicate": true])
            #expect(locked.status == 429)
            #expect(locked.headers[.retryAfter] != nil)
            #expect(try bank.ledger.journal.entries().count == 1)
        }
    }

    @Test("a run belongs to its customer: another customer gets 404 for it and sees none of the accounts or journal")
    func authorisation() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let alice = try await api.login(bank.alice)
            let bob = try await api.login(bank.bob)
            let run = try #require(try await api.open("pay.pp.quick", alice)["id"] as? String)
            try await api.fill(run, try bank.quickPayment(from: bank.alice), alice)

            #expect(try await api.call(.get, "/api/v1/runs/\(run)", token: bob).status == 404)
            #expect(try await api.commit(run, "amount", "1", bob).status == 404)
            #expect(try await api.call(.post, "/api/v1/runs/\(run)/atoms/btnSend/press", token: bob).status == 404)
            #expect(try await api.call(.post, "/api/v1/runs/\(run)/submit", token: bob).status == 404)
            #expect(try await api.call(.delete, "/api/v1/runs/\(run)", token: bob).status == 404)

            #expect(try await api.call(.post, "/api/v1/runs/\(run)/submit", token: alice).status == 200)
            let stolen = try await api.call(.post, "/api/v1/runs/\(run)/sign", token: bob, json: ["code": bank.code(bank.bob)])
            #expect(stolen.status == 404)
            #expect(try await api.call(.post, "/api/v1/runs/\(run)/sign", token: alice, json: ["code": bank.code(bank.alice)]).status == 200)

            let bobsAccounts = try await api.call(.get, "/api/v1/accounts", token: bob).array.compactMap { $0["number"] as? String }
            let alicesAccounts = try bank.ledger.customers.accounts(of: bank.alice.customer).map(\.number)
            #expect(!bobsAccounts.isEmpty && Set(bobsAccounts).isDisjoint(with: alicesAccounts))
            #expect(try await api.call(.get, "/api/v1/journal", token: bob).array.isEmpty)
            #expect(try await api.call(.get, "/api/v1/journal", token: alice).array.count == 1)

            // Bob's picker offers Bob's accounts; Alice's account number typed into Bob's form is refused.
            let bobsRun = try await api.open("pay.pp.quick", bob)
            let offered = (atom("srcAccount", in: bobsRun["atoms"])?["accounts"] as? [[String: Any]])?.compactMap { $0["number"] as? String } ?? []
            #expect(!offered.isEmpty && Set(offered).isSubset(of: bobsAccounts))
            let foreign = try await api.commit(try #require(bobsRun["id"] as? String), "srcAccount", alicesAccounts[0], bob)
            #expect(foreign.status == 422)
            #expect(foreign.object["atom"] as? String == "srcAccount")
        }
    }

    @Test("cancel frees the run: it is gone afterwards")
    func cancel() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let token = try await api.login(bank.alice)
            let run = try #require(try await api.open("pay.pp.quick", token)["id"] as? String)
            #expect(bank.server.bank.openRuns == 1)
            #expect(try await api.call(.get, "/api/v1/runs/\(run)", token: token).status == 200)
            #expect(try await api.call(.delete, "/api/v1/runs/\(run)", token: token).status == 204)
            #expect(try await api.call(.get, "/api/v1/runs/\(run)", token: token).status == 404)
            #expect(try await api.call(.delete, "/api/v1/runs/\(run)", token: token).status == 404)
            #expect(bank.server.bank.openRuns == 0)
            let unknown = try await api.call(.post, "/api/v1/runs", token: token, json: ["operation": "no.such"])
            #expect(unknown.status == 404)
            #expect(unknown.object["type"] as? String == "urn:rbs-host:problem:unknown-operation")
        }
    }
}
