import Foundation
import Testing
@testable import RBSLedger

/// A ledger in a fresh data folder with a clock the test moves.
struct LedgerFixture {
    let directory: URL
    let clock = TestClock()
    let ledger: Ledger

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("rbs-passkeys-\(UUID().uuidString)")
        let clock = self.clock
        ledger = try Ledger.create(dataDirectory: directory, clock: { clock.now }).ledger
    }
}

@Suite("Passkeys (WebAuthn) in the ledger: registration, assertions over the document's hash, the journal")
struct PasskeyLedgerTests {
    let party = try! RelyingParty(origin: "http://localhost:8080")

    /// A ledger with a customer who registered `device`.
    struct Bank {
        let fixture: LedgerFixture
        let credentials: CustomerCredentials
        let from: String

        init(device: SoftwarePasskey) throws {
            fixture = try LedgerFixture()
            let ledger = fixture.ledger
            let (customer, _) = try ledger.customers.add(name: "carol", passwordRecord: "scrypt$test")
            let enrolling = try #require(try ledger.customers.credentials(named: "carol"))
            let challenge = Data(repeating: 9, count: 32)
            let (attestation, clientData) = device.registration(challenge: challenge)
            let passkey = try Passkey.register(attestationObject: attestation, clientDataJSON: clientData, challenge: challenge,
                                               relyingParty: try RelyingParty(origin: "http://localhost:8080"), now: 1)
            // Enrolling takes the customer's current one-time code (the step-up); the next step's code signs later.
            try ledger.customers.register(passkey, for: enrolling, code: try ledger.customers.code(for: "carol", at: fixture.clock.now))
            fixture.clock.advance(30)
            credentials = try #require(try ledger.customers.credentials(named: "carol"))
            from = try #require(try ledger.customers.accounts(of: customer).first?.number)
        }

        func document(amount: String = "100.00", to: String = "40702810900000012345") throws -> Document {
            try fixture.ledger.draft(operation: "payment.domestic", plugin: "ru.example.payments", pluginVersion: "1.0.0", fields: [
                DocumentField("from", from), DocumentField("account", to), DocumentField("amount", amount),
                DocumentField("currency", "RUB"), DocumentField("bic", "044525593"), DocumentField("name", "ООО Ромашка"),
            ], keyId: try #require(credentials.passkey).key.keyId)
        }

        func failures() throws -> Int {
            try fixture.ledger.database.read { db in
                try db.value(Int.self, "SELECT failures FROM customer_code_state WHERE customer_id = ?", credentials.customer.id) ?? -1
            }
        }
    }

    @Test("Registration reads the COSE key from a 'none' attestation: ES256 and Ed25519")
    func registers() throws {
        for ed in [false, true] {
            let device = SoftwarePasskey(ed25519: ed)
            let challenge = Data(repeating: 1, count: 32)
            let (attestation, clientData) = device.registration(challenge: challenge)
            let passkey = try Passkey.register(attestationObject: attestation, clientDataJSON: clientData, challenge: challenge,
                                               relyingParty: party, now: 5)
            #expect(passkey.credentialId == device.credentialId)
            #expect(passkey.key.suite == (ed ? "WEBAUTHN-EdDSA" : "WEBAUTHN-ES256"))
        }
    }

    @Test("Registration refuses a wrong challenge, origin or rpId, a user not verified, and says which")
    func registrationRefusals() throws {
        let device = SoftwarePasskey()
        let challenge = Data(repeating: 1, count: 32)
        func attempt(_ made: (attestation: Data, clientData: Data)) -> PasskeyError? {
            do throws(PasskeyError) {
                _ = try Passkey.register(attestationObject: made.attestation, clientDataJSON: made.clientData, challenge: challenge,
                                         relyingParty: party, now: 5)
                return nil
            } catch { return error }
        }
        #expect(attempt(device.registration(challenge: Data(repeating: 2, count: 32))) == .wrongChallenge)
        #expect(attempt(device.registration(challenge: challenge, origin: "http://evil.example")) ==
                .wrongOrigin(expected: "http://localhost:8080", found: "http://evil.example"))
        #expect(attempt(device.registration(challenge: challenge, rpId: "evil.example")) == .wrongRelyingParty(expected: "localhost"))
        #expect(attempt(device.registration(challenge: challenge, flags: 0x41)) == .userNotVerified)
    }

    @Test("Malformed CBOR is refused with what and where, never trapped on")
    func malformedCBOR() throws {
        let device = SoftwarePasskey()
        let challenge = Data(repeating: 1, count: 32)
        let (attestation, clientData) = device.registration(challenge: challenge)
        for cut in [1, 10, attestation.count / 2, attestation.count - 1] {
            #expect(throws: PasskeyError.self) {
                try Passkey.register(attestationObject: attestation.prefix(cut), clientDataJSON: clientData, challenge: challenge,
                                     relyingParty: party, now: 5)
            }
        }
        let error = #expect(throws: PasskeyError.self) {
            try CBORReader.decode(Data([0xA1, 0x61, 0x61]), what: "the attestation object")
        }
        #expect(error?.description == "the attestation object is not valid CBOR at byte 3: it ends in the middle of a value")
        let indefinite = #expect(throws: PasskeyError.self) { try CBORReader.decode(Data([0x5F, 0x41, 0x00, 0xFF]), what: "x") }
        #expect(indefinite?.description == "x is not valid CBOR at byte 0: indefinite lengths are not supported")
        let tag = #expect(throws: PasskeyError.self) { try CBORReader.decode(Data([0xC1, 0x00]), what: "x") }
        #expect(tag?.description == "x is not valid CBOR at byte 0: tags (major type 6) are not supported")
        let unsupported = #expect(throws: PasskeyError.self) {
            try PasskeyKey(cose: try CBORReader.decode(Data(CBOR.map([(CBOR.int(1), CBOR.int(3)), (CBOR.int(3), CBOR.int(-257))])), what: "k"))
        }
        #expect(unsupported == .unsupportedAlgorithm("kty 3, alg -257"))
    }

    @Test("An assertion over the document's hash posts it; the journal holds the passkey's signature and verify re-checks it")
    func signsAndVerifies() throws {
        for ed in [false, true] {
            var device = SoftwarePasskey(ed25519: ed)
            let bank = try Bank(device: device)
            let document = try bank.document()
            let assertion = device.assertion(challenge: PasskeyAssertion.challenge(forDocumentId: document.id))
            let outcome = try bank.fixture.ledger.signAndPost(document, assertion: assertion, as: bank.credentials, relyingParty: party)
            guard case .posted(let receipt) = outcome else { Issue.record("not posted: \(outcome)"); continue }
            let entry = try #require(try bank.fixture.ledger.customers.journal(of: bank.credentials.customer).last)
            #expect(entry.sequence == receipt.sequence)
            #expect(entry.signature == assertion.signature)
            #expect(entry.keyId == bank.credentials.passkey?.key.keyId)
            #expect(entry.authorization?.method == .passkey)
            #expect(entry.authorization?.challenge == Base64URL.encode(Hex.decode(document.id)!))
            #expect(try bank.fixture.ledger.journal.verify() == .ok(1))
        }
    }

    @Test("Wrong challenge, origin, rpId, type, flags, replayed counter, bad signature: refused, each named for the operator, one message for the customer")
    func refusals() throws {
        var device = SoftwarePasskey()
        let bank = try Bank(device: device)
        let ledger = bank.fixture.ledger
        let document = try bank.document()
        let challenge = PasskeyAssertion.challenge(forDocumentId: document.id)
        let other = PasskeyAssertion.challenge(forDocumentId: try bank.document(amount: "100.01").id)
        // A good assertion first, so the stored counter is 1 and a replay can be told.
        let first = device.assertion(challenge: challenge)
        _ = try ledger.signAndPost(document, assertion: first, as: bank.credentials, relyingParty: party)
        let credentials = try #require(try ledger.customers.credentials(named: "carol"))
        let second = try bank.document(amount: "5.00")
        let secondChallenge = PasskeyAssertion.challenge(forDocumentId: second.id)
        var tampered = device.assertion(challenge: secondChallenge)
        tampered = PasskeyAssertion(credentialId: tampered.credentialId, authenticatorData: tampered.authenticatorData,
                                    clientDataJSON: tampered.clientDataJSON, signature: first.signature)
        let cases: [(PasskeyAssertion, PasskeyError)] = [
            (device.assertion(challenge: other), .wrongChallenge),
            (device.assertion(challenge: secondChallenge, origin: "https://evil.example"),
             .wrongOrigin(expected: "http://localhost:8080", found: "https://evil.example")),
            (device.assertion(challenge: secondChallenge, rpId: "evil.example"), .wrongRelyingParty(expected: "localhost")),
            (device.assertion(challenge: secondChallenge, type: "webauthn.create"), .wrongType(expected: "webauthn.get", found: "webauthn.create")),
            (device.assertion(challenge: secondChallenge, flags: 0x01), .userNotVerified),
            (device.assertion(challenge: secondChallenge, counter: 1), .replayedCounter(stored: 1, found: 1)),
            (tampered, .badSignature),
        ]
        var messages: Set<String> = []
        for (number, (assertion, expected)) in cases.enumerated() {
            var noted: PasskeyError?
            let error = #expect(throws: LedgerError.self) {
                try ledger.signAndPost(second, assertion: assertion, as: credentials, relyingParty: party) { noted = $0 }
            }
            // The operator is told which element failed…
            #expect(noted == expected, "case \(number + 1)")
            // …the customer is not (Art. 4): one message, only the attempts left differ.
            let left = 4 - number % 5
            #expect(error == .code(.wrongPasskey(attemptsLeft: left)), "case \(number + 1)")
            if let text = error?.description.split(separator: ";").first { messages.insert(String(text)) }
            // The fifth failure in a row locks signing; past the lock, the count starts again.
            if left == 0 { bank.fixture.clock.advance(301) }
        }
        #expect(messages == ["the passkey did not sign this document: confirm the payment shown on the review with this customer's passkey again"])
        #expect(try ledger.journal.verify() == .ok(1))
    }

    @Test("The sixth attempt is blocked even with a good assertion; the lock lifts after five minutes")
    func lock() throws {
        var device = SoftwarePasskey()
        let bank = try Bank(device: device)
        let ledger = bank.fixture.ledger
        let document = try bank.document()
        let good = PasskeyAssertion.challenge(forDocumentId: document.id)
        for _ in 0..<5 {
            #expect(throws: LedgerError.self) {
                try ledger.signAndPost(document, assertion: device.assertion(challenge: good, origin: "http://x.example"),
                                       as: bank.credentials, relyingParty: party)
            }
        }
        #expect(try bank.failures() == 5)
        let blocked = #expect(throws: LedgerError.self) {
            try ledger.signAndPost(document, assertion: device.assertion(challenge: good), as: bank.credentials, relyingParty: party)
        }
        guard case .code(.locked) = blocked else { Issue.record("not locked: \(String(describing: blocked))"); return }
        bank.fixture.clock.advance(301)
        let outcome = try ledger.signAndPost(document, assertion: device.assertion(challenge: good), as: bank.credentials, relyingParty: party)
        guard case .posted = outcome else { Issue.record("not posted after the lock: \(outcome)"); return }
        #expect(try bank.failures() == 0)
    }

    @Test("verify names a passkey entry whose recorded assertion was altered")
    func verifyCatchesAlteredAssertion() throws {
        var device = SoftwarePasskey()
        let bank = try Bank(device: device)
        let document = try bank.document()
        _ = try bank.fixture.ledger.signAndPost(document, assertion: device.assertion(challenge: PasskeyAssertion.challenge(forDocumentId: document.id)),
                                                as: bank.credentials, relyingParty: party)
        try bank.fixture.ledger.database.write { db in
            try db.execute("DROP TRIGGER journal_no_update")
            // Another origin in the recorded client data: the signature no longer covers it.
            try db.execute("UPDATE journal SET auth_response = ? WHERE seq = 1", arguments: [.text(
                Base64URL.encode(SoftwarePasskey.authenticatorData(rpId: "localhost", flags: 5, counter: 1)) + "."
                    + Base64URL.encode(SoftwarePasskey.clientData(type: "webauthn.get", challenge: PasskeyAssertion.challenge(forDocumentId: document.id),
                                                                  origin: "http://localhost:9999")))])
        }
        guard case .bad(let sequence, let reason) = try bank.fixture.ledger.journal.verify() else {
            Issue.record("verify did not catch the altered assertion"); return
        }
        #expect(sequence == 1)
        #expect(reason == "the passkey signature does not hold: the signature does not verify with the registered passkey")
    }

    @Test("The same request id from the same customer posts once and answers the first outcome")
    func requestIds() throws {
        var device = SoftwarePasskey()
        let bank = try Bank(device: device)
        let ledger = bank.fixture.ledger
        let document = try bank.document()
        let request = try LedgerRequest(customer: String(bank.credentials.customer.id), id: "pay-1")
        let assertion = device.assertion(challenge: PasskeyAssertion.challenge(forDocumentId: document.id))
        let first = try ledger.signAndPost(document, assertion: assertion, as: bank.credentials, relyingParty: party, request: request)
        let again = try ledger.signAndPost(try bank.document(amount: "7.00"), assertion: assertion, as: bank.credentials,
                                           relyingParty: party, request: request)
        #expect(first == again)
        #expect(try ledger.customers.journal(of: bank.credentials.customer).count == 1)
    }
}
