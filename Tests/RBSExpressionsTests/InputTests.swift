import Foundation
import Testing
@testable import RBSExpressions

private func dec(_ s: String) -> Decimal { Decimal(string: s, locale: Locale(identifier: "en_US_POSIX")) ?? .nan }

private func moneyError(_ text: String, _ currency: String = "RUB") -> InputError? {
    do {
        _ = try Money.parse(text, currency: currency)
        return nil
    } catch {
        return error
    }
}

@Suite("Currency")
struct CurrencyTests {
    @Test func knowsMinorUnitsOfCommonCurrencies() {
        #expect(Currency.minorUnits("RUB") == 2)
        #expect(Currency.minorUnits("JPY") == 0)
        #expect(Currency.minorUnits("KWD") == 3)
        #expect(Currency.minorUnits("BHD") == 3)
        #expect(Currency.minorUnits("usd") == 2)
        #expect(Currency.minorUnits("XXX") == nil)
    }
}

@Suite("Money")
struct MoneyTests {
    @Test func acceptsTheUsualWaysOfWritingAnAmount() throws {
        #expect(try Money.parse("1500.50", currency: "RUB") == dec("1500.50"))
        #expect(try Money.parse("1 500,50", currency: "RUB") == dec("1500.50"))
        #expect(try Money.parse("1\u{00A0}500,50", currency: "RUB") == dec("1500.50"))
        #expect(try Money.parse("1,500.50", currency: "USD") == dec("1500.50"))
        #expect(try Money.parse("1.500,50", currency: "EUR") == dec("1500.50"))
        #expect(try Money.parse("1500", currency: "RUB") == dec("1500"))
        #expect(try Money.parse("0.07", currency: "RUB") == dec("0.07"))
        #expect(try Money.parse(" 12 ", currency: "JPY") == dec("12"))
        #expect(try Money.parse("1.234", currency: "KWD") == dec("1.234"))
    }

    @Test func loneCommaBeforeThreeDigitsGroupsOtherwiseItIsDecimal() throws {
        #expect(try Money.parse("1,500", currency: "RUB") == dec("1500"))
        #expect(try Money.parse("1,500,000", currency: "RUB") == dec("1500000"))
        #expect(try Money.parse("1,5", currency: "RUB") == dec("1.5"))
        #expect(try Money.parse("1,50", currency: "RUB") == dec("1.50"))
    }

    @Test func resultIsExactWithoutBinaryFloatingPoint() throws {
        let amount = try Money.parse("0.10", currency: "RUB") + Money.parse("0.20", currency: "RUB")
        #expect(amount == dec("0.3"))
        #expect(try Money.parse("999999999999999999.99", currency: "RUB") == dec("999999999999999999.99"))
    }

    @Test func refusesMoreDecimalsThanTheCurrencyHas() {
        #expect(moneyError("12.345") == .tooManyDecimals(text: "12.345", currency: "RUB", places: 2))
        #expect(moneyError("12.345")?.description == "12.345: RUB has 2 decimal places")
        #expect(moneyError("12.5", "JPY")?.description == "12.5: JPY has no decimal places")
    }

    @Test func refusesMalformedAmounts() {
        #expect(moneyError("1e3") == .exponent(text: "1e3"))
        #expect(moneyError("") == .empty)
        #expect(moneyError("   ") == .empty)
        #expect(moneyError("12a") == .invalidCharacter("a", position: 3, expected: "an amount takes digits, ',' and '.' only"))
        #expect(moneyError("1.5.0") == .multipleDecimalSeparators(text: "1.5.0"))
        #expect(moneyError("1,500,50.5,0") == .multipleDecimalSeparators(text: "1,500,50.5,0"))
        #expect(moneyError("-5") == .negativeAmount(text: "-5"))
        #expect(moneyError("0") == .zeroAmount)
        #expect(moneyError("0.00") == .zeroAmount)
        #expect(moneyError("15 00") == .misplacedGroupSeparator(text: "15 00"))
        #expect(moneyError("1.") == .missingDigits(text: "1."))
        #expect(moneyError(".5") == .missingDigits(text: ".5"))
        #expect(moneyError("5", "XYZ") == .unknownCurrency("XYZ"))
        #expect(moneyError("1234567890123456789") == .tooLarge(text: "1234567890123456789"))
    }
}

@Suite("InputParser")
struct InputParserTests {
    private func failure(_ text: String, as type: InputType, min: Int? = nil, max: Int? = nil) -> InputError? {
        do {
            _ = try InputParser.parse(text, as: type, minLength: min, maxLength: max)
            return nil
        } catch {
            return error
        }
    }

    @Test func emptyInputIsNull() throws {
        #expect(try InputParser.parse("", as: .digits) == .null)
        #expect(try InputParser.parse("  ", as: .amount(currency: "RUB")) == .null)
        #expect(try InputParser.parse(" ", as: .text) == .string(" "))
    }

    @Test func digitsRefuseALetterNamingItAndItsPosition() throws {
        #expect(try InputParser.parse("0042", as: .digits) == .string("0042"))
        let error = failure("12A4", as: .digits)
        #expect(error == .invalidCharacter("A", position: 3, expected: "digits only"))
        #expect(error?.description == "digits only: 'A' at position 3 is not allowed")
    }

    @Test func lengthLimitsApply() {
        #expect(failure("123", as: .digits, min: 4) == .tooShort(length: 3, minimum: 4))
        #expect(failure("12345", as: .text, max: 4) == .tooLong(length: 5, maximum: 4))
        #expect(failure("1234", as: .digits, min: 4, max: 4) == nil)
    }

    @Test func numbersAndAmountsBecomeDecimals() throws {
        #expect(try InputParser.parse("-1 234,5", as: .number) == .decimal(dec("-1234.5")))
        #expect(try InputParser.parse("1 500,50", as: .amount(currency: "RUB")) == .decimal(dec("1500.50")))
        #expect(failure("12.345", as: .amount(currency: "RUB")) != nil)
        #expect(failure("1,2.3.4", as: .number) != nil)
    }

    @Test func datesMustBeRealCalendarDays() throws {
        #expect(try InputParser.parse("2024-02-29", as: .date) == .string("2024-02-29"))
        #expect(failure("2023-02-29", as: .date) != nil)
        #expect(failure("1900-02-29", as: .date) != nil)
        #expect(try InputParser.parse("2000-02-29", as: .date) == .string("2000-02-29"))
        #expect(failure("2024-13-01", as: .date) != nil)
        #expect(failure("2024-04-31", as: .date) != nil)
        #expect(failure("24-01-01", as: .date) != nil)
        #expect(failure("2024/01/01", as: .date) != nil)
    }

    @Test func controlCharactersAndBadUTF8AreRefused() throws {
        #expect(failure("ab\u{7}c", as: .text) == .controlCharacter(scalar: 7, position: 3))
        #expect(failure("ab\u{7}c", as: .text)?.description.contains("U+0007") == true)
        #expect(try InputParser.parse(bytes: Array("Привет".utf8), as: .text) == .string("Привет"))
        do {
            _ = try InputParser.parse(bytes: [0x41, 0x42, 0xFF, 0x43], as: .text)
            Issue.record("invalid UTF-8 was accepted")
        } catch {
            #expect(error == .invalidUTF8(offset: 2))
        }
    }
}
