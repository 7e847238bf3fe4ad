import Foundation
import Testing

/// The REPL as a person meets it (in a pseudo-terminal, driven by pexpect) and as a script drives it (a pipe).
@Suite("REPL")
struct REPLTests {
    @Test("in a terminal: list, quick payment with a bad then a good INN, the BIC's bank, signing, journal, completion, history, Ctrl-C",
          .timeLimit(.minutes(5)))
    func terminalSession() throws {
        try Self.drive("drive_repl.py")
    }

    /// Runs `Tests/Fixtures/repl/SCRIPT BINARY PLUGINS DATA CLOCK` in a fresh sandbox; it prints "ok" when every step saw what it expected.
    static func drive(_ script: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let sandbox = try HostSandbox()
        let path = Repo.root.appendingPathComponent("Tests/Fixtures/repl/\(script)")
        let result = try runProcess(URL(fileURLWithPath: "/usr/bin/env"),
                                    ["python3", "-u", path.path, Repo.binary.path, Repo.plugins.path, sandbox.data.path,
                                     String(sandbox.clock)],
                                    environment: sandbox.environment(), timeout: 240, sourceLocation: sourceLocation)
        #expect(result.status == 0, "\(result)", sourceLocation: sourceLocation)
        #expect(result.stdout.hasSuffix("ok\n"), "\(result)", sourceLocation: sourceLocation)
    }

    @Test("issue #11 on the rendered screen: menus by list number, fixed account numbers, refusals before any code, a wrong code then the right one, a masked card, clean prompts, history without secrets",
          .timeLimit(.minutes(5)))
    func customerScreen() throws {
        try Self.drive("screen_repl.py")
    }

    @Test("signing baskets on the rendered screen: two payments collected, listed with their total, reviewed together, one wrong code then the right one posts both, journal show names the basket",
          .timeLimit(.minutes(5)))
    func basketScreen() throws {
        try Self.drive("screen_basket.py")
    }

    @Test("in a terminal with an OCRA key: the review shows the challenge with amount and payee; a wrong response is refused and asked again; the right one posts",
          .timeLimit(.minutes(5)))
    func terminalOCRASession() throws {
        try Self.drive("drive_repl_ocra.py")
    }

    @Test("with --watch, a plugin renamed into the folder is reloaded and a one-line notice says so",
          .timeLimit(.minutes(3)))
    func reloadNotice() throws {
        let sandbox = try HostSandbox()
        let folder = try CheckFixtures.folder(in: sandbox, "watched")
        let source = Repo.root.appendingPathComponent("Tests/Fixtures/scan/versioned.c")
        for (version, name) in [("1.0.0", "versioned.so"), ("1.1.0", ".next.so")] {
            let result = try runProcess(URL(fileURLWithPath: "/usr/bin/env"),
                                        ["cc", "-std=c11", "-shared", "-fPIC", "-fvisibility=hidden",
                                         "-DVERSION=\"\(version)\"", "-I", CheckFixtures.include.path,
                                         "-o", folder.appendingPathComponent(name).path, source.path],
                                        environment: ProcessInfo.processInfo.environment)
            try #require(result.status == 0, "\(result)")
        }
        let script = Repo.root.appendingPathComponent("Tests/Fixtures/repl/watch_reload.py")
        let result = try runProcess(URL(fileURLWithPath: "/usr/bin/env"),
                                    ["python3", "-u", script.path, Repo.binary.path, folder.path, sandbox.data.path,
                                     folder.appendingPathComponent(".next.so").path],
                                    environment: sandbox.environment(), timeout: 120)
        #expect(result.status == 0 && result.stdout.hasSuffix("ok\n"), "\(result)")
    }

    @Test("from a pipe: no prompts, the same results, and a wrong line is one error that says what to do")
    func pipedScript() throws {
        let sandbox = try HostSandbox()
        try sandbox.initKeys()
        let code = try sandbox.code()
        let script = """
        lst
        list
        run pay.pp.quick destBic=044525225
        1
        ООО Ромашка
        1234567890
        7707083893

        40702810938000000001

        оплата по счёту 7
        1 000,50

        \(code)
        journal
        verify
        quit
        """
        let process = Process()
        process.executableURL = Repo.binary
        process.arguments = []
        process.environment = sandbox.environment()
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        input.fileHandleForWriting.write(Data((script + "\n").utf8))
        try input.fileHandleForWriting.close()
        let out = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let err = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(!out.contains("rbs> "), "no prompts in piped output:\n\(out)")
        #expect(!out.contains("Enter keeps a value"), "no hints for people in piped output")
        #expect(err.contains("error: unknown command 'lst' — did you mean 'list'?"))
        #expect(out.contains("pay.pp.quick"))
        #expect(out.contains("ℹ ПАО Сбербанк"), "the prefilled BIC filled the bank's name:\n\(out)")
        #expect(out.contains("⚠ The INN is wrong"))
        #expect(out.contains("posted — journal entry 1"), "\(out)\n\(err)")
        #expect(out.contains("1,000.50 RUB"), "the journal groups the amount as English writes it")
        #expect(out.contains("ok 1 entry"))
    }

    @Test("Russian with --lang ru or LANG=ru_RU.UTF-8, English with --lang en over a Russian locale: the review, a refused account named by its field's caption, a wrong code, leaving — from one catalogue",
          .timeLimit(.minutes(2)))
    func messagesInTwoLanguages() throws {
        // transfer.own to the blocked account 3 (not offered: refused on the field), then account 2, a wrong code.
        let script = "run transfer.own\n1\n3\n2\n1 500\n\n000000\ncancel\ncancel\nquit\n"
        func run(_ arguments: [String], _ environment: [String: String?]) throws -> (out: String, err: String) {
            // A fresh folder each time: the wrong code counts against the folder's attempts.
            let sandbox = try HostSandbox()
            try sandbox.initKeys()
            let result = try sandbox.repl(script, arguments: arguments, environment: environment)
            #expect(result.status == 0, "\(result)")
            return (result.out, result.err)
        }
        let russianReview = [
            "Переводы › Перевод между своими счетами › Подпись",
            "  Сумма: 1\u{00A0}500,00 RUB",
            "  Счёт получателя: 40817810738000000002",
            "  Счёт списания: 40817810438000000001",
            "  Назначение платежа: Перевод между своими счетами",
        ]
        for (arguments, environment) in [(["--lang", "ru"], [String: String?]()), ([], ["LANG": "ru_RU.UTF-8"]),
                                          ([], ["LANG": "C.UTF-8", "LC_MESSAGES": "ru_RU.UTF-8"])] {
            let (out, err) = try run(arguments, environment)
            let lines = out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let start = try #require(lines.firstIndex(of: russianReview[0]), "\(arguments) \(environment): \(out)\n\(err)")
            #expect(Array(lines[start..<min(start + russianReview.count, lines.count)]) == russianReview, "\(out)")
            #expect(lines.contains { $0.hasPrefix("  Документ: ") } && lines.contains { $0.hasPrefix("  Способ подписи: одноразовый код TOTP") })
            #expect(err.contains("ошибка: Зачислить на счёт: счёт 3 (40817810038000000003) заблокирован, здесь его выбрать нельзя — выберите один из: 2) 40817810738000000002, 4) 40817840638000000004"), "\(err)")
            #expect(err.contains("ошибка: одноразовый код неверен; проверьте часы устройства с приложением-аутентификатором; осталось попыток до блокировки подписи на 5 минут: 4"), "\(err)")
            #expect(out.contains("Подписание отменено: возврат к форме, значения сохранены."), "\(out)")
            #expect(out.contains("отменено: ничего не подписано и не отправлено"), "\(out)")
            for english in ["Amount", "Payee", "cancelled", "error:", "cannot be chosen", "toAccount", "one-time code is wrong", "Signing"] {
                #expect(!out.contains(english) && !err.contains(english), "no English '\(english)' under Russian captions:\n\(out)\n\(err)")
            }
        }
        let (out, err) = try run(["--lang", "en"], ["LANG": "ru_RU.UTF-8"])
        #expect(out.contains("  Amount: 1,500.00 RUB\n  Payee's account: 40817810738000000002\n  From account: 40817810438000000001\n"), "\(out)")
        #expect(err.contains("error: Credit account: account 3 (40817810038000000003) is blocked and cannot be chosen here — choose one of: 2) 40817810738000000002, 4) 40817840638000000004"), "\(err)")
        #expect(out.contains("Signing cancelled: back to the form, values kept."), "\(out)")
        #expect(!out.contains("Сумма:") && !err.contains("ошибка"), "\(out)\n\(err)")
    }
}
