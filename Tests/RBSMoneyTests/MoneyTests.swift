import Foundation
import RBSMoney
import Testing

@Suite struct MoneyTests {
    @Test func exactFromDecimalAndPlainText() throws {
        let money = try Money(Decimal(string: "1500.5")!, currency: .rub)
        #expect(money.minorUnits == 150050)
        #expect(money.plain == "1500.50")
        #expect(money.description == "1500.50 RUB")
        #expect(money.amount == Decimal(string: "1500.50"))
        #expect(try Money(plain: "7", currency: Currency(code: "JPY")!).plain == "7")
    }

    @Test func moreDigitsThanTheCurrencyHasIsAnErrorNotARounding() {
        #expect(throws: MoneyError.tooManyMinorDigits("0.005", currency: .rub)) {
            try Money(Decimal(string: "0.005")!, currency: .rub)
        }
        #expect(throws: MoneyError.tooManyMinorDigits("1.5", currency: Currency(code: "JPY")!)) {
            try Money(plain: "1.5", currency: Currency(code: "JPY")!)
        }
        #expect(throws: MoneyError.notPlainDecimal("1,5")) { try Money(plain: "1,5", currency: .rub) }
        #expect(throws: MoneyError.tooLarge("12345678901234567.00")) {
            try Money(plain: "12345678901234567.00", currency: .rub)
        }
    }

    /// No money path rounds: the sources have no rounding calls at all (`.bankers`, `.plain` rounding modes,
    /// `NSDecimalRound`, `rounded(`) — but where a value that is not money is rounded, named here with the reason.
    static let roundsNoMoney = [
        // The bank's exchange rate per unit, kept to 6 decimals when it is imported (a rate quoted per 100 units
        // keeps its digits per unit); an amount is never rounded by it.
        "ExchangeRate.swift",
        // A conversion between own accounts (issue #34): the one place an amount is rounded, by a stated rule — the
        // credited amount down to its currency's minor units (the bank never credits more than the rate buys), a
        // cross rate half-up to 6 decimals — and what it gives is in the review and the signed document.
        "Conversion.swift",
        // The rates import's refusal of a rate that moved too far: the change's size in percent, cut to 2 decimals
        // for its message; no amount, no rate kept.
        "Ledger+Rates.swift",
    ]

    @Test func noSourceFileRoundsMoney() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
        #expect(files.count > 50)
        for file in files where !Self.roundsNoMoney.contains(file.lastPathComponent) {
            let text = try String(contentsOf: file, encoding: .utf8)
            for needle in ["NSDecimalRound", ".bankers", "roundingMode", "NSDecimalNumberHandler"] {
                #expect(!text.contains(needle), "\(file.lastPathComponent) contains \(needle)")
            }
        }
    }
}
