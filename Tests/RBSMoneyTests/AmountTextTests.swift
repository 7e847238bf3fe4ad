import Foundation
import RBSMoney
import Testing

@Suite struct AmountTextTests {
    private func rub(_ text: String, _ locale: AmountLocale = .ru) throws -> String {
        try AmountText.parse(text, currency: .rub, locale: locale).plain
    }

    private func error(_ text: String, _ currency: Currency = .rub, _ locale: AmountLocale = .ru) -> AmountInputError? {
        do {
            _ = try AmountText.parse(text, currency: currency, locale: locale)
            return nil
        } catch {
            return error
        }
    }

    @Test func russianForms() throws {
        #expect(try rub("1 500,50") == "1500.50")
        #expect(try rub("1\u{00A0}500,50") == "1500.50")
        #expect(try rub("1\u{202F}500,50") == "1500.50")
        #expect(try rub("1 000 000") == "1000000.00")
        #expect(try rub("1500,5") == "1500.50")
        #expect(try rub("0,07") == "0.07")
        #expect(try rub("  12  ") == "12.00")
    }

    @Test func englishForms() throws {
        #expect(try rub("1,500.50", .en) == "1500.50")
        #expect(try rub("1,500,000", .en) == "1500000.00")
        #expect(try rub("1500.50", .en) == "1500.50")
        #expect(try rub("1.5", .en) == "1.50")
    }

    @Test func formsWithOneReadingAreAcceptedInEitherLocale() throws {
        for locale in AmountLocale.allCases {
            #expect(try rub("1,5", locale) == "1.50")
            #expect(try rub("1.50", locale) == "1.50")
            #expect(try rub("1.500,50", locale) == "1500.50")
            #expect(try rub("1.500.000", locale) == "1500000.00")
            #expect(try rub("1500,00", locale) == "1500.00")
        }
    }

    @Test func ambiguousFormsAreRefusedWithBothReadings() {
        for locale in AmountLocale.allCases {
            for text in ["1,500", "1.500", "12,345", "999.999"] {
                guard case .ambiguous(let shown, let grouped, let decimal, _) = error(text, .rub, locale) else {
                    Issue.record("\(text) (\(locale)) was not refused as ambiguous")
                    continue
                }
                #expect(shown == text)
                #expect(grouped == Decimal(string: text.filter(\.isNumber)))
                #expect(decimal == Decimal(string: text.replacingOccurrences(of: ",", with: ".")))
            }
        }
        let message = error("1,500", .rub, .ru)?.description ?? ""
        #expect(message == "1,500 is ambiguous: it reads as 1500 (a group separator) or as 1,5 (a decimal separator); type 1500 or 1,5")
        let english = error("1.500", .rub, .en)?.description ?? ""
        #expect(english == "1.500 is ambiguous: it reads as 1500 (a group separator) or as 1.5 (a decimal separator); type 1500 or 1.5")
        // Even in a currency with three minor digits.
        if case .ambiguous = error("1,500", Currency(code: "KWD")!, .en) {} else { Issue.record("KWD 1,500 accepted") }
    }

    @Test func extraMinorDigitsAreAnErrorNeverARounding() {
        // A leading zero cannot start a digit group, so 0,500 has one reading: three minor digits.
        #expect(error("0,500") == .tooManyMinorDigits(text: "0,500", currency: .rub))
        #expect(error("1500,555") == .tooManyMinorDigits(text: "1500,555", currency: .rub))
        #expect(error("1 500,505") == .tooManyMinorDigits(text: "1 500,505", currency: .rub))
        #expect(error("0,001") == .tooManyMinorDigits(text: "0,001", currency: .rub))
        #expect(error("1500.5000") == .tooManyMinorDigits(text: "1500.5000", currency: .rub))
        let yen = Currency(code: "JPY")!
        #expect(error("100,5", yen) == .tooManyMinorDigits(text: "100,5", currency: yen))
        let dinar = Currency(code: "BHD")!
        #expect((try? AmountText.parse("1,5", currency: dinar, locale: .ru).plain) == "1.500")
        #expect(error("1.5005", dinar) == .tooManyMinorDigits(text: "1.5005", currency: dinar))
        #expect(error("1.5005", dinar)?.description.contains("never rounded") == true)
    }

    @Test func malformedInputIsRefusedWithAReason() {
        #expect(error("") == .empty)
        #expect(error("   ") == .empty)
        #expect(error("1e3") == .exponent(text: "1e3"))
        #expect(error("-5") == .negative(text: "-5"))
        #expect(error("0") == .zero)
        #expect(error("0,00") == .zero)
        #expect(error("15 00") == .misplacedGroupSeparator(text: "15 00"))
        #expect(error("1 500.000,50") == .misplacedGroupSeparator(text: "1 500.000,50"))
        #expect(error("1.") == .missingDigits(text: "1."))
        #expect(error(",5") == .missingDigits(text: ",5"))
        #expect(error("1,500,50.5,0") == .multipleDecimalSeparators(text: "1,500,50.5,0"))
        #expect(error("12a") == .invalidCharacter("a", position: 3))
        #expect(error("1234567890123456789") == .tooLarge(text: "1234567890123456789"))
    }

    @Test("a character that would not show as itself is named by its code points in the message, never echoed")
    func invisibleCharactersNamed() {
        #expect(AmountInputError.invalidCharacter("a", position: 3).description
                == "'a' at position 3 is not allowed: an amount takes digits, spaces, ',' and '.' only")
        // A right-to-left override would reverse the rest of the message on the terminal.
        #expect(AmountInputError.invalidCharacter("\u{202E}", position: 2).description
                == "U+202E at position 2 is not allowed: an amount takes digits, spaces, ',' and '.' only")
        #expect(UnicodeText.quoted("5\u{301}") == "U+0035 U+0301")
        #expect(UnicodeText.quoted("\u{2028}") == "U+2028")
        #expect(UnicodeText.quoted("\u{1B}", open: "«", close: "»") == "U+001B")
        #expect(UnicodeText.quoted(" ") == "' '" && UnicodeText.quoted("Б", open: "«", close: "»") == "«Б»")
    }

    @Test func numbersMayBeNegative() throws {
        #expect(try AmountText.parseNumber("-1 500,25", locale: .ru) == Decimal(string: "-1500.25"))
        #expect(throws: AmountInputError.self) { try AmountText.parseNumber("1,500", locale: .ru) }
    }

    @Test func formattingGroupsAndKeepsEveryMinorDigit() throws {
        let money = try Money(plain: "1234567.5", currency: .rub)
        #expect(money.formatted(.ru) == "1\u{00A0}234\u{00A0}567,50")
        #expect(money.formatted(.en) == "1,234,567.50")
        #expect(try Money(plain: "-12000", currency: Currency(code: "JPY")!).formatted(.en) == "-12,000")
        #expect(try Money(plain: "0.005", currency: Currency(code: "KWD")!).formatted(.ru) == "0,005")
        // What is formatted parses back to the same money.
        for locale in AmountLocale.allCases {
            #expect(try AmountText.parse(money.formatted(locale), currency: .rub, locale: locale) == money)
        }
    }

    @Test("trimmed takes off exactly what Foundation's whitespace trimming does: tabs, space separators and U+200B, not newlines")
    func trimmedAsFoundation() {
        let texts = ["", " ", "\t", "1 500,50", "  1 500,50\t", "\u{00A0}100\u{00A0}", "\u{3000}12\u{2009}", "\n5\n", "\u{200B}7\u{200B}",
                     " \u{301}x ", "\u{202F}\u{205F}\u{1680} a b \u{2000}", "x", "\t\t\u{00A0}"]
        for text in texts {
            #expect(text.trimmed == text.trimmingCharacters(in: .whitespaces), "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
        }
        #expect("\u{00A0} 1 500,50 \t".trimmed == "1 500,50")
        #expect("\n5\n".trimmed == "\n5\n")
        // Every scalar Foundation's set holds is taken off, and no other.
        for value in 0...0x3000 {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = "\(scalar)x\(scalar)"
            #expect(text.trimmed == text.trimmingCharacters(in: .whitespaces), "U+\(String(value, radix: 16))")
        }
    }
    /// The same text read the quick way (plain digits straight from the bytes) and character by character.
    private func bothReadings(_ text: String, _ currency: Currency, _ locale: AmountLocale)
        -> (quick: Result<Money, AmountInputError>, full: Result<Money, AmountInputError>) {
        func reading(_ quick: Bool) -> Result<Money, AmountInputError> {
            do { return .success(try AmountText.parse(text, currency: currency, locale: locale, quickReading: quick)) } catch {
                return .failure(error)
            }
        }
        return (reading(true), reading(false))
    }

    @Test("plain digits read quickly give what the character-by-character reading gives, over tricky and generated texts")
    func quickReadingIsTheSame() throws {
        let jpy = try Currency.named("JPY")
        let tricky = ["1,500", "1 500,00", "1.500,00", "-0", "0", "00", "007", "0,07", "0.5", "00.50", "١٢٣", "١٢٣.٥",
                      String(repeating: "9", count: 30), String(repeating: "1", count: 18), String(repeating: "1", count: 19),
                      "0" + String(repeating: "1", count: 18), "1." + String(repeating: "0", count: 40), "", " ", "  100  ",
                      "\u{00A0}100", "100\u{00A0}", "1\u{00A0}500", "1\u{202F}500,5", "1 500", "100.", ".5", ",5", "1..5",
                      "1.5.5", "1,5", "12,34", "123,4567", "1.500", "0.500", "0,500", "1234.567", "1e3", "+5", "5-", "−5",
                      "100\t", "\u{200B}100", "1\u{301}00", "１００", "100.00", "200.50", "100", "1.5000", "99.999"]
        var generated: [String] = []
        let alphabet: [Character] = ["0", "1", "9", ".", ",", " "]
        func grow(_ prefix: String) {
            generated.append(prefix)
            guard prefix.count < 5 else { return }
            for c in alphabet { grow(prefix + String(c)) }
        }
        grow("")
        for text in tricky + generated {
            for currency in [Currency.rub, jpy] {
                for locale in [AmountLocale.ru, .en] {
                    let (quick, full) = bothReadings(text, currency, locale)
                    #expect(quick == full, "\(text) \(currency.code) \(locale)")
                }
            }
        }
        // What the table holds, spelled out for the commonest and the trickiest.
        #expect(try rub("200.50") == "200.50")
        #expect(try rub("0,07") == "0.07")
        #expect(try rub("007") == "7.00")
        #expect(error("-0") == .negative(text: "-0"))
        #expect(error("١٢٣") == .invalidCharacter("١", position: 1))
        #expect(error(String(repeating: "9", count: 30)) == .tooLarge(text: String(repeating: "9", count: 30)))
        let decimal = try #require(Decimal(string: "99.999"))
        #expect(error("99.999") == .ambiguous(text: "99.999", grouped: 99999, decimal: decimal, locale: .ru))
        #expect(error("1.5000") == .tooManyMinorDigits(text: "1.5000", currency: .rub))
        #expect(try rub("1\u{00A0}500,00") == "1500.00")
    }
}
