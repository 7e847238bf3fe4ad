import Foundation
import Testing

/// OCRA signing through the binary: `keys init --method ocra`, `run --challenge`, `keys respond`, `run --response`,
/// `journal`, `verify`; and TOTP labelled as not bound to the transaction.
@Suite("run --challenge / --response (OCRA)")
struct DynamicLinkingRunTests {
    static let payment = [
        "srcAccount=\(Demo.current)", "destName=ООО Ромашка", "destInn=1234567894", "destAccount=\(Demo.external)",
        "destBic=\(Demo.bic)", "destDesc=оплата по счёту 7", "amount=1 500,50",
    ]

    /// `payment` with one assignment replaced.
    static func payment(_ atom: String, _ value: String) -> [String] {
        payment.map { $0.hasPrefix(atom + "=") ? "\(atom)=\(value)" : $0 }
    }

    struct ChallengeJSON: Decodable {
        var challenge: String
        var document: RunJSON.Document
    }

    struct EnrolmentJSON: Decodable {
        var method: String
        var keyId: String
        var suite: String
        var secret: String
    }

    private func enrolled() throws -> HostSandbox {
        let sandbox = try HostSandbox()
        let result = try sandbox.host(["keys", "init", "--name", "tester", "--method", "ocra", "--json"])
        try #require(result.status == 0, "keys init --method ocra: \(result)")
        return sandbox
    }

    private func challenge(_ sandbox: HostSandbox, _ assignments: [String] = payment,
                           sourceLocation: SourceLocation = #_sourceLocation) throws -> ChallengeJSON {
        // The same payment is challenged again after it was posted: these tests are about the challenge, not duplicates.
        let result = try sandbox.host(["run", "pay.pp.quick"] + assignments.flatMap { ["--set", $0] } + ["--challenge", "--confirm-duplicate", "--json"],
                                      sourceLocation: sourceLocation)
        try #require(result.status == 0, "run --challenge: \(result)", sourceLocation: sourceLocation)
        return try decode(ChallengeJSON.self, result.stdout, sourceLocation: sourceLocation)
    }

    private func respond(_ sandbox: HostSandbox, _ challenge: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let result = try sandbox.host(["keys", "respond", challenge], sourceLocation: sourceLocation)
        try #require(result.status == 0, "keys respond: \(result)", sourceLocation: sourceLocation)
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func post(_ sandbox: HostSandbox, _ assignments: [String] = payment, response: String, document: String? = nil,
                      sourceLocation: SourceLocation = #_sourceLocation) throws -> (report: RunJSON, process: ProcessResult) {
        let arguments = ["run", "pay.pp.quick"] + assignments.flatMap { ["--set", $0] } + ["--response", response, "--confirm-duplicate"]
            + (document.map { ["--document", $0] } ?? []) + ["--json"]
        let result = try sandbox.host(arguments, sourceLocation: sourceLocation)
        let report = try decode(RunJSON.self, result.stdout, sourceLocation: sourceLocation)
        #expect(result.status == (report.status == "posted" ? 0 : 1), "\(result)", sourceLocation: sourceLocation)
        return (report, result)
    }

    @Test("keys init --method ocra --json prints {suite, secret} (and method, keyId); keys show says it is transaction-bound")
    func enrolment() throws {
        let sandbox = try HostSandbox()
        let result = try sandbox.host(["keys", "init", "--method", "ocra", "--json"])
        #expect(result.status == 0, "\(result)")
        let object = try #require(try jsonObject(result.stdout) as? [String: Any])
        #expect(keys(object) == ["method", "keyId", "suite", "secret"])
        let enrolment = try decode(EnrolmentJSON.self, result.stdout)
        #expect(enrolment.method == "ocra")
        #expect(enrolment.suite == "OCRA-1:HOTP-SHA256-8:QN12")
        #expect(enrolment.secret.count == 64 && enrolment.secret.allSatisfy(\.isHexDigit))
        let show = try sandbox.host(["keys", "show"])
        #expect(show.stdout.contains("Method:     OCRA challenge–response — bound to this document's amount and payee"), "\(show)")
        #expect(show.stdout.contains("Suite:      OCRA-1:HOTP-SHA256-8:QN12"))
        // The TOTP helper refuses, naming the right one.
        let code = try sandbox.host(["keys", "code"])
        #expect(code.status == 1 && code.stderr.contains("keys respond"), "\(code)")
        // A suite the host cannot sign with is refused with the reason.
        let bad = try sandbox.host(["keys", "init", "--method", "ocra", "--suite", "OCRA-1:HOTP-SHA1-6:QN08-T1M", "--force"])
        #expect(bad.status == 1 && bad.stderr.contains("time step"), "\(bad)")
        let malformed = try sandbox.host(["keys", "init", "--method", "ocra", "--suite", "OCRA-1:HOTP-SHA1-6", "--force"])
        #expect(malformed.status == 1 && malformed.stderr.contains("three parts"), "\(malformed)")
    }

    @Test("run --challenge --json prints exactly {challenge, document} and posts nothing; --response R posts that document")
    func endToEnd() throws {
        let sandbox = try enrolled()
        let result = try sandbox.host(["run", "pay.pp.quick"] + Self.payment.flatMap { ["--set", $0] } + ["--challenge", "--json"])
        #expect(result.status == 0, "\(result)")
        let object = try #require(try jsonObject(result.stdout) as? [String: Any])
        #expect(keys(object) == ["challenge", "document"])
        let issued = try decode(ChallengeJSON.self, result.stdout)
        #expect(issued.challenge.count == 12 && issued.challenge.allSatisfy(\.isNumber))
        #expect(issued.document.fields["amount"] == "1500.50" && issued.document.fields["account"] == Demo.external)
        #expect(try sandbox.journal().isEmpty)
        #expect(try sandbox.balances() == Demo.seedBalances)

        let response = try respond(sandbox, issued.challenge)
        #expect(response.count == 8 && response.allSatisfy(\.isNumber))
        // Typed with the review's grouping, it is the same challenge.
        let grouped = stride(from: 0, to: 12, by: 4).map { String(Array(issued.challenge)[$0..<$0 + 4]) }.joined(separator: " ")
        #expect(try respond(sandbox, grouped) == response)

        let (report, _) = try post(sandbox, response: response)
        #expect(report.status == "posted", "\(report.errors)")
        #expect(report.document?.id == issued.document.id)
        #expect(report.journal == 1)
        #expect(try sandbox.balances()[Demo.current] == Decimal("148499.50"))

        let journal = try sandbox.host(["journal", "--json"])
        let entries = try #require(try jsonObject(journal.stdout) as? [[String: Any]])
        let authorization = try #require(entries.first?["authorization"] as? [String: Any])
        #expect(authorization["method"] as? String == "ocra")
        #expect(authorization["challenge"] as? String == issued.challenge)
        #expect(authorization["response"] as? String == response)
        #expect(authorization["transactionBound"] as? Bool == true)
        let text = try sandbox.host(["journal"])
        #expect(text.stdout.contains("OCRA \(grouped)"), "\(text)")
        let verify = try sandbox.host(["verify"])
        #expect(verify.status == 0 && verify.stdout.contains("ok 1 entry"), "\(verify)")
    }

    @Test("A's response is refused for a document differing only in amount, payee account or payee name — one message, nothing posted")
    func changedDocumentRefused() throws {
        let sandbox = try enrolled()
        var messages: Set<String> = []
        var posted = 0
        for changed in [Self.payment("amount", "1 500,51"), Self.payment("destAccount", Demo.savings),
                        Self.payment("destName", "ООО Ромашки")] {
            let issued = try challenge(sandbox)
            let response = try respond(sandbox, issued.challenge)
            // Named by id, and the latest challenge of the operation: both are A's.
            for document in [issued.document.id, nil] as [String?] {
                let (report, _) = try post(sandbox, changed, response: response, document: document)
                #expect(report.status == "invalid", "\(changed): \(report)")
                #expect(report.journal == nil)
                let message = try #require(report.errors.first?.message)
                messages.insert(message.replacingOccurrences(of: #"\d attempts? left"#, with: "N attempts left", options: .regularExpression))
            }
            #expect(try sandbox.journal().count == posted)
            // A itself still goes through with its response (which also clears the count of wrong attempts).
            let a = try post(sandbox, response: response, document: issued.document.id)
            #expect(a.report.status == "posted", "\(a.report.errors)")
            #expect(a.report.document?.id == issued.document.id)
            posted += 1
        }
        #expect(messages.count == 1, "\(messages)")
        #expect(messages.first?.contains("does not answer this document's challenge") == true, "\(messages)")
        #expect(try sandbox.journal().map { $0.documentId }.count == 3)
    }

    @Test("a response is accepted once: the replay is refused and posts nothing")
    func replayRefused() throws {
        let sandbox = try enrolled()
        let issued = try challenge(sandbox)
        let response = try respond(sandbox, issued.challenge)
        #expect(try post(sandbox, response: response).report.status == "posted")
        let byId = try post(sandbox, response: response, document: issued.document.id)
        #expect(byId.report.status == "invalid")
        #expect(byId.report.errors.first?.message.contains("already answered") == true, "\(byId.report.errors)")
        let latest = try post(sandbox, response: response)
        #expect(latest.report.status == "invalid")
        #expect(latest.report.errors.first?.message.contains("no challenge is waiting") == true, "\(latest.report.errors)")
        #expect(try sandbox.journal().count == 1)
        #expect(try sandbox.balances()[Demo.current] == Decimal("148499.50"))
    }

    @Test("five wrong responses block signing: the sixth attempt, with the right response, is refused")
    func sixthAttemptBlocked() throws {
        let sandbox = try enrolled()
        let issued = try challenge(sandbox)
        let right = try respond(sandbox, issued.challenge)
        let wrong = String(format: "%08d", (Int(right)! + 1) % 100_000_000)
        for attempt in 1...5 {
            let (report, _) = try post(sandbox, response: wrong)
            #expect(report.status == "invalid", "attempt \(attempt)")
            #expect(report.errors.first?.message.contains(attempt == 5 ? "now locked" : "\(5 - attempt) attempt") == true,
                    "\(report.errors)")
        }
        let sixth = try post(sandbox, response: right)
        #expect(sixth.report.status == "invalid")
        #expect(sixth.report.errors.first?.message.contains("locked") == true, "\(sixth.report.errors)")
        #expect(try sandbox.journal().isEmpty)
        // The challenge outlives neither the lock nor its five minutes: after the lock, a new one is needed.
        sandbox.clock += 301
        let expired = try post(sandbox, response: right)
        #expect(expired.report.errors.first?.message.contains("expired") == true, "\(expired.report.errors)")
        let fresh = try challenge(sandbox)
        #expect(try post(sandbox, response: respond(sandbox, fresh.challenge)).report.status == "posted")
    }

    @Test("the wrong method's flags are refused before anything is counted; run needs exactly one of them")
    func methodMismatch() throws {
        let sandbox = try enrolled()
        sandbox.step()
        let coded = try sandbox.host(sandbox.runArguments("pay.pp.quick", Self.payment, code: "123456"))
        let report = try decode(RunJSON.self, coded.stdout)
        #expect(report.status == "invalid")
        #expect(report.errors.first?.message.contains("--challenge") == true, "\(report.errors)")
        let neither = try sandbox.host(["run", "pay.pp.quick", "--json"])
        #expect(neither.status != 0 && neither.stderr.contains("--code CODE (TOTP), --challenge or --response R"), "\(neither)")

        let totp = try HostSandbox()
        try totp.initKeys()
        let challenged = try totp.host(["run", "pay.pp.quick"] + Self.payment.flatMap { ["--set", $0] } + ["--challenge", "--json"])
        #expect(challenged.status == 1)
        #expect(try decode(RunJSON.self, challenged.stdout).errors.first?.message.contains("TOTP") == true, "\(challenged)")
        let respond = try totp.host(["keys", "respond", "123456789012"])
        #expect(respond.status == 1 && respond.stderr.contains("keys code"), "\(respond)")
    }

    @Test("TOTP is labelled as not bound to the transaction in keys show, the journal and its JSON")
    func totpLabelled() throws {
        let sandbox = try HostSandbox()
        try sandbox.initKeys()
        #expect(try sandbox.host(["keys", "show"]).stdout.contains("TOTP one-time code — NOT bound to the transaction"))
        #expect(try sandbox.run("pay.pp.quick", Self.payment).report.status == "posted")
        let entries = try #require(try jsonObject(try sandbox.host(["journal", "--json"]).stdout) as? [[String: Any]])
        let authorization = try #require(entries.first?["authorization"] as? [String: Any])
        #expect(authorization["method"] as? String == "totp")
        #expect(authorization["transactionBound"] as? Bool == false)
        #expect(try sandbox.host(["journal"]).stdout.contains("TOTP (not bound)"))
        #expect(try sandbox.host(["verify"]).status == 0)
    }
}
