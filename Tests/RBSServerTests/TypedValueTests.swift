import Foundation
import Testing
@testable import RBSServer

@Suite("The server reads JSON into typed values; request ids; event-stream keep-alives")
struct TypedValueTests {
    static func problem(_ answer: TestBank.API.Answer) -> (Int, String?, String?, String?) {
        (answer.status, (answer.object["type"] as? String)?.replacingOccurrences(of: "urn:rbs-host:problem:", with: ""),
         answer.object["atom"] as? String, answer.object["detail"] as? String)
    }

    @Test("Amounts as typed (one parser with the REPL) or {amount, currency}; enums by option value; accounts by number; dates as typed; the wrong JSON type names the atom")
    func typedValues() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let token = try await api.login(bank.alice)
            let run = try #require(try await api.open("pay.pp.quick", token)["id"] as? String)
            let object = try await api.commit(run, "amount", ["amount": "1500.50", "currency": "RUB"], token)
            #expect(object.status == 200, "\(object.text)")
            #expect(atom("amount", in: object.object["changed"])?["value"] as? String == "1500.50")
            #expect(try await api.commit(run, "amount", "250.5", token).status == 200)
            #expect(Self.problem(try await api.commit(run, "amount", ["amount": "10", "currency": "USD"], token))
                    == (422, "wrong-type", "amount", "amount takes an amount in RUB, not an amount in USD"))
            #expect(Self.problem(try await api.commit(run, "amount", ["amount": 10, "currency": "RUB"], token)).0 == 422)
            let missing = try await api.commit(run, "amount", ["amount": "10"], token)
            #expect(Self.problem(missing).1 == "wrong-type" && Self.problem(missing).2 == "amount")
            // People's text is read by the front ends' one parser (as in the REPL): grouped and comma-decimal text is
            // taken as typed; a text with two readings is refused, never guessed.
            let grouped = try await api.commit(run, "amount", "1 500,50", token)
            #expect(grouped.status == 200 && atom("amount", in: grouped.object["changed"])?["value"] as? String == "1500.50", "\(grouped.text)")
            let ambiguous = Self.problem(try await api.commit(run, "amount", "1,500", token))
            #expect(ambiguous.0 == 422 && ambiguous.1 == "invalid-value" && ambiguous.2 == "amount")
            #expect(ambiguous.3?.hasPrefix("1,500 is ambiguous: it reads as 1500 (a group separator) or as 1,5") == true, "\(ambiguous)")
            let decimals = try await api.commit(run, "amount", "10.505", token)
            #expect(Self.problem(decimals).1 == "invalid-value" && Self.problem(decimals).2 == "amount")
            #expect(Self.problem(try await api.commit(run, "amount", ["1500.50"], token)).1 == "wrong-type")

            let mine = try bank.ledger.customers.accounts(of: bank.alice.customer)[0].number
            let theirs = try bank.ledger.customers.accounts(of: bank.bob.customer)[0].number
            #expect(try await api.commit(run, "srcAccount", mine, token).status == 200)
            #expect(Self.problem(try await api.commit(run, "srcAccount", "1", token)).1 == "invalid-value")
            #expect(Self.problem(try await api.commit(run, "srcAccount", theirs, token)).1 == "invalid-value")
            #expect(Self.problem(try await api.commit(run, "srcAccount", 1, token))
                    == (422, "wrong-type", "srcAccount", "srcAccount (account) takes a string: the account's number, not a number"))

            let tax = try #require(try await api.open("pay.pp.tax", token)["id"] as? String)
            #expect(try await api.commit(tax, "type", "1", token).status == 200)
            let title = try await api.commit(tax, "type", "Налоговый платёж", token)
            #expect(Self.problem(title).1 == "invalid-value" && Self.problem(title).2 == "type")
            // Field 109 is text since it may be "0" (order 107n): the form, not the wire, checks its date.
            #expect(try await api.commit(tax, "docDate", "31.03.2026", token).status == 200)
            #expect(try await api.commit(tax, "docDate", "0", token).status == 200)
            #expect(Self.problem(try await api.commit(tax, "docDate", 20260331, token)).1 == "wrong-type")
            #expect(try await api.commit(tax, "docDate", NSNull(), token).status == 200)
        }
    }

    @Test("The same requestId from the same customer answers the first receipt and never posts twice")
    func requestIds() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let token = try await api.login(bank.alice)
            let account = try bank.ledger.customers.accounts(of: bank.alice.customer)[0].number
            func reviewed() async throws -> String {
                let run = try #require(try await api.open("pay.pp.quick", token)["id"] as? String)
                try await api.fill(run, try bank.quickPayment(from: bank.alice, amount: "100"), token)
                #expect(try await api.call(.post, "/api/v1/runs/\(run)/submit", token: token).status == 200)
                return run
            }
            let wrong = bank.code(bank.alice) == "000000" ? "111111" : "000000"
            let first = try await reviewed()
            let signed = try await api.call(.post, "/api/v1/runs/\(first)/sign", token: token,
                                            json: ["code": bank.code(bank.alice), "requestId": "order-7"])
            #expect(signed.status == 200, "\(signed.text)")
            // The answer was lost; the client retries the same run, then (after a restart of its own) a new run.
            let again = try await api.call(.post, "/api/v1/runs/\(first)/sign", token: token, json: ["code": wrong, "requestId": "order-7"])
            #expect(again.status == 200)
            #expect(again.object["journal"] as? Int == signed.object["journal"] as? Int)
            let second = try await reviewed()
            let repeated = try await api.call(.post, "/api/v1/runs/\(second)/sign", token: token, json: ["code": wrong, "requestId": "order-7"])
            #expect(repeated.status == 200)
            #expect(repeated.object["journal"] as? Int == signed.object["journal"] as? Int)
            #expect(repeated.object["documentHash"] as? String == signed.object["documentHash"] as? String)
            #expect(try bank.ledger.customers.journal(of: bank.alice.customer).count == 1)
            #expect(try bank.ledger.bank.account(number: account)?.balance.amount == 149_900)
            // Without the id, the same retry is refused: the run is signed.
            #expect(try await api.call(.post, "/api/v1/runs/\(first)/sign", token: token, json: ["code": wrong]).status == 409)
            let bad = try await api.call(.post, "/api/v1/runs/\(second)/sign", token: token, json: ["code": wrong, "requestId": ""])
            #expect(Self.problem(bad).0 == 422 && Self.problem(bad).1 == "invalid-request-id" && Self.problem(bad).2 == "requestId")
            // Another customer's same id is theirs alone.
            let bob = try await api.login(bank.bob)
            let bobRun = try #require(try await api.open("pay.pp.quick", bob)["id"] as? String)
            try await api.fill(bobRun, try bank.quickPayment(from: bank.bob, amount: "5"), bob)
            _ = try await api.call(.post, "/api/v1/runs/\(bobRun)/submit", token: bob)
            let bobs = try await api.call(.post, "/api/v1/runs/\(bobRun)/sign", token: bob, json: ["code": bank.code(bank.bob), "requestId": "order-7"])
            #expect(bobs.status == 200 && bobs.object["journal"] as? Int != signed.object["journal"] as? Int)
        }
    }

    @Test("An idle event stream carries a keep-alive comment every interval")
    func keepAlive() async throws {
        let hub = EventHub(keepAlive: 0.05)
        let stream = hub.subscribe(customer: 1)
        var iterator = stream.makeAsyncIterator()
        let first = await iterator.next()
        #expect(first == .keepAlive)
        #expect(first?.wire == ": keep-alive\n\n")
        hub.publish(ServerEvent(name: "caption", data: ["atom": "x"]), to: 1)
        var named: ServerEvent?
        while named == nil, let event = await iterator.next() { if event != .keepAlive { named = event } }
        #expect(named?.wire == "event: caption\ndata: {\"atom\":\"x\"}\n\n")
        hub.shutdown(message: "bye")
        var last: ServerEvent?
        while let event = await iterator.next() { last = event }
        #expect(last?.name == "shutdown")
    }
}
