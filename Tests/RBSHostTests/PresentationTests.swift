import Foundation
import Testing

/// One presentation and one status vocabulary across the REPL, `run`, `journal` and the receipt.
@Suite("one presentation, one status word")
struct PresentationTests {
    @Test("a card block is `accepted` (`принято`) in the REPL's outcome, the journal table, journal show and its receipt; `run --json` still says posted",
          arguments: [("en", "accepted — journal entry 1", "accepted", "Status"), ("ru", "принято — запись журнала 1", "принято", "Статус")])
    func cardBlockWord(language: String, outcome: String, word: String, label: String) throws {
        let sandbox = try HostSandbox()
        try sandbox.initKeys()
        let code = try sandbox.code()
        let script = "run card.block\n4111 1111 1111 1111\n2\nyes\n\n\(code)\njournal\njournal show 1\njournal receipt 1\nquit\n"
        let result = try sandbox.repl(script, arguments: ["--lang", language])
        #expect(result.status == 0, "\(result)")
        let lines = result.out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.contains(outcome), "\(result.out)\n\(result.err)")
        #expect(lines.contains { $0.hasPrefix("1 ") && $0.contains("  \(word)  ") && $0.contains("card.block") }, "the journal's row: \(result.out)")
        #expect(lines.filter { $0.hasPrefix("  \(label):") && $0.hasSuffix(" \(word)") }.count == 2, "journal show and the receipt: \(result.out)")
        #expect(!result.out.contains("acknowledged") && !result.out.contains("4111111111111111"), "\(result.out)")
        #expect(try sandbox.journal().map(\.kind) == ["acknowledged"], "journal --json keeps its kind")

        sandbox.step()
        let run = try sandbox.run("card.block", ["cardNumber=2200000000000004", "reason=lost", "confirm=yes"])
        #expect(run.report.status == "posted", "run --json's contract")
    }

    @Test("the REPL names a field that needs attention once, by its caption, as run does: ⚠ обязательное поле: Оператор",
          arguments: [("en", "  ⚠ required: Operator"), ("ru", "  ⚠ обязательное поле: Оператор")])
    func attentionNamesTheFieldOnce(language: String, line: String) throws {
        let sandbox = try HostSandbox()
        try sandbox.initKeys()
        // The operator left empty, then the submit: the form says what needs attention and goes back to it.
        let result = try sandbox.repl("run topup.mobile\n1\n\n9161234567\n2500\n\ncancel\nquit\n", arguments: ["--lang", language])
        let lines = result.out.split(separator: "\n").map(String.init)
        #expect(lines.contains(line), "\(result.out)\n\(result.err)")
    }

    @Test("keys init and keys show speak the person's language; the REPL's keys init takes --name as the command does")
    func keysInRussian() throws {
        let sandbox = try HostSandbox()
        let result = try sandbox.repl("keys init --name Тестов\nkeys\nquit\n", arguments: ["--lang", "ru"])
        let lines = result.out.split(separator: "\n").map(String.init)
        #expect(lines.contains("Добавьте это в приложение-аутентификатор (TOTP, SHA1, 6 цифр, 30 с):"), "\(result.out)")
        #expect(lines.contains("Имя:           Тестов"), "\(result.out)")
        #expect(lines.contains("Способ:        одноразовый код TOTP — НЕ привязан к операции (подтверждает только присутствие; без динамической привязки)"),
                "\(result.out)")
        // A first start says what it created in the person's language too.
        let fresh = sandbox.data.appendingPathComponent("fresh")
        let created = try sandbox.host(["--lang", "ru", "--data", fresh.path, "init"])
        #expect(created.status == 0 && created.stdout.hasPrefix("создан новый журнал ") && created.stdout.contains(" в \(fresh.path)"),
                "\(created)")
        let english = try sandbox.host(["keys"])
        #expect(english.stdout.hasPrefix("Name:       Тестов\nKey id:     "), "\(english)")
    }

    @Test("journal show under --lang ru: the plugin's labels and enum titles, the payer, amounts and dates as Russian writes them, no English captions")
    func journalShowRussian() throws {
        let sandbox = try HostSandbox.withTwoPostings()
        let result = try sandbox.host(["journal", "show", "1", "--lang", "ru"])
        #expect(result.status == 0, "\(result)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "Запись журнала 1")
        for (label, value) in [("Сумма", "1\u{00A0}500,50 RUB"), ("Получатель", "ООО Ромашка"), ("Плательщик", "tester"),
                               ("Банк получателя", "\(Demo.bankName), БИК \(Demo.bic)"), ("Статус", "проведено"),
                               ("Остаток после", "148\u{00A0}499,50 RUB"), ("Записан", "28.05.2026 20:27:10 UTC")] {
            #expect(lines.contains { $0.hasPrefix("  \(label):") && $0.hasSuffix(" \(value)") }, "\(label): \(value) in\n\(result.stdout)")
        }
        for english in ["Amount", "Payee", "Status", "Document", "Outcome", "Signature", "posted", "Payer"] {
            #expect(!result.stdout.contains(english), "no English '\(english)':\n\(result.stdout)")
        }
    }
}
