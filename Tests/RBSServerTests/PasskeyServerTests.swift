import Foundation
import Testing
@testable import RBSLedger
@testable import RBSServer

@Suite("Passkeys over the API: registration, signing the reviewed document, tampering refused")
struct PasskeyServerTests {
    /// Registers `device` for the logged-in customer through the API.
    /// `code` is the customer's one-time code (the step-up enrolling needs); nil sends none.
    static func register(_ device: SoftwarePasskey, _ api: TestBank.API, _ token: String, origin: String,
                         code: String?) async throws -> TestBank.API.Answer {
        let options = try await api.call(.post, "/api/v1/passkeys/challenge", token: token)
        let text = try #require(options.object["challenge"] as? String)
        let challenge = try #require(Base64URL.decode(text))
        #expect(options.object["rpId"] as? String == "localhost")
        #expect(options.object["algorithms"] as? [Int] == [-7, -8])
        let (attestation, clientData) = device.registration(challenge: challenge, origin: origin)
        var body = ["credentialId": Base64URL.encode(device.credentialId), "clientDataJSON": Base64URL.encode(clientData),
                    "attestationObject": Base64URL.encode(attestation)]
        body["code"] = code
        return try await api.call(.post, "/api/v1/passkeys", token: token, json: body)
    }

    static func body(_ assertion: PasskeyAssertion, requestId: String? = nil) -> [String: Any] {
        var body: [String: Any] = ["passkey": [
            "credentialId": Base64URL.encode(assertion.credentialId), "authenticatorData": Base64URL.encode(assertion.authenticatorData),
            "clientDataJSON": Base64URL.encode(assertion.clientDataJSON), "signature": Base64URL.encode(assertion.signature)]]
        if let requestId { body["requestId"] = requestId }
        return body
    }

    @Test("A registered passkey signs the reviewed document; a code, a tampered amount and a replay are refused; verify re-checks it")
    func signsWithPasskey() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let token = try await api.login(bank.alice)
            let origin = try #require(bank.server.bank.relyingParty?.origin)
            #expect(try await api.call(.get, "/api/v1/session", token: token).object["passkey"] as? Bool == false)
            var device = SoftwarePasskey()
            let registered = try await Self.register(device, api, token, origin: origin, code: bank.code(bank.alice))
            bank.clock.advance(30)
            #expect(registered.status == 201, "\(registered.text)")
            #expect(registered.object["algorithm"] as? String == "WEBAUTHN-ES256")
            #expect(try await api.call(.get, "/api/v1/session", token: token).object["passkey"] as? Bool == true)

            let run = try #require(try await api.open("pay.pp.quick", token)["id"] as? String)
            try await api.fill(run, try bank.quickPayment(from: bank.alice, amount: "10"), token)
            let first = try await api.call(.post, "/api/v1/runs/\(run)/submit", token: token)
            #expect(first.object["method"] as? String == "passkey")
            let hash = try #require(first.object["documentHash"] as? String)
            let request = try #require(first.object["passkey"] as? [String: Any])
            #expect(request["challenge"] as? String == PasskeyAssertion.challenge(forDocumentId: hash))
            #expect(request["credentialIds"] as? [String] == [Base64URL.encode(device.credentialId)])
            let assertion = device.assertion(challenge: try #require(request["challenge"] as? String), origin: origin)

            // A code does not sign for a customer with a passkey.
            let code = try await api.call(.post, "/api/v1/runs/\(run)/sign", token: token, json: ["code": bank.code(bank.alice)])
            #expect(code.status == 409)
            #expect(code.object["type"] as? String == "urn:rbs-host:problem:signing-method")

            // The amount changed after the assertion: another document, refused without saying why.
            try await api.fill(run, [("amount", "9999")], token)
            let tampered = try await api.call(.post, "/api/v1/runs/\(run)/submit", token: token)
            #expect(tampered.object["amount"] as? String == "9999.00")
            let refused = try await api.call(.post, "/api/v1/runs/\(run)/sign", token: token, json: Self.body(assertion))
            #expect(refused.status == 422)
            #expect(refused.object["type"] as? String == "urn:rbs-host:problem:wrong-passkey")
            #expect(refused.object["attemptsLeft"] as? Int == 4)
            #expect(refused.object["detail"] as? String == "the passkey did not sign this document: confirm the payment shown on the review with this customer's passkey again; 4 attempts left before signing is locked for 5 minutes")
            #expect(try bank.ledger.customers.journal(of: bank.alice.customer).isEmpty)

            // Back to 10: a new document (new nonce), signed by the device for its own hash.
            try await api.fill(run, [("amount", "10")], token)
            let review = try await api.call(.post, "/api/v1/runs/\(run)/submit", token: token)
            let passkeyRequest = try #require(review.object["passkey"] as? [String: Any])
            let challenge = try #require(passkeyRequest["challenge"] as? String)
            let good = device.assertion(challenge: challenge, origin: origin)
            let signed = try await api.call(.post, "/api/v1/runs/\(run)/sign", token: token, json: Self.body(good, requestId: "pay-10"))
            #expect(signed.status == 200, "\(signed.text)")
            #expect(signed.object["status"] as? String == "posted")
            // The answer lost, the client retries with the same request id: the same receipt, nothing posted again.
            let retry = try await api.call(.post, "/api/v1/runs/\(run)/sign", token: token, json: Self.body(good, requestId: "pay-10"))
            #expect(retry.status == 200)
            #expect(retry.object["journal"] as? Int == signed.object["journal"] as? Int)

            let journal = try bank.ledger.customers.journal(of: bank.alice.customer)
            #expect(journal.count == 1)
            #expect(journal.first?.authorization?.method == .passkey)
            #expect(journal.first?.signature == good.signature)
            #expect(try bank.ledger.journal.verify() == .ok(1))
            let lines = try await api.call(.get, "/api/v1/journal", token: token)
            #expect(lines.array.count == 1)

            // Bob sees none of it, and cannot register over Alice's credential.
            let bob = try await api.login(bank.bob)
            #expect(try await api.call(.get, "/api/v1/journal", token: bob).array.isEmpty)
            let again = try await Self.register(device, api, bob, origin: origin, code: bank.code(bank.bob))
            #expect(again.status == 409)
            #expect(again.object["type"] as? String == "urn:rbs-host:problem:passkey-in-use")
        }
    }

    @Test("Five failed assertions in a row lock signing: the sixth, even a good one, is refused with 429")
    func fiveFailures() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let token = try await api.login(bank.alice)
            let origin = try #require(bank.server.bank.relyingParty?.origin)
            var device = SoftwarePasskey()
            #expect(try await Self.register(device, api, token, origin: origin, code: bank.code(bank.alice)).status == 201)
            let run = try #require(try await api.open("pay.pp.quick", token)["id"] as? String)
            try await api.fill(run, try bank.quickPayment(from: bank.alice, amount: "10"), token)
            let review = try await api.call(.post, "/api/v1/runs/\(run)/submit", token: token)
            let passkeyRequest = try #require(review.object["passkey"] as? [String: Any])
            let challenge = try #require(passkeyRequest["challenge"] as? String)
            var details: Set<String> = []
            for left in (0..<5).reversed() {
                // Each for another element: origin, relying party, user verification, type, challenge.
                let bad = [device.assertion(challenge: challenge, origin: "http://localhost:1"),
                           device.assertion(challenge: challenge, origin: origin, rpId: "example.org"),
                           device.assertion(challenge: challenge, origin: origin, flags: 0x01),
                           device.assertion(challenge: challenge, origin: origin, type: "webauthn.create"),
                           device.assertion(challenge: "AAAA", origin: origin)][4 - left]
                let refused = try await api.call(.post, "/api/v1/runs/\(run)/sign", token: token, json: Self.body(bad))
                #expect(refused.status == 422 && refused.object["attemptsLeft"] as? Int == left)
                if let detail = (refused.object["detail"] as? String)?.split(separator: ";").first { details.insert(String(detail)) }
            }
            #expect(details.count == 1, "the five failures are told apart: \(details)")
            let good = device.assertion(challenge: challenge, origin: origin)
            let blocked = try await api.call(.post, "/api/v1/runs/\(run)/sign", token: token, json: Self.body(good))
            #expect(blocked.status == 429)
            #expect(blocked.headers[.retryAfter] != nil)
            #expect(try bank.ledger.customers.journal(of: bank.alice.customer).isEmpty)
        }
    }

    @Test("Enrolling a passkey needs the customer's current one-time code: none is 403 step-up-required, a wrong one 422 wrong-code; nothing is registered either way")
    func enrolmentStepUp() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let token = try await api.login(bank.alice)
            let origin = try #require(bank.server.bank.relyingParty?.origin)
            let device = SoftwarePasskey()
            let none = try await Self.register(device, api, token, origin: origin, code: nil)
            #expect(none.status == 403)
            #expect(none.object["type"] as? String == "urn:rbs-host:problem:step-up-required")
            #expect(none.object["atom"] as? String == "code")
            let wrong = try await Self.register(device, api, token, origin: origin, code: "000000")
            #expect(wrong.status == 422)
            #expect(wrong.object["type"] as? String == "urn:rbs-host:problem:wrong-code")
            #expect(wrong.object["attemptsLeft"] as? Int == 4)
            #expect(try await api.call(.get, "/api/v1/session", token: token).object["passkey"] as? Bool == false)
            // With the code from the customer's authenticator it is registered.
            let right = try await Self.register(device, api, token, origin: origin, code: bank.code(bank.alice))
            #expect(right.status == 201, "\(right.text)")
            #expect(try await api.call(.get, "/api/v1/session", token: token).object["passkey"] as? Bool == true)
        }
    }

    @Test("A registration is refused when no challenge waits, for another origin, or with fields that are not base64url")
    func registrationRefusals() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let token = try await api.login(bank.alice)
            let origin = try #require(bank.server.bank.relyingParty?.origin)
            let device = SoftwarePasskey()
            let (attestation, clientData) = device.registration(challenge: Data(repeating: 1, count: 32), origin: origin)
            let none = try await api.call(.post, "/api/v1/passkeys", token: token, json: [
                "credentialId": Base64URL.encode(device.credentialId), "clientDataJSON": Base64URL.encode(clientData),
                "attestationObject": Base64URL.encode(attestation), "code": bank.code(bank.alice)])
            #expect(none.status == 409)
            #expect(none.object["type"] as? String == "urn:rbs-host:problem:no-passkey-challenge")
            let elsewhere = try await Self.register(device, api, token, origin: "http://evil.example", code: bank.code(bank.alice))
            #expect(elsewhere.status == 422)
            #expect(elsewhere.object["detail"] as? String == "clientDataJSON's origin is \"http://evil.example\", not the server's \"\(origin)\"")
            _ = try await api.call(.post, "/api/v1/passkeys/challenge", token: token)
            let garbage = try await api.call(.post, "/api/v1/passkeys", token: token, json: [
                "credentialId": "not base64url!", "clientDataJSON": "e30", "attestationObject": "oA", "code": bank.code(bank.alice)])
            #expect(garbage.status == 422)
            #expect(garbage.object["atom"] as? String == "credentialId")
            #expect(try await api.call(.get, "/api/v1/session", token: token).object["passkey"] as? Bool == false)
        }
    }

    @Test("A sign request with both or neither of code and passkey is a 400 saying so")
    func oneMethod() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let token = try await api.login(bank.alice)
            let run = try #require(try await api.open("pay.pp.quick", token)["id"] as? String)
            for body: [String: Any] in [[:], ["code": "123456", "passkey": ["credentialId": "AA", "authenticatorData": "AA",
                                                                              "clientDataJSON": "AA", "signature": "AA"]]] {
                let answer = try await api.call(.post, "/api/v1/runs/\(run)/sign", token: token, json: body)
                #expect(answer.status == 400)
                #expect(answer.object["detail"] as? String == "send exactly one of \"code\" (a one-time code) and \"passkey\" (the passkey's assertion)")
            }
        }
    }
}
