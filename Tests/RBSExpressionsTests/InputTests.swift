import Foundation
import RBSMoney
import Testing
@testable import RBSExpressions

private func dec(_ s: String) -> Decimal { Decimal(string: s, locale: Locale(identifier: "en_US_POSIX")) ?? .nan }

@Suite("InputParser amounts")
struct InputParserAmountTests {
    private func amount(_ text: String, _ currency: String = "RUB") throws(InputError) -> ExprValue {
        try InputParser.parse(text, as: .amount(currency: currency))
    }

    @Test func amountsAreReadByAmountTextExactly() throws {
        #expect(try amount("1 500,50") == .decimal(dec("1500.50")))
        #expect(try amount("1,500.50", "USD") == .decimal(dec("1500.50")))
        #expect(try amount("1,5") == .decimal(dec("1.5")))
        #expect(try amount("1234.567", "KWD") == .decimal(dec("1234.567")))
        #expect(try amount("0,10") == .decimal(dec("0.1")))
    }

    @Test func ambiguousAmountsAndExtraDigitsAreRefused() {
        #expect(throws: InputError.self) { try amount("1,500") }
        #expect(throws: InputError.self) { try amount("1.500") }
        do {
            _ = try amount("1500,345")
            Issue.record("1500,345 RUB was accepted")
        } catch {
            #expect(error == .amount(.tooManyMinorDigits(text: "1500,345", currency: .rub)))
        }
        // BHD is a currency for the form and the ledger alike (one table).
        #expect(throws: Never.self) { try amount("1,5", "BHD") }
        do {
            _ = try amount("5", "XYZ")
            Issue.record("XYZ was accepted")
        } catch {
            #expect(error == .currency(.unknown("XYZ")))
        }
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
