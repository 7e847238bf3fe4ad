import Foundation
import Testing

/// Two signers from the command line: `customers add-user`, `customers policy`, `run --as`, `customers pending`,
/// `customers approve|reject`.
@Suite("second signer commands")
struct SecondSignerCommandTests {
    private func customerCode(_ sandbox: HostSandbox, _ name: String) throws -> String {
        let result = try sandbox.host(["customers", "code", name])
        try #require(result.status == 0, "\(result)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("a second user and a threshold; anna's payment above it awaits; boris approves it (not anna, not a replayed code); --json shapes")
    func makerChecker() throws {
        let sandbox = try HostSandbox()
        try sandbox.initKeys()
        #expect(try sandbox.host(["customers", "add", "anna"]).status == 0)
        let added = try sandbox.host(["customers", "add-user", "anna", "boris", "--code", try customerCode(sandbox, "anna")])
        #expect(added.status == 0, "\(added)")
        #expect(added.stdout.hasPrefix("User of customer anna:\nCustomer:   boris\nPassword:   "), "\(added.stdout)")
        #expect(added.stdout.contains("otpauth://totp/rbs-host:boris?secret="))

        sandbox.step()
        let policy = try sandbox.host(["customers", "policy", "anna", "--second-signer-above", "100 000", "RUB", "--json",
                                       "--code", try customerCode(sandbox, "anna")])
        #expect(policy.status == 0, "\(policy)")
        struct Policy: Decodable, Equatable {
            struct Threshold: Decodable, Equatable { var amount: String; var currency: String }
            var customer: String
            var users: [String]
            var secondSignerAbove: [Threshold]
        }
        #expect(try decode(Policy.self, policy.stdout) == Policy(customer: "anna", users: ["anna", "boris"],
                                                                  secondSignerAbove: [.init(amount: "100000.00", currency: "RUB")]))
        #expect(try sandbox.host(["customers", "policy", "boris"]).stdout == """
            Customer:      anna
            Users:         anna, boris
            Second signer: above 100,000.00 RUB; in any other currency always

            """)

        struct Row: Decodable { struct Account: Decodable { var number: String }; var name: String; var accounts: [Account] }
        let rows = try decode([Row].self, try sandbox.host(["customers", "list", "--json"]).stdout)
        let savings = try #require(rows.first { $0.name == "anna" }?.accounts[1].number)
        let payment = ["srcAccount=\(savings)", "destName=ООО Ромашка", "destInn=1234567894", "destAccount=\(Demo.external)",
                       "destBic=\(Demo.bic)", "destDesc=оплата по счёту 9", "amount=200000"]
        sandbox.step()
        let signed = try sandbox.host(["run", "pay.pp.quick"] + payment.flatMap { ["--set", $0] }
                                      + ["--as", "anna", "--code", try customerCode(sandbox, "anna"), "--json"])
        #expect(signed.status == 0, "\(signed)")
        let report = try decode(RunJSON.self, signed.stdout)
        #expect(report.status == "awaiting-second-signature" && report.journal == 1 && report.posting == nil)

        struct Pending: Decodable { var journal: Int64; var signedBy: String; var amount: String?; var currency: String?; var payee: String?
            var credit: String?; var purpose: String?; var operation: String; var documentHash: String; var signedAt: String }
        let pending = try decode([Pending].self, try sandbox.host(["customers", "pending", "boris", "--json"]).stdout)
        #expect(pending.count == 1 && pending[0].journal == 1 && pending[0].signedBy == "anna" && pending[0].amount == "200000.00")
        #expect(pending[0].payee == "ООО Ромашка" && pending[0].credit == Demo.external && pending[0].operation == "pay.pp.quick")

        sandbox.step()
        let own = try sandbox.host(["customers", "approve", "anna", "1", "--code", try customerCode(sandbox, "anna"), "--json"])
        #expect(own.status == 1)
        #expect(try decode(RunJSON.self, own.stdout).errors.map(\.message)
            == ["anna signed this document first and cannot be its second signer: another user of the customer signs or declines it"])

        let code = try customerCode(sandbox, "boris")
        let approved = try sandbox.host(["customers", "approve", "boris", "1", "--code", code, "--json"])
        #expect(approved.status == 0, "\(approved)")
        let posted = try decode(RunJSON.self, approved.stdout)
        #expect(posted.status == "posted" && posted.journal == 2 && posted.posting?.amount == "200000.00")

        // A second payment awaiting: boris's code, used once, does not sign it.
        let again = try sandbox.host(["run", "pay.pp.quick"] + payment.flatMap { ["--set", $0] }
                                     + ["--set", "amount=150000", "--as", "anna", "--code", try customerCode(sandbox, "anna"), "--json"])
        #expect(try decode(RunJSON.self, again.stdout).journal == 3)
        let replayed = try sandbox.host(["customers", "approve", "boris", "3", "--code", code, "--json"])
        let replayedReport = try decode(RunJSON.self, replayed.stdout)
        #expect(replayed.status == 1 && replayedReport.errors.first?.message.contains("already used") == true, "\(replayed)")
        sandbox.step()
        let declined = try sandbox.host(["customers", "reject", "boris", "3", "--reason", "twice", "--code", try customerCode(sandbox, "boris"), "--json"])
        let rejected = try decode(RunJSON.self, declined.stdout)
        #expect(declined.status == 0 && rejected.status == "rejected" && rejected.journal == 4)
        #expect(rejected.errors.map(\.message) == ["declined by the second signer boris: twice"])
        #expect(try sandbox.host(["customers", "pending", "anna"]).stdout == "Nothing awaits a second signature for anna.\n")

        // journal show: an awaiting entry's amount is not said to be posted, and each entry names its counterpart.
        func outcome(_ sequence: Int) throws -> [String] {
            let shown = try sandbox.host(["journal", "show", String(sequence)]).stdout
            return shown.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
                .filter { $0.hasPrefix("Amount posted") || $0.hasPrefix("Amount (") || $0.hasPrefix("Second signature") }
        }
        #expect(try outcome(1) == ["Amount (not posted: awaiting a second signature): 200,000.00 RUB", "Second signature: Journal entry 2"])
        #expect(try outcome(2) == ["Amount posted: 200,000.00 RUB", "Second signature of: Journal entry 1"])
        #expect(try outcome(3).last == "Second signature: Journal entry 4")

        let journal = try sandbox.journal()
        #expect(journal.map(\.kind) == ["awaiting-second-signature", "posted", "awaiting-second-signature", "rejected"])
        #expect(try sandbox.host(["verify"]).stdout == "ok 4 entries\n")

        // The same payment as entry 2 again: signed once the repeat is confirmed, it awaits (entry 5); its approval
        // would post it again, so it too needs --confirm-duplicate, and the pending table says what it repeats.
        sandbox.step()
        let repeated = try sandbox.host(["run", "pay.pp.quick"] + payment.flatMap { ["--set", $0] }
                                        + ["--as", "anna", "--code", try customerCode(sandbox, "anna"), "--confirm-duplicate", "--json"])
        #expect(try decode(RunJSON.self, repeated.stdout).journal == 5, "\(repeated)")
        #expect(try sandbox.host(["customers", "pending", "boris"]).stdout.contains("entry 2"))
        sandbox.step()
        let unconfirmed = try sandbox.host(["customers", "approve", "boris", "5", "--code", try customerCode(sandbox, "boris")])
        #expect(unconfirmed.status == 1 && unconfirmed.stdout.contains("repeats journal entry 2")
                && unconfirmed.stdout.contains("approve it again with --confirm-duplicate"), "\(unconfirmed)")
        let confirmed = try sandbox.host(["customers", "approve", "boris", "5", "--code", try customerCode(sandbox, "boris"),
                                          "--confirm-duplicate", "--json"])
        let confirmedReport = try decode(RunJSON.self, confirmed.stdout)
        #expect(confirmed.status == 0 && confirmedReport.status == "posted", "\(confirmed)")
    }

    @Test("run --as offers only the user's customer's accounts (the core refuses any other debit whatever is offered), and refuses an unknown user")
    func foreignAccount() throws {
        let sandbox = try HostSandbox()
        try sandbox.initKeys()
        #expect(try sandbox.host(["customers", "add", "anna"]).status == 0)
        let result = try sandbox.host(["run", "pay.pp.quick"] + RunTests.quick.flatMap { ["--set", $0] }
                                      + ["--as", "anna", "--code", try customerCode(sandbox, "anna"), "--json"])
        #expect(result.status == 1)
        let refused = try decode(RunJSON.self, result.stdout).errors
        let annas = try #require(try sandbox.host(["customers", "list", "--json"]).stdout.data(using: .utf8))
        let listed = try JSONSerialization.jsonObject(with: annas) as? [[String: Any]] ?? []
        // pay.pp.quick's picker offers the rouble accounts.
        let offered = (listed.first { $0["name"] as? String == "anna" }?["accounts"] as? [[String: Any]] ?? [])
            .filter { $0["currency"] as? String == "RUB" }.compactMap { $0["number"] as? String }
        #expect(refused.map(\.atom) == ["srcAccount"])
        #expect(refused.map(\.message) == ["srcAccount: '\(Demo.current)' is not one of the accounts offered: "
                                           + offered.enumerated().map { "\($0.offset + 1)) \($0.element)" }.joined(separator: ", ")])
        #expect(try sandbox.journal().isEmpty)
        let unknown = try sandbox.host(["run", "pay.pp.quick", "--as", "nobody", "--code", "123456", "--json"])
        #expect(try decode(RunJSON.self, unknown.stdout).errors.map(\.message) == ["there is no customer named 'nobody' (see `rbs-host customers list`)"])
    }
}

extension SecondSignerCommandTests {
    @Test("adding a user and changing the second-signer policy take the customer's current code: without one or with a wrong one nothing changes")
    func stepUp() throws {
        let sandbox = try HostSandbox()
        try sandbox.initKeys()
        #expect(try sandbox.host(["customers", "add", "anna"]).status == 0)
        let bare = try sandbox.host(["customers", "add-user", "anna", "boris"])
        #expect(bare.status != 0 && bare.stderr.contains("Missing expected argument '--code <code>'"), "\(bare)")
        let wrong = try sandbox.host(["customers", "add-user", "anna", "boris", "--code", "000000"])
        #expect(wrong.status == 1, "\(wrong)")
        #expect(wrong.stderr.hasPrefix("error: adding a user needs the customer's current one-time code: the one-time code is wrong; "), "\(wrong)")
        #expect(try sandbox.host(["customers", "policy", "anna"]).stdout.contains("Users:         anna\n"))

        let unasked = try sandbox.host(["customers", "policy", "anna", "--no-second-signer"])
        #expect(unasked.status != 0 && unasked.stderr.contains("changing when a second signer is needed takes the customer's one-time code: give --code CODE"), "\(unasked)")
        let refused = try sandbox.host(["customers", "policy", "anna", "--second-signer-above", "10 RUB", "--code", "000000"])
        #expect(refused.status == 1 && refused.stderr.hasPrefix("error: changing when a second signer is needed needs the customer's current one-time code: "), "\(refused)")
        #expect(try sandbox.host(["customers", "policy", "anna"]).stdout.contains("Second signer: never (one user signs alone)"))
        let right = try sandbox.host(["customers", "policy", "anna", "--second-signer-above", "10 RUB", "--code", try customerCode(sandbox, "anna")])
        #expect(right.status == 0, "\(right)")
        // A name in use is refused as such (not as a storage error), with the right code.
        sandbox.step()
        let taken = try sandbox.host(["customers", "add-user", "anna", "anna", "--code", try customerCode(sandbox, "anna")])
        #expect(taken.status == 1 && taken.stderr == "error: a customer or user named 'anna' already exists, or one whose name differs only in case (see `rbs-host customers list`)\n", "\(taken)")
        // The refused name spent no code (it is refused before the step-up looks at it): the same code adds boris; then
        // it is spent, and changes nothing more.
        let added = try sandbox.host(["customers", "add-user", "anna", "boris", "--code", try customerCode(sandbox, "anna")])
        #expect(added.status == 0, "\(added)")
        let replayed = try sandbox.host(["customers", "add-user", "anna", "carl", "--code", try customerCode(sandbox, "anna")])
        #expect(replayed.status == 1 && replayed.stderr.contains("already used"), "\(replayed)")
    }

    @Test("the REPL: pending CUSTOMER lists the awaiting document, approve USER N asks for USER's code and posts it")
    func repl() throws {
        let sandbox = try HostSandbox()
        try sandbox.initKeys()
        #expect(try sandbox.host(["customers", "add", "anna"]).status == 0)
        #expect(try sandbox.host(["customers", "add-user", "anna", "boris", "--code", try customerCode(sandbox, "anna")]).status == 0)
        sandbox.step()
        #expect(try sandbox.host(["customers", "policy", "anna", "--second-signer-above", "1000 RUB",
                                  "--code", try customerCode(sandbox, "anna")]).status == 0)
        sandbox.step()
        struct Row: Decodable { struct Account: Decodable { var number: String }; var name: String; var accounts: [Account] }
        let rows = try decode([Row].self, try sandbox.host(["customers", "list", "--json"]).stdout)
        let account = try #require(rows.first { $0.name == "anna" }?.accounts[0].number)
        let code = try sandbox.host(["customers", "code", "anna"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let signed = try sandbox.host(["run", "pay.pp.quick", "--set", "srcAccount=\(account)", "--set", "destName=ООО Ромашка",
                                       "--set", "destInn=1234567894", "--set", "destAccount=\(Demo.external)", "--set", "destBic=\(Demo.bic)",
                                       "--set", "destDesc=за март", "--set", "amount=1500", "--as", "anna", "--code", code])
        #expect(signed.status == 0 && signed.stdout.hasPrefix("awaiting a second signature — journal entry 1"), "\(signed)")
        sandbox.step()
        let boris = try sandbox.host(["customers", "code", "boris"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let result = try sandbox.repl("pending anna\napprove anna 1\n\(code)\napprove boris 1\n\(boris)\npending boris\nquit\n")
        #expect(result.status == 0)
        // The pending table's row: its cells, as the table separates them.
        let row = result.out.split(separator: "\n").first { $0.contains(Demo.external) }.map {
            $0.components(separatedBy: "  ").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        #expect(row == ["1", "anna", "1,500.00 RUB", "ООО Ромашка", Demo.external, "За март"], "\(result.out)")
        #expect(result.err.contains("anna signed this document first and cannot be its second signer"), "\(result.err)")
        #expect(result.out.contains("posted — journal entry 2"), "\(result.out)")
        #expect(result.out.hasSuffix("Nothing awaits a second signature for boris.\n"), "\(result.out)")
        #expect(try sandbox.host(["verify"]).stdout == "ok 2 entries\n")
    }
}
