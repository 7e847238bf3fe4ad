import Foundation
import Testing

/// `run`: fill, submit, sign with a one-time code, post; then `journal` and `verify`.
@Suite("run, journal, verify")
struct RunTests {
    static let quick = [
        "srcAccount=\(Demo.current)", "destName=ООО Ромашка", "destInn=1234567894", "destAccount=\(Demo.external)",
        "destBic=\(Demo.bic)", "destDesc=оплата по счёту 7", "amount=1 500,50",
    ]

    /// A sandbox with keys.
    private func enrolled() throws -> HostSandbox {
        let sandbox = try HostSandbox()
        try sandbox.initKeys()
        return sandbox
    }

    @Test("run --json: exactly {status, journal, document, errors, posting}; posted with journal seq, document and balance after")
    func posted() throws {
        let sandbox = try enrolled()
        sandbox.step()
        let code = try sandbox.code()
        let result = try sandbox.host(sandbox.runArguments("pay.pp.quick", Self.quick, code: code))
        #expect(result.status == 0, "\(result)")
        let object = try #require(try jsonObject(result.stdout) as? [String: Any])
        #expect(keys(object) == ["status", "journal", "document", "errors", "posting"])
        #expect(keys(object["document"]) == ["id", "operation", "plugin", "pluginVersion", "createdAt", "keyId", "fields"])
        #expect(keys(object["posting"]) == ["debit", "credit", "amount", "currency", "balanceAfter"])

        let report = try decode(RunJSON.self, result.stdout)
        #expect(report.status == "posted")
        #expect(report.journal == 1)
        #expect(report.errors.isEmpty)
        #expect(report.posting == RunJSON.Posting(debit: Demo.current, credit: Demo.external, amount: "1500.50",
                                                  currency: "RUB", balanceAfter: "148499.50"))
        let document = try #require(report.document)
        #expect(document.operation == "pay.pp.quick")
        #expect(document.plugin == "ru.example.payments.quick")
        #expect(document.pluginVersion == "1.0.0")
        #expect(document.createdAt == "2026-05-28T20:27:10Z")  // RBS_CLOCK one step after the epoch
        #expect(document.id.count == 64)
        #expect(document.fields == [
            "from": Demo.current, "name": "ООО Ромашка", "inn": "1234567894", "kpp": "", "account": Demo.external,
            "bic": Demo.bic, "purpose": "Оплата по счёту 7", "amount": "1500.50", "currency": "RUB",
        ])
        let keyId = try #require(try sandbox.host(["keys", "show"]).stdout.split(separator: "\n")
            .first { $0.hasPrefix("Key id:") }?.split(separator: " ").last.map(String.init))
        #expect(document.keyId == keyId)

        // The core moved the money: the balance after is the debit account's balance now.
        let balances = try sandbox.balances()
        #expect(balances[Demo.current] == Decimal("148499.50"))
        #expect(balances[Demo.savings] == Demo.seedBalances[Demo.savings])

        let journal = try sandbox.journal()
        #expect(journal.count == 1)
        let entry = try #require(journal.first)
        #expect(entry.sequence == 1)
        #expect(entry.kind == "posted")
        #expect(entry.documentId == document.id)
        #expect(entry.debit == Demo.current && entry.credit == Demo.external)
        #expect(entry.amount == "1500.50" && entry.currency == "RUB" && entry.balanceAfter == "148499.50")
        #expect(entry.keyId == keyId)
        #expect(entry.document.contains("name=ООО Ромашка\n"))
        #expect(entry.previousHash == String(repeating: "0", count: 64))

        let verify = try sandbox.host(["verify"])
        #expect(verify.status == 0)
        #expect(verify.stdout == "ok 1 entry\n")
    }

    @Test("an internal transfer credits our own account too")
    func internalTransfer() throws {
        let sandbox = try enrolled()
        let (report, _) = try sandbox.run("transfer.own", ["fromAccount=\(Demo.savings)", "toAccount=\(Demo.current)",
                                                           "amount=1 000,25"])
        #expect(report.status == "posted")
        #expect(report.posting == RunJSON.Posting(debit: Demo.savings, credit: Demo.current, amount: "1000.25",
                                                  currency: "RUB", balanceAfter: "498999.75"))
        #expect(report.document?.fields == ["from": Demo.savings, "account": Demo.current, "amount": "1000.25",
                                            "currency": "RUB", "purpose": "Перевод между своими счетами"])
        let balances = try sandbox.balances()
        #expect(balances[Demo.savings] == Decimal("498999.75"))
        #expect(balances[Demo.current] == Decimal("151000.25"))
    }

    @Test("more than the balance: refused before the code is looked at — nothing journaled, the code still works, exit 1")
    func refusedInsufficientFundsBeforeSigning() throws {
        let sandbox = try enrolled()
        sandbox.step()
        let code = try sandbox.code()
        var assignments = Self.quick
        assignments[assignments.count - 1] = "amount=999 999 999"
        let (report, process) = try sandbox.run("pay.pp.quick", assignments, code: code)
        #expect(process.status == 1)
        #expect(report.status == "invalid")
        #expect(report.journal == nil)
        #expect(report.posting == nil)
        #expect(report.document?.fields["amount"] == "999999999.00")
        #expect(report.errors.map(\.message) == [
            "the bank would refuse this document: insufficient funds on \(Demo.current): balance 150000.00 RUB, amount 999999999.00 RUB — nothing was signed and no one-time code was used",
        ])
        // Under --lang ru the same refusal is the core's reason in Russian, its amounts as Russian writes them.
        let russian = try sandbox.host(["--lang", "ru"] + sandbox.runArguments("pay.pp.quick", assignments, code: code).filter { $0 != "--json" })
        #expect(russian.status == 1)
        #expect(russian.stdout.split(separator: "\n").map(String.init) == [
            "не отправлено",
            "  ⚠ банк отклонит этот документ: недостаточно средств на счёте \(Demo.current): остаток 150\u{00A0}000,00 RUB, сумма 999\u{00A0}999\u{00A0}999,00 RUB — ничего не подписано, одноразовый код не использован",
        ], "\(russian)")
        #expect(try sandbox.balances() == Demo.seedBalances)
        #expect(try sandbox.journal().isEmpty)
        // The code was not spent: the same code signs a document the core accepts.
        let (posted, _) = try sandbox.run("pay.pp.quick", Self.quick, code: code)
        #expect(posted.status == "posted", "\(posted.errors)")
        #expect(try sandbox.host(["verify"]).stdout == "ok 1 entry\n")
    }

    @Test("the debit and credit account are the same: refused before signing (budget payment to the payer's own account)")
    func refusedSameAccount() throws {
        let sandbox = try enrolled()
        let assignments = DescribeTaxTests.common.map { $0.hasPrefix("destAccount=") ? "destAccount=\(Demo.current)" : $0 }
        let (report, _) = try sandbox.run("pay.pp.tax", assignments + ["type=0"])
        #expect(report.status == "invalid")
        #expect(report.journal == nil)
        #expect(report.errors.map(\.message) == ["the bank would refuse this document: the debit and credit account are the same (\(Demo.current)) — nothing was signed and no one-time code was used"])
        #expect(try sandbox.balances() == Demo.seedBalances)
        #expect(try sandbox.journal().isEmpty)
    }

    @Test("transfer.own to the blocked account (list number 3): the core takes no credit on it, so no picker offers it; refused on its field, nothing signed")
    func refusedBlockedCredit() throws {
        let sandbox = try enrolled()
        let (report, process) = try sandbox.run("transfer.own", ["fromAccount=1", "toAccount=3", "amount=100"])
        #expect(process.status == 1)
        #expect(report.status == "invalid")
        #expect(report.document == nil, "no document names the blocked account")
        #expect(report.errors.first { $0.atom == "toAccount" }?.message
            == "toAccount: account 3 (\(Demo.blocked)) is blocked and cannot be chosen here — choose one of: 2) \(Demo.savings), 4) \(Demo.usd)", "\(report.errors)")
        #expect(try sandbox.balances() == Demo.seedBalances)
        #expect(try sandbox.journal().isEmpty)
    }

    @Test("--set with bytes that are not UTF-8 is refused on its atom, never repaired to U+FFFD and signed")
    func invalidUTF8Refused() throws {
        let sandbox = try enrolled()
        sandbox.step()
        let code = try sandbox.code()
        let arguments = sandbox.runArguments("pay.pp.quick", Self.quick, code: code)
        let script = "exec \"$0\" \"$@\" --set \"$(printf 'destName=Bad \\377 name')\""
        let result = try runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", script, Repo.binary.path] + arguments,
                                    environment: sandbox.environment(), timeout: 30)
        #expect(result.status == 1, "\(result)")
        let report = try decode(RunJSON.self, result.stdout)
        #expect(report.status == "invalid")
        #expect(report.errors.first?.atom == "destName")
        #expect(report.errors.first?.message.contains("not valid UTF-8") == true)
        #expect(try sandbox.journal().isEmpty)
    }

    @Test("invalid: a form that is not ready names the atoms, journals nothing, uses no code")
    func invalidForm() throws {
        let sandbox = try enrolled()
        sandbox.step()
        let code = try sandbox.code()
        let (report, process) = try sandbox.run("pay.pp.quick", ["srcAccount=\(Demo.current)", "destName=Ромашка",
                                                                 "destInn=1234567890"], code: code)
        #expect(process.status == 1)
        #expect(report.status == "invalid")
        #expect(report.journal == nil)
        #expect(report.document == nil)
        #expect(report.posting == nil)
        #expect(report.errors == [
            .init(atom: "destInn", message: "The INN is wrong: its first two digits (the region's code) are never 00 and its check digits must match; see the note under the field"),
            .init(atom: "destAccount", message: "required: Payee's account"),
            .init(atom: "destBic", message: "required: BIC"),
            .init(atom: "destDesc", message: "required: Purpose of payment"),
            .init(atom: "amount", message: "required: Amount, ₽"),
        ])
        #expect(try sandbox.journal().isEmpty)
        #expect(try sandbox.host(["verify"]).stdout == "ok 0 entries\n")
        // In the reader's language, as the REPL says it.
        #expect(try sandbox.host(["verify", "--lang", "ru"]).stdout == "ok: записей журнала — 0, все верны\n")
        // The code was not spent: the same code posts a complete form.
        let (posted, _) = try sandbox.run("pay.pp.quick", Self.quick, code: code)
        #expect(posted.status == "posted")
        #expect(posted.journal == 1)
    }

    @Test("invalid: a bad value or an unknown atom on the command line is an error on that atom")
    func invalidAssignments() throws {
        let sandbox = try enrolled()
        let (report, _) = try sandbox.run("pay.pp.quick", Self.quick + ["amount=12.3456", "nosuchAtom=1"])
        #expect(report.status == "invalid")
        #expect(report.errors.map(\.atom) == ["amount", "nosuchAtom"])
        #expect(report.errors.first?.message == "amount: 12.3456: RUB has 2 digits after the decimal separator, not more (amounts are never rounded)")
        let unknown = try sandbox.run("pay.pp.nope", [])
        #expect(unknown.report.status == "invalid")
        #expect(unknown.report.errors.count == 1)
        #expect(unknown.report.errors.first?.message.contains("pay.pp.nope") == true)
        #expect(try sandbox.journal().isEmpty)
    }

    @Test("run's text names a refused field once, by the caption the person knows, in the language of --lang")
    func refusalTextNamesTheCaption() throws {
        let sandbox = try enrolled()
        sandbox.step()
        let sets = (Self.quick.dropLast() + ["amount=1,500"]).flatMap { ["--set", $0] }
        let russian = try sandbox.host(["--lang", "ru", "run", "pay.pp.quick"] + sets + ["--code", try sandbox.code()])
        #expect(russian.status == 1)
        #expect(russian.stdout == """
            не отправлено
              ⚠ Сумма, ₽: 1,500 — неоднозначно: это 1500 (разделитель разрядов) или 1,5 (десятичный разделитель); введите 1500 или 1,5

            """, "\(russian)")
        let english = try sandbox.host(["run", "pay.pp.quick", "--set", "amount=10", "--code", try sandbox.code()])
        #expect(english.stdout.split(separator: "\n").dropFirst().first == "  ⚠ required: Debit account", "\(english)")
        #expect(try sandbox.journal().isEmpty)
    }

    @Test("invalid: a budget payment with a bad period, then posted without the hidden fields once the type is 0")
    func taxHiddenFieldsLeftOut() throws {
        let sandbox = try enrolled()
        let bad = try sandbox.run("pay.pp.tax", DescribeTaxTests.common + ["type=1", "basis=ТП", "period=12345678"])
        #expect(bad.report.status == "invalid")
        #expect(bad.report.errors == [.init(atom: "period", message: DescribeTaxTests.periodError)])

        let ordinary = try sandbox.run("pay.pp.tax", DescribeTaxTests.common + ["type=1", "basis=ТП", "period=12345678", "type=0"])
        #expect(ordinary.report.status == "posted", "\(ordinary.report.errors)")
        let fields = try #require(ordinary.report.document?.fields)
        #expect(fields["type"] == "0")
        for hidden in DescribeTaxTests.budgetFields { #expect(fields[hidden] == nil, "\(hidden) in the document") }

        let tax = try sandbox.run("pay.pp.tax", DescribeTaxTests.common + ["type=1", "basis=ТП", "period=КВ.02.2026",
                                                                           "docDate=28.02.2026"])
        #expect(tax.report.status == "posted", "\(tax.report.errors)")
        #expect(tax.report.document?.fields["basis"] == "ТП")
        #expect(tax.report.document?.fields["period"] == "КВ.02.2026")
        #expect(tax.report.document?.fields["docDate"] == "28.02.2026")
        #expect(tax.report.document?.fields["docNumber"] == "0", "108 is 0 when no document is named")
        #expect(tax.report.document?.fields["payerInn"] == "7707083893")
        #expect(tax.report.document?.fields["uin"] == "0")
        #expect(tax.report.journal == 2)
        #expect(try sandbox.balances()[Demo.current] == Decimal("148000"))
    }

    @Test("card.block: no amount, so the core acknowledges it: posted, journaled, no posting")
    func acknowledged() throws {
        let sandbox = try enrolled()
        let result = try sandbox.run("card.block", ["cardNumber=4111111111111111", "reason=compromised", "confirm=yes"])
        #expect(result.report.status == "posted")
        #expect(result.report.journal == 1)
        #expect(result.report.posting == nil)
        let object = try #require(try jsonObject(result.process.stdout) as? [String: Any])
        #expect(keys(object) == ["status", "journal", "document", "errors"])
        // Never the full card number: the masked form and the last four digits only.
        #expect(result.report.document?.fields == ["cardMasked": "4111 11** **** 1111", "cardLastFour": "1111",
                                                   "reason": "compromised", "action": "block"])
        #expect(try sandbox.journal().map(\.kind) == ["acknowledged"])
        #expect(!result.process.stdout.contains("4111111111111111"))
        let journal = try sandbox.host(["journal", "--json"]).stdout
        #expect(!journal.contains("4111111111111111"))
        for file in try FileManager.default.contentsOfDirectory(at: sandbox.data, includingPropertiesForKeys: nil)
        where file.lastPathComponent.hasPrefix("rbs.sqlite") {
            let bytes = try Data(contentsOf: file)
            #expect(bytes.range(of: Data("4111111111111111".utf8)) == nil, "\(file.lastPathComponent) holds the full card number")
        }
        #expect(try sandbox.balances() == Demo.seedBalances)
    }

    @Test("a wrong code is invalid and journals nothing")
    func wrongCode() throws {
        let sandbox = try enrolled()
        sandbox.step()
        let right = try sandbox.code()
        let wrong = String(format: "%06d", (Int(right)! + 1) % 1_000_000)
        let (report, process) = try sandbox.run("transfer.own", ["fromAccount=1", "toAccount=2", "amount=10"], code: wrong)
        #expect(process.status == 1)
        #expect(report.status == "invalid")
        #expect(report.journal == nil)
        #expect(report.errors.count == 1)
        #expect(report.errors.first?.message.contains("wrong") == true, "\(report.errors)")
        #expect(try sandbox.journal().isEmpty)
        #expect(try sandbox.balances() == Demo.seedBalances)
    }

    @Test("a code is accepted once: replaying it (or an older step's) is refused")
    func replay() throws {
        let sandbox = try enrolled()
        let transfer = ["fromAccount=\(Demo.current)", "toAccount=\(Demo.savings)", "amount=10"]
        sandbox.step()
        let code = try sandbox.code()
        let older = try { sandbox.clock -= 30; defer { sandbox.clock += 30 }; return try sandbox.code() }()
        let first = try sandbox.run("transfer.own", transfer, code: code)
        #expect(first.report.status == "posted")
        let again = try sandbox.run("transfer.own", transfer, code: code)
        #expect(again.report.status == "invalid")
        #expect(again.report.journal == nil)
        #expect(again.report.errors.first?.message.contains("already used") == true, "\(again.report.errors)")
        // The previous step's code is within the ±1 window but older than the one used.
        let previous = try sandbox.run("transfer.own", transfer, code: older)
        #expect(previous.report.status == "invalid")
        // The next step's code works.
        let next = try sandbox.run("transfer.own", transfer)
        #expect(next.report.status == "posted")
        #expect(next.report.journal == 2)
        #expect(try sandbox.journal().count == 2)
        #expect(try sandbox.balances()[Demo.current] == Decimal("149980"))
    }

    @Test("±1 step: the next step's code is accepted now, two steps ahead is not")
    func window() throws {
        let sandbox = try enrolled()
        let transfer = ["fromAccount=\(Demo.current)", "toAccount=\(Demo.savings)", "amount=1"]
        let farAhead = try sandbox.run("transfer.own", transfer, code: sandbox.code(ahead: 2))
        #expect(farAhead.report.status == "invalid")
        let ahead = try sandbox.run("transfer.own", transfer, code: sandbox.code(ahead: 1))
        #expect(ahead.report.status == "posted")
    }

    @Test("5 wrong codes lock signing for 5 minutes, even for the right code; after that it works")
    func lockout() throws {
        let sandbox = try enrolled()
        let transfer = ["fromAccount=\(Demo.current)", "toAccount=\(Demo.savings)", "amount=10"]
        sandbox.step()
        let right = try sandbox.code()
        let wrong = String(format: "%06d", (Int(right)! + 500_000) % 1_000_000)
        for attempt in 1...5 {
            let result = try sandbox.run("transfer.own", transfer, code: wrong)
            #expect(result.report.status == "invalid", "attempt \(attempt)")
        }
        let locked = try sandbox.run("transfer.own", transfer, code: right)
        #expect(locked.report.status == "invalid")
        #expect(locked.report.errors.first?.message.contains("locked") == true, "\(locked.report.errors)")
        sandbox.clock += 4 * 60
        let stillLocked = try sandbox.run("transfer.own", transfer)
        #expect(stillLocked.report.status == "invalid")
        sandbox.clock += 60
        let unlocked = try sandbox.run("transfer.own", transfer)
        #expect(unlocked.report.status == "posted", "\(unlocked.report.errors)")
        #expect(try sandbox.journal().count == 1)
    }

    @Test("run without keys: invalid, telling to run keys init")
    func noKeys() throws {
        let sandbox = try HostSandbox()
        let result = try sandbox.run("transfer.own", ["fromAccount=1", "toAccount=2", "amount=10"], code: "123456")
        #expect(result.report.status == "invalid")
        #expect(result.report.errors.first?.message.contains("keys init") == true, "\(result.report.errors)")
    }

    @Test("journal --json lists every entry in order, chained by hash; verify counts them")
    func journalAndVerify() throws {
        let sandbox = try enrolled()
        _ = try sandbox.run("transfer.own", ["fromAccount=\(Demo.current)", "toAccount=\(Demo.savings)", "amount=100"])
        _ = try sandbox.run("card.block", ["cardNumber=4111111111111111", "reason=lost", "confirm=yes"])
        _ = try sandbox.run("pay.pp.quick", Self.quick)

        let result = try sandbox.host(["journal", "--json"])
        let array = try #require(try jsonObject(result.stdout) as? [[String: Any]])
        // authorization: how the person authorised the entry (issue #21: the journal records the signing method).
        let always: Set<String> = ["sequence", "kind", "documentId", "document", "signature", "keyId", "recordedAt",
                                   "authorization", "previousHash", "hash"]
        let posting: Set<String> = ["debit", "credit", "amount", "currency", "balanceAfter"]
        #expect(array.map(keys) == [always.union(posting), always, always.union(posting)])

        let journal = try sandbox.journal()
        #expect(journal.map(\.sequence) == [1, 2, 3])
        #expect(journal.map(\.kind) == ["posted", "acknowledged", "posted"])
        #expect(journal.map(\.balanceAfter) == ["149900.00", nil, "148399.50"])
        for (previous, entry) in zip(journal, journal.dropFirst()) {
            #expect(entry.previousHash == previous.hash)
        }
        #expect(Set(journal.map(\.documentId)).count == 3)
        #expect(journal.allSatisfy { $0.signature.count == 128 && $0.hash.count == 64 })
        #expect(journal.allSatisfy { $0.document.hasPrefix("RBSDOC1\n") })

        let verify = try sandbox.host(["verify"])
        #expect(verify.status == 0)
        #expect(verify.stdout == "ok 3 entries\n")

        let text = try sandbox.host(["journal"])
        #expect(text.status == 0)
        #expect(text.stdout.split(separator: "\n").count == 5)  // header, rule, 3 entries
    }

    @Test("an empty journal: [] and ok 0 entries")
    func emptyJournal() throws {
        let sandbox = try HostSandbox()
        #expect(try sandbox.journal().isEmpty)
        let verify = try sandbox.host(["verify"])
        #expect(verify.status == 0)
        #expect(verify.stdout == "ok 0 entries\n")
    }
}
