import Foundation
import GRDB
import Testing
@testable import RBSLedger

/// Dynamic linking (Delegated Regulation 2018/389 Art. 5) and Art. 4 for the two signing methods: an OCRA
/// response answers one document only; TOTP's code is labelled and recorded as not bound to the transaction.
@Suite("Dynamic linking")
struct DynamicLinkingTests {
    static let suite = OCRASuite.hostDefault

    /// The OCRA response the person's authenticator gives for `document`'s challenge.
    static func response(_ f: Fixture, for document: Document) throws -> String {
        guard case .ocra(let suite, let secret) = f.identity.authenticator else {
            Issue.record("the fixture is not enrolled for OCRA")
            return ""
        }
        return try OCRA.response(suite: suite, secret: secret, input: .init(challenge: suite.challenge(forDocumentId: document.id)))
    }

    /// Document A and the three documents that differ from it in one element only.
    static func variants(_ f: Fixture, of a: Document) throws -> [(String, Document)] {
        func changed(_ key: String, _ value: String) throws -> Document {
            try Document(
                operation: a.operation, plugin: a.plugin, pluginVersion: a.pluginVersion,
                fields: a.fields.map { $0.key == key ? DocumentField(key, value) : $0 },
                createdAtMilliseconds: a.createdAtMilliseconds, nonce: a.nonce, keyId: a.keyId)
        }
        return [
            ("amount", try changed("amount", "100.01")),
            ("payee account", try changed("account", "40702810900000012346")),
            ("payee name", try changed("name", "ООО Ромашкa")),  // a Latin "a" at the end
        ]
    }

    static func isWrongResponse(_ error: LedgerError) -> Bool {
        if case .code(.wrongResponse) = error { return true }
        return false
    }

    /// The ledger error `body` throws, or `nil` when it succeeds.
    static func failure<T>(_ body: () throws -> T) -> LedgerError? {
        do {
            _ = try body()
            return nil
        } catch let error as LedgerError {
            return error
        } catch {
            Issue.record("not a ledger error: \(error)")
            return nil
        }
    }

    @Test("OCRA: the response for document A is refused for B differing only in amount, payee account or payee name")
    func ocraResponseIsBoundToTheDocument() throws {
        let f = try Fixture(ocra: Self.suite)
        let a = try f.payment()
        let response = try Self.response(f, for: a)
        for (element, b) in try Self.variants(f, of: a) {
            #expect(b.id != a.id)
            #expect(try f.ledger.challenge(for: b) != f.ledger.challenge(for: a), "\(element)")
            let error = Self.failure { try f.ledger.signAndPost(b, code: response) }
            #expect(error.map(Self.isWrongResponse) == true, "\(element): \(String(describing: error))")
        }
        #expect(try f.balance("40817810438000000001") == 150_000)
        // A itself is accepted with it (the three failures above were not enough to lock).
        guard case .posted = try f.ledger.signAndPost(a, code: response) else { Issue.record("A was not posted"); return }
        #expect(try f.balance("40817810438000000001") == 149_900)
    }

    @Test("OCRA: a response for A is refused for B rebuilt with A's nonce and time (run --response), with the same message as a wrong response")
    func ocraPendingDocumentMustBeTheSame() throws {
        let f = try Fixture(ocra: Self.suite)
        let a = try f.payment()
        let challenge = try f.ledger.issueChallenge(for: a)
        #expect(challenge == (try f.ledger.challenge(for: a)))
        let pending = try f.ledger.pendingChallenge(documentId: nil, operation: a.operation, plugin: a.plugin)
        #expect(pending.document == a && pending.challenge == challenge)
        let response = try Self.response(f, for: a)
        var messages: Set<String> = []
        let variants = try Self.variants(f, of: a)
        // Each B answered with A's response, and one B answered with its own response: all fail alike (four
        // wrong attempts: not yet locked).
        let attempts = variants.map { ($0.1, response) } + [(variants[0].1, try Self.response(f, for: variants[0].1))]
        for (b, candidate) in attempts {
            do {
                let error = Self.failure { try f.ledger.signAndPost(b, code: candidate, expectedDocumentId: a.id) }
                #expect(error.map(Self.isWrongResponse) == true, "\(String(describing: error))")
                messages.insert(String(describing: error).replacingOccurrences(of: #"\d attempts? left"#, with: "N attempts left", options: .regularExpression))
            }
        }
        #expect(messages.count == 1, "\(messages)")
        #expect(messages.first?.contains("amount") == true && messages.first?.contains("payee") == true)
        // The rebuilt A (same fields, the waiting challenge's nonce and time) is the same document and is posted.
        let rebuilt = try f.ledger.draft(operation: a.operation, plugin: a.plugin, pluginVersion: a.pluginVersion,
                                         fields: a.fields, answering: pending)
        #expect(rebuilt.id == a.id)
        guard case .posted = try f.ledger.signAndPost(rebuilt, code: response, expectedDocumentId: a.id) else {
            Issue.record("the rebuilt A was not posted"); return
        }
        // Answered: no longer waiting.
        let answered = Self.failure { try f.ledger.pendingChallenge(documentId: a.id, operation: a.operation, plugin: a.plugin) }
        #expect(answered == .code(.challengeUsed))
        let none = Self.failure { try f.ledger.pendingChallenge(documentId: nil, operation: a.operation, plugin: a.plugin) }
        #expect(none == .code(.noPendingChallenge("operation \(a.operation)")))
    }

    @Test("OCRA: a response is accepted once — replaying it is refused and posts nothing, also after reopening")
    func ocraReplayRefused() throws {
        let f = try Fixture(ocra: Self.suite)
        let a = try f.payment()
        let response = try Self.response(f, for: a)
        _ = try f.ledger.signAndPost(a, code: response)
        try f.ledger.close()
        let reopened = try f.reopen()
        #expect(throws: LedgerError.code(.challengeUsed)) { try reopened.signAndPost(a, code: response) }
        #expect(try reopened.journal.entries().count == 1)
        #expect(try reopened.bank.account(number: "40817810438000000001")?.balance.amount == 149_900)
    }

    @Test("OCRA: five wrong responses lock signing; the sixth attempt, even the right response, is blocked")
    func ocraSixthAttemptBlocked() throws {
        let f = try Fixture(ocra: Self.suite)
        let a = try f.payment()
        let right = try Self.response(f, for: a)
        let wrong = String(right.map { $0 == "9" ? "0" : Character(String(($0.wholeNumberValue ?? 0) + 1)) })
        for attempt in 1...5 {
            #expect(throws: LedgerError.code(.wrongResponse(attemptsLeft: 5 - attempt))) { try f.ledger.signAndPost(a, code: wrong) }
        }
        let sixth = Self.failure { try f.ledger.signAndPost(a, code: right) }
        guard case .code(.locked(_, _, let failures)) = sixth else { Issue.record("not locked: \(String(describing: sixth))"); return }
        #expect(failures == 5)
        #expect(try f.ledger.journal.entries().isEmpty)
        f.clock.advance(301)
        guard case .posted = try f.ledger.signAndPost(a, code: right) else { Issue.record("not posted after the lock"); return }
    }

    @Test("SQLite: OCRA: the journal records the method, suite, challenge and response; verify re-checks them (the file edited)")
    func ocraJournalRecordsMethod() throws {
        let f = try Fixture(ocra: Self.suite, engine: .sqlite)
        let a = try f.payment()
        let response = try Self.response(f, for: a)
        _ = try f.ledger.signAndPost(a, code: response)
        let entry = try #require(try f.ledger.journal.entries().first)
        let authorization = try #require(entry.authorization)
        #expect(authorization.method == .ocra)
        #expect(authorization.suite == Self.suite)
        #expect(authorization.challenge == (try f.ledger.challenge(for: a)))
        #expect(authorization.response == response)
        #expect(authorization.secretId == f.identity.authenticator.secretId)
        #expect(try f.ledger.journal.verify(authenticator: f.identity.authenticator) == .ok(1))

        // An entry claiming another challenge, or a response the enrolled secret did not give, is named by verify.
        func altered(challenge: String?, response: String?) -> JournalEntry {
            JournalEntry(sequence: 1, kind: entry.kind, documentId: entry.documentId, document: entry.document,
                         signature: entry.signature, keyId: entry.keyId, recordedAtMilliseconds: entry.recordedAtMilliseconds,
                         authorization: Authorization(method: .ocra, suite: Self.suite, challenge: challenge, response: response,
                                                      secretId: authorization.secretId),
                         previousHash: entry.previousHash)
        }
        let otherChallenge = altered(challenge: "000000000000", response: response)
        #expect(Journal.authorizationProblem(with: otherChallenge, authenticator: nil)?.contains("not the document's challenge") == true)
        let otherResponse = altered(challenge: authorization.challenge, response: response == "00000000" ? "00000001" : "00000000")
        #expect(Journal.authorizationProblem(with: otherResponse, authenticator: f.identity.authenticator)?.contains("does not answer") == true)
        #expect(Journal.authorizationProblem(with: otherResponse, authenticator: nil) == nil)  // without the secret it cannot tell

        // Changing the recorded method in the file breaks the entry's hash.
        try f.ledger.close()
        let queue = try DatabaseQueue(path: f.directory.appendingPathComponent("rbs.sqlite").path)
        try queue.write { db in
            try db.execute(sql: "DROP TRIGGER journal_no_update")
            try db.execute(sql: "UPDATE journal SET auth_method = 'totp', auth_suite = 'TOTP-SHA1-6-30S', auth_challenge = NULL, auth_response = NULL")
        }
        let reopened = try f.reopen()
        guard case .bad(1, let reason) = try reopened.journal.verify() else { Issue.record("not detected"); return }
        #expect(reason.contains("does not match its hash"))
    }

    @Test("TOTP: the journal records the method as TOTP, labelled not bound to the transaction; verify checks it")
    func totpJournalRecordsMethod() throws {
        let f = try Fixture()
        _ = try f.ledger.signAndPost(try f.payment(), code: f.nextCode())
        let authorization = try #require(try f.ledger.journal.entries().first?.authorization)
        #expect(authorization.method == .totp && !authorization.method.isTransactionBound)
        #expect(authorization.suite == SigningMethod.totpSuite && authorization.challenge == nil)
        #expect(SigningMethod.totp.label.contains("NOT bound to the transaction"))
        #expect(try f.ledger.journal.verify() == .ok(1))
        let json = String(decoding: try f.ledger.journal.json(), as: UTF8.self)
        #expect(json.contains(#""transactionBound" : false"#))
        #expect(try f.ledger.challenge(for: try f.payment()) == nil)
    }

    @Test("TOTP is not bound: the code for A is accepted for B differing in amount — which is why it is labelled so")
    func totpIsNotBound() throws {
        let f = try Fixture()
        let a = try f.payment()
        let code = f.nextCode()
        let b = try Self.variants(f, of: a)[0].1
        guard case .posted = try f.ledger.signAndPost(b, code: code) else { Issue.record("B was not posted"); return }
        // Replay of the same code is refused (Art. 4), for A as for B.
        #expect(throws: LedgerError.code(.replayed)) { try f.ledger.signAndPost(a, code: code) }
    }

    @Test("A waiting challenge expires after five minutes; none waiting is named")
    func challengeExpires() throws {
        let f = try Fixture(ocra: Self.suite)
        let a = try f.payment()
        #expect(Self.failure { try f.ledger.pendingChallenge(documentId: nil, operation: a.operation, plugin: a.plugin) }
                == .code(.noPendingChallenge("operation \(a.operation)")))
        _ = try f.ledger.issueChallenge(for: a)
        f.clock.advance(299)
        #expect(try f.ledger.pendingChallenge(documentId: a.id, operation: a.operation, plugin: a.plugin).document == a)
        f.clock.advance(2)
        let expired = Self.failure { try f.ledger.pendingChallenge(documentId: a.id, operation: a.operation, plugin: a.plugin) }
        guard case .code(.challengeExpired) = expired else { Issue.record("not expired: \(String(describing: expired))"); return }
        #expect(String(describing: expired).contains("--challenge"))
    }

    @Test("OCRA keys: enrolled with the suite's secret length, reloaded as OCRA; unusable suites are refused")
    func ocraEnrolment() throws {
        let store = KeyStore(dataDirectory: temporaryDirectory())
        let enrolment = try store.initialize(name: "a", force: false, ocra: try OCRASuite(Self.suite))
        #expect(enrolment.uri == nil && enrolment.ocraSecretHex?.count == 64)
        for url in [store.ocraSuiteURL, store.ocraSecretURL] { #expect(SecureFile.mode(of: url) == 0o600) }
        #expect(SecureFile.mode(of: store.totpSecretURL) == nil)
        let identity = try store.load()
        guard case .ocra(let suite, let secret) = identity.authenticator else { Issue.record("not OCRA"); return }
        #expect(suite.text == Self.suite && Hex.encode(secret) == enrolment.ocraSecretHex)
        #expect(identity.totpSecret == nil)
        #expect(throws: KeyStoreError.self) {
            try store.initialize(name: "a", force: true, ocra: try OCRASuite("OCRA-1:HOTP-SHA1-6:C-QN08"))
        }
        // Back to TOTP: the OCRA files go.
        _ = try store.initialize(name: "a", force: true)
        #expect(SecureFile.mode(of: store.ocraSuiteURL) == nil && SecureFile.mode(of: store.ocraSecretURL) == nil)
        #expect(try store.load().authenticator.method == .totp)
    }
}
