import Foundation
@testable import RBSCore
@testable import RBSLedger
import Testing

/// The typed core of a form (issue #11): values are typed, enum choices and account numbers mean one thing, errors
/// tell the truth at the right time, and a plugin's set_value is checked against the atom.
@Suite("Form session: typed values")
struct FormTypedTests {
    private func typedResults(_ operation: RegisteredOperation) -> Int32 {
        guard let symbol = operation.plugin.handle?.symbol("forms_typed_results") else { return -2 }
        return unsafeBitCast(symbol, to: (@convention(c) () -> Int32).self)()
    }

    @Test("a person's list number picks the listed option, never the option whose value is that number")
    func enumByListNumber() throws {
        let (runtime, _) = try formsRuntime()
        let form = try runtime.open("forms.all")
        try form.commit("payType", text: "2", reader: .person)
        #expect(form.atom("payType")?.value == "1", "2) Налоговый платёж has value 1")
        try form.commit("payType", text: "1", reader: .person)
        #expect(form.atom("payType")?.value == "0")
        try form.commit("payType", text: "тамож", reader: .person)
        #expect(form.atom("payType")?.value == "2", "an unambiguous start of the title")
        #expect(throws: FormSessionError.self) { try form.commit("payType", text: "4", reader: .person) }
        #expect(form.atom("payType")?.value == "2")
    }

    @Test("a script chooses by the option's value or its title")
    func enumByValueOrTitle() throws {
        let (runtime, _) = try formsRuntime()
        let form = try runtime.open("forms.all")
        try form.commit("payType", text: "2", reader: .script)
        #expect(form.atom("payType")?.value == "2")
        try form.commit("payType", text: "Налоговый платёж", reader: .script)
        #expect(form.atom("payType")?.value == "1")
        do {
            try form.commit("payType", text: "7", reader: .script)
            Issue.record("7 was accepted")
        } catch {
            #expect(error.description.contains("value or its title"), "says which forms are accepted: \(error)")
        }
    }

    @Test("the typed API refuses a value of the wrong kind, an option that does not exist, a foreign currency")
    func typedMismatch() throws {
        let (runtime, _) = try formsRuntime()
        let form = try runtime.open("forms.all")
        #expect(throws: FormSessionError.mismatch(id: "payType", expected: "an enum option", got: "text")) {
            try form.commit("payType", value: .text("1"))
        }
        #expect(throws: FormSessionError.self) { try form.commit("payType", value: .option(value: "9")) }
        try form.commit("payType", value: .option(value: "0"))
        #expect(form.atom("payType")?.value == "0")
        #expect(throws: FormSessionError.mismatch(id: "amount", expected: "an amount in RUB", got: "an amount in USD")) {
            try form.commit("amount", value: .money(5, currency: "USD"))
        }
        #expect(throws: FormSessionError.self) { try form.commit("amount", value: .money(Decimal(string: "5.001")!, currency: "RUB")) }
        try form.commit("amount", value: .money(Decimal(string: "5.5")!, currency: "RUB"))
        #expect(form.atom("amount")?.value == "5.50")
        #expect(throws: FormSessionError.self) { try form.commit("acct", value: .account(number: "40800000000000000000")) }
        try form.commit("when", value: .date(year: 2024, month: 2, day: 29))
        #expect(form.atom("when")?.value == "2024-02-29")
        #expect(throws: FormSessionError.self) { try form.commit("when", value: .date(year: 2025, month: 2, day: 29)) }
    }

    @Test("dates are accepted as ДД.ММ.ГГГГ and ISO; a day that does not exist is refused")
    func dates() throws {
        let (runtime, _) = try formsRuntime()
        let form = try runtime.open("forms.all")
        try form.commit("when", text: "31.03.2025", reader: .person)
        #expect(form.atom("when")?.value == "2025-03-31")
        try form.commit("when", text: "2025-04-01", reader: .script)
        #expect(form.atom("when")?.value == "2025-04-01")
        #expect(throws: FormSessionError.self) { try form.commit("when", text: "31.02.2025", reader: .person) }
        #expect(form.atom("when")?.value == "2025-04-01")
        #expect(form.atom("when")?.error == nil)
    }

    @Test("account numbers stay with their account for the whole run, whatever another picker left out")
    func stableAccountNumbers() throws {
        let (runtime, _) = try formsRuntime()
        let form = try runtime.open("forms.all")
        // Account 3 is blocked: no picker offers it, and the others keep their numbers.
        #expect(form.offeredAccounts(for: "acct2").map(\.number) == [1, 2, 4])
        try form.commit("acct", text: "1", reader: .person)
        #expect(form.offeredAccounts(for: "acct2").map(\.number) == [2, 4], "no renumbering after the first choice")
        try form.commit("acct2", text: "2", reader: .person)
        #expect(form.atom("acct2")?.value == DemoAccounts.list[1].number, "2 is the second account, as listed before")
        #expect(throws: FormSessionError.self) { try form.commit("acct2", text: "1", reader: .person) }
        #expect(throws: FormSessionError.self) { try form.commit("acct2", text: "3", reader: .script) }
        try form.commit("acct2", text: "4", reader: .script)
        #expect(form.atom("acct2")?.value == DemoAccounts.list[3].number)
    }

    @Test("a picker whose filter reads another atom offers again when that atom changes, and the same when it does not")
    func offeredFollowsTheAtomTheFilterReads() throws {
        let (runtime, _) = try formsRuntime()
        let form = try runtime.open("forms.all")
        // acct2's filter is `number != $acct`: what it offers is kept between renders only while acct stays as it was.
        try form.commit("acct", text: "1", reader: .person)
        #expect(form.offeredAccounts(for: "acct2").map(\.number) == [2, 4])
        try form.commit("amount", text: "5", reader: .script)
        #expect(form.offeredAccounts(for: "acct2").map(\.number) == [2, 4], "an atom the filter does not read changed")
        try form.commit("acct", text: "2", reader: .person)
        #expect(form.offeredAccounts(for: "acct2").map(\.number) == [1, 4], "the atom the filter reads changed")
        try form.commit("acct", value: .empty)
        #expect(form.offeredAccounts(for: "acct2").map(\.number) == [1, 2, 4])
        // acct, unfiltered, offers every account that takes postings whatever was chosen.
        #expect(form.offeredAccounts(for: "acct").map(\.number) == [1, 2, 4])
    }

    @Test("an amount's shown text follows its value: a new value is written anew, the same value spelled otherwise too")
    func amountTextFollowsTheValue() throws {
        let (runtime, _) = try formsRuntime()
        let form = try runtime.open("forms.all")
        try form.commit("amount", text: "5", reader: .script)
        #expect(form.atom("amount")?.value == "5.00")
        #expect(form.atom("amount")?.value == "5.00", "rendered again without a change")
        try form.commit("amount", text: "200,5", reader: .person)
        #expect(form.atom("amount")?.value == "200.50")
        try form.commit("amount", value: .money(Decimal(string: "200.50")!, currency: "RUB"))
        #expect(form.atom("amount")?.value == "200.50")
        try form.commit("amount", value: .empty)
        #expect(form.atom("amount")?.value == "")
        try form.commit("amount", text: "7", reader: .script)
        #expect(form.atom("amount")?.value == "7.00")
    }

    @Test("accounts that cannot be read (a database outage) are said as such, and read again once the outage is over")
    func accountsUnavailable() throws {
        /// The core's accounts, unreachable until `down` is false.
        final class FlakyAccounts: AccountsService, @unchecked Sendable {
            var down = true
            func accounts() throws -> [Account] {
                if down { throw LedgerError.database(path: "postgres://bank@db:5432/bank", detail: "the server is unreachable") }
                return DemoAccounts.list
            }
        }
        let accounts = FlakyAccounts()
        let folder = Fixtures.temporaryDirectory("forms")
        try Fixtures.compile(Fixtures.root.appendingPathComponent("Tests/Fixtures/forms/forms.c"),
                             to: folder.appendingPathComponent("forms.so"))
        let runtime = Runtime(paths: HostPaths(plugins: folder.path, data: Fixtures.temporaryDirectory("rbs-data")),
                              accounts: accounts, log: StandardErrorLog(minimum: .error))
        runtime.loadPlugins()
        let form = try runtime.open("forms.all")
        #expect(form.offeredAccounts(for: "acct").isEmpty)
        #expect(form.noAccountMessage.hasPrefix("the accounts cannot be read now: the database postgres://bank@db:5432/bank refused"),
                "\(form.noAccountMessage)")
        #expect { try form.commit("acct", text: "1", reader: .person) } throws: { error in
            "\(error)".contains("the accounts cannot be read now")
        }
        form.language = .ru
        #expect(form.noAccountMessage.hasPrefix("счета сейчас не прочитать: "))
        accounts.down = false
        #expect(form.offeredAccounts(for: "acct").map(\.number) == [1, 2, 4], "asked again, not kept empty (the blocked one is never offered)")
        #expect(form.accountsUnavailable == nil)
        try form.commit("acct", text: "1", reader: .person)
        #expect(form.atom("acct")?.value == DemoAccounts.list[0].number)
    }

    @Test("a refused entry leaves no error behind; a cross-field check speaks once all its inputs have values, at once")
    func errorsTellTheTruth() throws {
        let (runtime, _) = try formsRuntime()
        let form = try runtime.open("forms.all")
        #expect(throws: FormSessionError.self) { try form.commit("code", text: "123456") }
        #expect(form.atom("code")?.error == nil)
        #expect(form.attention().contains { $0.atom == "code" } == false)
        // repeat == code: no error while code is empty.
        let first = try form.commit("repeat", text: "12")
        #expect(form.atom("repeat")?.error == nil, "waits for code")
        #expect(first.errors.isEmpty)
        let mismatch = try form.commit("code", text: "13")
        #expect(mismatch.errors.map(\.id) == ["repeat"], "said when the second input arrives: \(mismatch.errors)")
        #expect(form.atom("repeat")?.error == "the codes differ")
        let fixed = try form.commit("code", text: "12")
        #expect(fixed.errors.isEmpty)
        #expect(fixed.cleared.contains("repeat"))
        #expect(form.atom("repeat")?.error == nil)
    }

    @Test("a plugin's set_value is typed: INTEGER 2 is no account, USD is not RUB; set_caption obeys the 64 KB limit and UTF-8")
    func pluginValuesAreTyped() throws {
        let (runtime, operation) = try formsRuntime()
        let form = try runtime.open("forms.all")
        try form.commit("name", text: "Typed")
        let results = typedResults(operation)
        #expect(results & (1 << 0) == 0, "INTEGER 2 on an account atom is refused")
        #expect(results & (1 << 1) == 0, "USD MONEY into a RUB atom is refused")
        #expect(results & (1 << 2) != 0, "RUB MONEY is taken")
        #expect(results & (1 << 3) != 0, "INTEGER 2 on an enum is the option with value 2")
        #expect(results & (1 << 4) != 0, "an offered account number is taken")
        #expect(results & (1 << 5) == 0, "a 70 KB caption is refused at run time as at load")
        #expect(results & (1 << 6) == 0, "a caption that is not UTF-8 is refused")
        #expect(results & (1 << 7) == 0, "5.001 RUB is refused, never rounded")
        #expect(form.atom("acct")?.value == DemoAccounts.list[1].number)
        #expect(form.atom("amount")?.value == "5.00")
        #expect(form.atom("kind")?.value == "2")
        #expect(form.atom("note")?.caption.count ?? 0 < 1000)
    }

    @Test("text atoms have a maximum length: the documented default, or the plugin's own")
    func textMaximum() throws {
        let (runtime, _) = try formsRuntime()
        let form = try runtime.open("forms.all")
        let longest = String(repeating: "я", count: TextLimits.defaultMaximumCharacters)
        try form.commit("name", text: longest)
        #expect(form.atom("name")?.value.count == TextLimits.defaultMaximumCharacters)
        #expect(throws: FormSessionError.self) { try form.commit("name", text: longest + "я") }
        #expect(throws: FormSessionError.self) { try form.commit("code", text: "12345") }  // the plugin's max_length 4
        #expect(throws: FormSessionError.self) { try form.commit("name", value: .text("a\u{0}b")) }
    }

    /// `run --set 'destName=   '` and the API posted a payee of blanks where the REPL skipped the line; the parity
    /// corpus checks the three front ends, this the core's rule itself, whatever path the value comes by.
    @Test("the spaces around a text are not part of it, and spaces alone are no value")
    func blankText() throws {
        let (runtime, _) = try formsRuntime()
        let form = try runtime.open("forms.all")
        try form.commit("name", value: .text("  ООО Ромашка\u{A0} "))
        #expect(form.atom("name")?.value == "ООО Ромашка")
        for blank in ["   ", "\u{A0}", " \t ", "\u{2003}\u{200B}"] {
            try form.commit("name", value: .text("Typed"))
            try form.commit("name", value: .text(blank))
            #expect(form.atom("name")?.value == "", "\(Array(blank.unicodeScalars))")
            try form.commit("name", text: blank)
            #expect(form.atom("name")?.value == "")
        }
        try form.commit("code", value: .text(" 12 "))
        #expect(form.atom("code")?.value == "12")
    }
}

@Suite("Sign step")
struct SignStepTests {
    @Test("a wrong code asks again (its message mentions being locked); only a lock-out leaves")
    func retriesFromTheTypedError() {
        let wrong = LedgerError.code(.wrong(attemptsLeft: 4))
        #expect(wrong.description.contains("locked"), "the text alone would have misled")
        #expect(SignModule.afterFailure(wrong) == .retry)
        #expect(SignModule.afterFailure(.code(.malformed(attemptsLeft: 2))) == .retry)
        #expect(SignModule.afterFailure(.code(.replayed)) == .retry)
        #expect(SignModule.afterFailure(.code(.wrong(attemptsLeft: 0))) == .leave)
        #expect(SignModule.afterFailure(.code(.locked(until: Date(), remainingSeconds: 300, failures: 5))) == .leave)
        #expect(SignModule.afterFailure(.wouldBeRejected(Rejection(code: .insufficientFunds, message: "x"))) == .leave)
    }

    @Test("card numbers are masked to the first six and last four digits; other numbers are left alone")
    func panMasked() {
        #expect(CardNumberMask.masked("4111111111111111") == "411111******1111")
        #expect(CardNumberMask.masked("card 4111 1111 1111 1111 lost") == "card 411111******1111 lost")
        #expect(CardNumberMask.masked("40817810438000000001") == "40817810438000000001", "a 20-digit account")
        #expect(CardNumberMask.masked("7707083893") == "7707083893")
        #expect(CardNumberMask.masked("4111111111111112") == "4111111111111112", "not Luhn")
        #expect(CardNumberMask.containsCardNumber("run card.block cardNumber=4111111111111111"))
        #expect(!CardNumberMask.containsCardNumber("run pay.pp.quick destBic=044525225"))
        // What the history keeps out: a card number's length whatever its check digit (one digit mistyped is still
        // nearly the card's number); an account number (20 digits), an INN or a BIC is not one.
        #expect(CardNumberMask.mayContainCardNumber("4111 1111 1111 1112"))
        #expect(CardNumberMask.mayContainCardNumber("cardNumber=4111-1111-1111-1112"))
        #expect(!CardNumberMask.mayContainCardNumber("40817810438000000001"))
        #expect(!CardNumberMask.mayContainCardNumber("run pay.pp.quick destInn=7707083893 destBic=044525225"))
    }
}
