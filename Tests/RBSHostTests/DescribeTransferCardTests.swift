import Foundation
import Testing

/// `describe` over transfer.own (C) and card.block (Rust), and the money input shared by every amount.
@Suite("describe transfer.own, card.block, money")
struct DescribeTransferCardTests {
    @Test("transfer.own: neither picker offers the blocked account; the to picker excludes the from account")
    func pickers() throws {
        let sandbox = try HostSandbox()
        let blocked = try sandbox.describe("transfer.own", ["fromAccount=\(Demo.blocked)"])
        #expect(blocked["fromAccount"].value == nil)
        // Typed by its own number, said as by its list number: it is this person's, and blocked.
        #expect(blocked["fromAccount"].error == "account 3 (\(Demo.blocked)) is blocked and cannot be chosen here — choose one of: 1) \(Demo.current), 2) \(Demo.savings), 4) \(Demo.usd)")

        let same = try sandbox.describe("transfer.own", ["fromAccount=\(Demo.current)", "toAccount=\(Demo.current)"])
        #expect(same["fromAccount"].value == Demo.current)
        #expect(same["toAccount"].value == nil)
        // The blocked account (3) is not offered as the destination either: the core takes no credit on it.
        #expect(same["toAccount"].error == "account 1 (\(Demo.current)) cannot be chosen here — choose one of: 2) \(Demo.savings), 4) \(Demo.usd)")

        // By list number, the same for the whole run: 2 is the savings account in both pickers; 1 (the source)
        // is not offered as the destination and is refused, never shifted onto another account.
        let byPosition = try sandbox.describe("transfer.own", ["fromAccount=1", "toAccount=2", "amount=10"])
        #expect(byPosition["fromAccount"].value == Demo.current)
        #expect(byPosition["toAccount"].value == Demo.savings)
        #expect(byPosition.ready)
        let shifted = try sandbox.describe("transfer.own", ["fromAccount=1", "toAccount=1", "amount=10"])
        #expect(shifted["toAccount"].value == nil)
        #expect(shifted["toAccount"].error?.hasPrefix("account 1 (\(Demo.current)) cannot be chosen here") == true)
        #expect(shifted.ready == false)
    }

    @Test("transfer.own: choosing the to account as the new from account marks the form")
    func sameAccountLater() throws {
        let form = try HostSandbox().describe("transfer.own", ["fromAccount=\(Demo.current)", "toAccount=\(Demo.savings)",
                                                               "fromAccount=\(Demo.savings)", "amount=10"])
        #expect(form.formError == "Choose two different accounts")
        #expect(form.ready == false)
        // The plugin's own mark in the reader's language (rbs.run-texts/1).
        let russian = try HostSandbox().describe("transfer.own", ["fromAccount=\(Demo.current)", "toAccount=\(Demo.savings)",
                                                                  "fromAccount=\(Demo.savings)", "amount=10"], language: "ru")
        #expect(russian.formError == "Выберите два разных счёта")
    }

    @Test("transfer.own: RUB → USD is no form error; `run` converts at the bank's imported rate, `journal show` and verify show both legs")
    func currencies() throws {
        let sandbox = try HostSandbox()
        let form = try sandbox.describe("transfer.own", ["fromAccount=\(Demo.current)", "toAccount=\(Demo.usd)", "amount=10000"])
        #expect(form.formError == nil)
        #expect(form.ready)
        try sandbox.initKeys()
        let noRates = try sandbox.run("transfer.own", ["fromAccount=\(Demo.current)", "toAccount=\(Demo.usd)", "amount=10000.00"])
        #expect(noRates.report.status != "posted")
        #expect(noRates.report.errors.map(\.message) == ["the bank would refuse this document: the bank has no exchange rate for USD: "
            + "the bank must import the day's rates first — nothing was signed and no one-time code was used"])

        let file = Repo.root.appendingPathComponent("Tests/Fixtures/rates/XML_daily.xml").path
        #expect(try sandbox.host(["rates", "show", "--lang", "ru"]).stdout == "курсов ещё нет: rbs-host rates import ФАЙЛ --margin ПРОЦЕНТ\n")
        let imported = try sandbox.host(["rates", "import", file, "--margin", "1.5"])
        #expect(imported.status == 0, "\(imported)")
        // The operator's language: the headings in Russian, the rates as kept.
        let russian = try sandbox.host(["rates", "show", "--lang", "ru"]).stdout.split(separator: "\n")
            .map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
        #expect(russian.first == "ВАЛЮТА ДАТА КУРС ЦБ БАНК ПОКУПАЕТ БАНК ПРОДАЁТ НАЗВАНИЕ", "\(russian)")
        #expect(russian.contains { $0.hasPrefix("USD ") }, "\(russian)")
        let (report, _) = try sandbox.run("transfer.own", ["fromAccount=\(Demo.current)", "toAccount=\(Demo.usd)", "amount=10000.00"])
        #expect(report.status == "posted")
        let fields = try #require(report.document?.fields)
        #expect([fields["amount"], fields["currency"], fields["creditAmount"], fields["creditCurrency"], fields["rate"], fields["ratePair"]]
                == ["10000.00", "RUB", "106.50", "USD", "93.893387", "USD/RUB"])
        let show = try sandbox.host(["journal", "show", "1"])
        let lines = show.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
        // Right after the operation's header rows, as the review showed them: the rate's time is the import's (the
        // sandbox's clock then, one code step before the run).
        let conversion = try #require(lines.firstIndex(of: "Debited: 10,000.00 RUB"), "\(show.stdout)")
        #expect(Array(lines[conversion...].prefix(4)) == ["Debited: 10,000.00 RUB", "Credited: 106.50 USD",
                                                          "Exchange rate: 1 USD = 93.893387 RUB", "Rate as of: 28.05.2026 20:27:10 UTC"])
        #expect(try sandbox.host(["verify"]).status == 0)
    }

    @Test("transfer.own: an amount over the balance marks amount; the whole balance is fine")
    func overBalance() throws {
        let sandbox = try HostSandbox()
        let over = try sandbox.describe("transfer.own", ["fromAccount=\(Demo.current)", "toAccount=\(Demo.savings)",
                                                         "amount=150000.01"])
        #expect(over["amount"].value == "150000.01")
        let message = try #require(over["amount"].error)
        #expect(message.hasPrefix("The amount is more than the balance of 150000"), "\(message)")
        #expect(message.hasSuffix("RUB"))
        #expect(over.ready == false)
        let russian = try sandbox.describe("transfer.own", ["fromAccount=\(Demo.current)", "toAccount=\(Demo.savings)",
                                                            "amount=150000.01"], language: "ru")
        #expect(russian["amount"].error == "Сумма больше остатка: 150 000,00 RUB")
        let exact = try sandbox.describe("transfer.own", ["fromAccount=\(Demo.current)", "toAccount=\(Demo.savings)",
                                                          "amount=150000"])
        #expect(exact["amount"].error == nil)
        #expect(exact.ready)
        // Switching to the richer account clears the mark.
        let switched = try sandbox.describe("transfer.own", ["fromAccount=\(Demo.current)", "toAccount=\(Demo.savings)",
                                                             "amount=200000", "fromAccount=\(Demo.savings)",
                                                             "toAccount=\(Demo.current)"])
        #expect(switched["amount"].error == nil)
        #expect(switched.ready)
    }

    @Test("transfer.own: every atom required", arguments: [0, 1, 2])
    func transferRequired(missing: Int) throws {
        var assignments = ["fromAccount=\(Demo.current)", "toAccount=\(Demo.savings)", "amount=10"]
        assignments.remove(at: missing)
        #expect(try HostSandbox().describe("transfer.own", assignments).ready == false)
    }

    @Test("card.block: Luhn, the card scheme and its length; the spaced and the masked form are accepted; a valid number not of the signer's cards is named as such", arguments: [
        ("4111111111111111", "own"), ("2200000000000004", "own"), ("4111 1111 1111 1111", "own"), ("4111 11** **** 1111", "own"),
        ("5500000000000004", "5500 00** **** 0004"), ("4222222222222", "4222 22** *222 2"), ("2221 0000 0000 0009", "2221 00** **** 0009"),
        ("4111111111111112", "bad"), ("3530111333300000", "bad"), ("6011111111111117", "bad"),
        ("411111111111116", "bad"), ("4111  1111 1111 1111", "bad"), ("4111-1111-1111-1111", "bad"), ("4111 11** **1* 1111", "bad"),
    ])
    func luhn(card: String, verdict: String) throws {
        let form = try HostSandbox().describe("card.block", ["cardNumber=\(card)", "reason=lost", "confirm=yes"])
        #expect(form["cardNumber"].value == card)
        switch verdict {
        case "own": #expect(form["cardNumber"].error == nil)
        case "bad":
            #expect(form["cardNumber"].error
                    == "Check the card number: a Mir, Visa or Mastercard number of the right length with a correct check digit")
        default:
            #expect(form["cardNumber"].error == "\(verdict) is not one of your cards: yours are 4111 11** **** 1111, 2200 00** **** 0004")
        }
        #expect(form.ready == (verdict == "own"))
    }

    @Test("card.block lists the signer's cards; card.unblock refuses an active card before anything is signed")
    func ownCards() throws {
        let sandbox = try HostSandbox()
        let form = try sandbox.describe("card.unblock", ["cardNumber=4111 11** **** 1111", "confirm=yes"])
        #expect(form["yourCards"].caption == "Your cards: 4111 11** **** 1111 (active), 2200 00** **** 0004 (active)")
        #expect(form["cardNumber"].error == "4111 11** **** 1111 is not blocked: there is nothing to unblock")
        #expect(!form.ready)
        // What the plugin writes while the form runs, in Russian under --lang ru (rbs.run-texts/1).
        let russian = try sandbox.describe("card.unblock", ["cardNumber=4111 11** **** 1111", "confirm=yes"], language: "ru")
        #expect(russian["yourCards"].caption == "Ваши карты: 4111 11** **** 1111 (активна), 2200 00** **** 0004 (активна)")
        #expect(russian["cardNumber"].error == "карта 4111 11** **** 1111 не заблокирована: разблокировать нечего")
    }

    @Test("card.block: 13 to 23 characters (digits in groups)")
    func cardShape() throws {
        let sandbox = try HostSandbox()
        #expect(try sandbox.describe("card.block", ["cardNumber=411111111111"])["cardNumber"].error?.hasPrefix("too short") == true)
        #expect(try sandbox.describe("card.block", ["cardNumber=4111 1111 1111 1111 1111"])["cardNumber"].error?.hasPrefix("too long") == true)
        #expect(try sandbox.describe("card.block", ["cardNumber=4111x11111111111"])["cardNumber"].error
                == "Check the card number: a Mir, Visa or Mastercard number of the right length with a correct check digit")
    }

    @Test("card.block: the confirmation toggle must be on")
    func confirm() throws {
        let sandbox = try HostSandbox()
        let base = ["cardNumber=4111111111111111", "reason=lost"]
        let off = try sandbox.describe("card.block", base + ["confirm=no"])
        #expect(off["confirm"].value == "no")
        #expect(off["confirm"].error == "Turn the confirmation on to block the card")
        #expect(off.ready == false)
        // Not answered yet: off, not ready, but no error before anyone touched it (a fresh form opens without one).
        let untouched = try sandbox.describe("card.block", base)
        #expect(untouched["confirm"].value == "no")
        #expect(untouched["confirm"].error == nil)
        #expect(untouched.ready == false)
        let on = try sandbox.describe("card.block", base + ["confirm=да"])
        #expect(on["confirm"].value == "yes")
        #expect(on["confirm"].error == nil)
        #expect(on.ready)
        let bad = try sandbox.describe("card.block", base + ["confirm=maybe"])
        #expect(bad["confirm"].error == "'maybe': answer yes or no (да/нет)")
        #expect(bad.ready == false)
    }

    @Test("card.block: the reason by value or by title (a script never picks by list number)", arguments: [
        ("lost", "lost"), ("stolen", "stolen"), ("compromised", "compromised"), ("other", "other"), ("Украдена", "stolen"),
        ("скомпр", "compromised"),
    ])
    func reason(input: String, value: String) throws {
        let form = try HostSandbox().describe("card.block", ["cardNumber=4111111111111111", "reason=\(input)", "confirm=yes"])
        #expect(form["reason"].value == value)
        #expect(form["reason"].error == nil)
        #expect(form.ready)
    }

    @Test("card.block: an unknown reason is refused; none at all is required")
    func reasonRefused() throws {
        let sandbox = try HostSandbox()
        let refused = try sandbox.describe("card.block", ["reason=5"])
        #expect(refused["reason"].value == nil)
        #expect(refused["reason"].error == "'5' is not one of the options — type the option's value or its title: lost (Lost), stolen (Stolen), compromised (Compromised), other (Other)")
        #expect(try sandbox.describe("card.block", ["cardNumber=4111111111111111", "confirm=yes"]).ready == false)
    }

    @Test("money: what an amount in RUB accepts", arguments: [
        ("1 500,50", "1500.50"), ("1,500.50", "1500.50"), ("1.500,50", "1500.50"), ("1500", "1500.00"), ("12.3", "12.30"),
        ("0,01", "0.01"),
    ])
    func moneyAccepted(input: String, value: String) throws {
        let form = try HostSandbox().describe("transfer.own", ["amount=\(input)"])
        #expect(form["amount"].value == value)
        #expect(form["amount"].error == nil)
    }

    @Test("money: what an amount in RUB refuses", arguments: [
        ("1234.567", "1234.567: RUB has 2 digits after the decimal separator, not more (amounts are never rounded)"),
        ("1,500", "1,500 is ambiguous: it reads as 1500 (a group separator) or as 1,5 (a decimal separator); type 1500 or 1,5"),
        ("1.500", "1.500 is ambiguous: it reads as 1500 (a group separator) or as 1,5 (a decimal separator); type 1500 or 1,5"),
        ("1e3", "1e3: write the number in full; exponents are not accepted"),
        ("-5", "-5: an amount must be positive"),
        ("abc", "'a' at position 1 is not allowed: an amount takes digits, spaces, ',' and '.' only"),
    ])
    func moneyRefused(input: String, message: String) throws {
        let sandbox = try HostSandbox()
        let form = try sandbox.describe("transfer.own", ["amount=\(input)"])
        #expect(form["amount"].value == nil)
        #expect(form["amount"].error == message)
        // The same in pay.pp.quick's amount.
        let quick = try sandbox.describe("pay.pp.quick", ["amount=\(input)"])
        #expect(quick["amount"].error == message)
    }

    @Test("money: a refused amount after a good one blocks the form")
    func moneyRefusedAfterGood() throws {
        let form = try HostSandbox().describe("pay.pp.quick", DescribeQuickTests.complete + ["amount=12,345"])
        #expect(form["amount"].error == "12,345 is ambiguous: it reads as 12345 (a group separator) or as 12,345 (a decimal separator); type 12345 or 12,345")
        #expect(form.ready == false)
    }
}
