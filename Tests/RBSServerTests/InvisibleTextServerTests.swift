import Foundation
import Hummingbird
import RBSLedger
@testable import RBSServer
import Testing

/// Text a person can trust over the API (issue 31, item 4): the core's refusal of invisible characters, said by the server.
@Suite("serve: invisible characters in text")
struct InvisibleTextServerTests {
    @Test("a payee name holding U+202E is refused 422 invalid-value on its atom, naming the character and its position; the run cannot be signed with it")
    func payeeRefused() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let token = try await api.login(bank.alice)
            let run = try #require(try await api.open("pay.pp.quick", token)["id"] as? String)
            let values = try bank.quickPayment(from: bank.alice).filter { $0.0 != "destName" }
            try await api.fill(run, values, token)
            let refused = try await api.commit(run, "destName", "ООО\u{202E} Ромашка", token)
            #expect(refused.status == 422, "\(refused.text)")
            #expect(refused.object["type"] as? String == "urn:rbs-host:problem:invalid-value")
            #expect(refused.object["atom"] as? String == "destName")
            #expect(refused.object["detail"] as? String
                == "\"Payee's full name or organisation name\" contains an invisible right-to-left override (U+202E) at position 4: it can make the text read differently from what is signed — type it without it")
            // The value was not taken: the form still needs a payee.
            let submit = try await api.call(.post, "/api/v1/runs/\(run)/submit", token: token)
            #expect(submit.status == 422)
            #expect(submit.object["type"] as? String == "urn:rbs-host:problem:needs-attention")
            let purpose = try await api.commit(run, "destDesc", "оплата\u{2066} по счёту", token)
            #expect(purpose.status == 422 && (purpose.object["detail"] as? String)?.contains("left-to-right isolate (U+2066) at position 7") == true,
                    "\(purpose.text)")
            #expect(try bank.ledger.journal.entries().isEmpty)
        }
    }
}
