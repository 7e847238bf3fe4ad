import Foundation
import RBSLedger

/// Passkeys (issue #21): a customer registers one in the web client, and from then on signs each reviewed document
/// on their own device — the assertion's challenge is the document's hash.
extension OnlineBank {
    /// Whether `customer` has a passkey.
    func hasPasskey(_ customer: Customer) async throws(Problem) -> Bool {
        let ledger = self.ledger
        do {
            return try await Self.blocking { try ledger.customers.passkey(of: customer) != nil }
        } catch {
            throw Self.storageProblem("the customer's passkeys could not be read", error)
        }
    }

    /// A registration challenge for `customer` and what the browser needs with it.
    func passkeyOptions(for customer: Customer) throws(Problem) -> API.PasskeyOptions {
        let party = try origin()
        let challenge = passkeyChallenges.issue(for: customer.id, now: clock())
        var id = customer.id.bigEndian
        return API.PasskeyOptions(challenge: Base64URL.encode(challenge), rpId: party.id, rpName: "rbs-host",
                                  userId: Base64URL.encode(Data(bytes: &id, count: 8)), userName: customer.name,
                                  algorithms: [-7, -8], timeoutMs: Int(PasskeyChallenges.lifetime * 1000))
    }

    /// Checks the browser's registration against the waiting challenge and stores the passkey: it signs the
    /// customer's next documents. What was wrong is said (registering is not authenticating a payment).
    func registerPasskey(_ body: API.PasskeyRegistration, address: String, for customer: Customer) async throws(Problem) -> API.PasskeyRegistered {
        let party = try origin()
        let keys = Self.codeKeys(customer, address)
        try await checkCodeAttempts(keys)
        // Step-up (PSD2 art. 97(1)(c)): a session opened with the password alone cannot enrol an authenticator. The
        // core checks the code with the passkey's insert; a request without one is refused before the challenge is used.
        guard let code = body.code?.trimmingCharacters(in: .whitespaces), !code.isEmpty else {
            throw Problem("step-up-required", "Registering a passkey needs your one-time code", status: 403,
                          detail: "send \"code\": your current one-time code from the authenticator app, with the registration",
                          atom: "code")
        }
        func field(_ text: String, _ name: String) throws(Problem) -> Data {
            guard let data = Base64URL.decode(text), !data.isEmpty else {
                throw Problem("bad-passkey", "The passkey registration is not valid", status: 422,
                              detail: "\(name) is not base64url", atom: name)
            }
            return data
        }
        let credentialId = try field(body.credentialId, "credentialId")
        let clientData = try field(body.clientDataJSON, "clientDataJSON")
        let attestation = try field(body.attestationObject, "attestationObject")
        guard let challenge = passkeyChallenges.take(for: customer.id, now: clock()) else {
            throw Problem("no-passkey-challenge", "No passkey registration is waiting", status: 409,
                          detail: PasskeyError.noRegistrationChallenge.description)
        }
        let passkey: Passkey
        do throws(PasskeyError) {
            passkey = try Passkey.register(attestationObject: attestation, clientDataJSON: clientData, challenge: challenge,
                                           relyingParty: party, now: Int64(clock().timeIntervalSince1970 * 1000))
        } catch {
            throw Problem("bad-passkey", "The passkey registration is not valid", status: 422, detail: error.description)
        }
        guard passkey.credentialId == credentialId else {
            throw Problem("bad-passkey", "The passkey registration is not valid", status: 422,
                          detail: "credentialId is not the credential the attestation object holds", atom: "credentialId")
        }
        let ledger = self.ledger
        let credentials = try Self.credentials(of: customer, in: ledger)
        do {
            try await Self.blocking { try ledger.customers.register(passkey, for: credentials, code: code) }
        } catch CustomerError.passkeyInUse {
            throw Problem("passkey-in-use", "The passkey is already registered", status: 409, detail: CustomerError.passkeyInUse.description)
        } catch CustomerError.stepUp(_, let refusal) {
            throw await codeProblem(.code(refusal), keys: keys)
        } catch {
            throw Self.storageProblem("the passkey could not be stored", error)
        }
        await clearAttempts(keys)
        return API.PasskeyRegistered(credentialId: body.credentialId, algorithm: passkey.key.suite, keyId: passkey.key.keyId)
    }

    /// The assertion a client sent, decoded; a field that is not base64url is a 422 naming it.
    static func assertion(_ body: API.PasskeyAssertionJSON) throws(Problem) -> PasskeyAssertion {
        func field(_ text: String, _ name: String) throws(Problem) -> Data {
            guard let data = Base64URL.decode(text), !data.isEmpty else {
                throw Problem("bad-passkey", "The passkey answer is not valid", status: 422,
                              detail: "passkey.\(name) is not base64url", atom: "passkey")
            }
            return data
        }
        return PasskeyAssertion(credentialId: try field(body.credentialId, "credentialId"),
                                authenticatorData: try field(body.authenticatorData, "authenticatorData"),
                                clientDataJSON: try field(body.clientDataJSON, "clientDataJSON"),
                                signature: try field(body.signature, "signature"))
    }

    private func origin() throws(Problem) -> RelyingParty {
        guard let party = relyingParty else {
            throw Problem("no-origin", "Passkeys are not available yet", status: 503,
                          detail: "the server has no origin for passkeys until it listens; start it with --origin")
        }
        return party
    }
}
