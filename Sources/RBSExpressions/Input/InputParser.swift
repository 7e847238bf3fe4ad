import Foundation
import RBSMoney

/// Checks and converts what a person entered into a field's value.
public enum InputParser {
    /// Parses `text` as `type`.
    ///
    /// Empty input (or only spaces, except for `.text`) is `.null`: an empty field; whether it is required is a
    /// valid-if's business. `minLength` / `maxLength` count characters of non-empty input.
    /// Results: `.text` and `.digits` → `.string`; `.number` and `.amount` → `.decimal`;
    /// `.date` → `.string` in ISO 8601 `YYYY-MM-DD`.
    /// Amounts and numbers are read by ``AmountText`` (ambiguous forms such as `1,500` are refused, with both
    /// readings; `locale` spells them).
    public static func parse(_ text: String, as type: InputType, minLength: Int? = nil,
                             maxLength: Int? = nil, locale: AmountLocale = .ru) throws(InputError) -> ExprValue {
        for (i, scalar) in text.unicodeScalars.enumerated() where scalar.properties.generalCategory == .control {
            let position = text.unicodeScalars.prefix(i).count + 1
            throw .controlCharacter(scalar: scalar.value, position: position)
        }
        let isBlank = type == .text ? text.isEmpty : text.trimmed.isEmpty
        if isBlank { return .null }
        let length = text.count
        if let minLength, length < minLength { throw .tooShort(length: length, minimum: minLength) }
        if let maxLength, length > maxLength { throw .tooLong(length: length, maximum: maxLength) }
        switch type {
        case .text:
            return .string(text)
        case .digits:
            for (i, c) in text.enumerated() where !(c.isASCII && c.isNumber) {
                throw .invalidCharacter(c, position: i + 1, expected: "digits only")
            }
            return .string(text)
        case .number:
            do throws(AmountInputError) {
                return .decimal(try AmountText.parseNumber(text, locale: locale))
            } catch {
                throw .amount(error)
            }
        case .amount(let code):
            let currency: Currency
            do throws(CurrencyError) { currency = try Currency.named(code) } catch { throw .currency(error) }
            do throws(AmountInputError) {
                return .decimal(try AmountText.parse(text, currency: currency, locale: locale).amount)
            } catch {
                throw .amount(error)
            }
        case .date:
            return .string(try parseDate(text.trimmed))
        }
    }

    /// Parses raw bytes from a terminal or plugin: refuses invalid UTF-8, then parses as ``parse(_:as:minLength:maxLength:)``.
    public static func parse(bytes: [UInt8], as type: InputType, minLength: Int? = nil,
                             maxLength: Int? = nil, locale: AmountLocale = .ru) throws(InputError) -> ExprValue {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var scalars = String.UnicodeScalarView()
        var consumed = 0
        decoding: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                scalars.append(scalar)
                consumed += UTF8.width(scalar)
            case .emptyInput:
                break decoding
            case .error:
                throw .invalidUTF8(offset: consumed)
            }
        }
        return try parse(String(scalars), as: type, minLength: minLength, maxLength: maxLength, locale: locale)
    }

    /// Checks `YYYY-MM-DD` and that the day exists in the (proleptic Gregorian) calendar: the money module's one
    /// reader of day text, in its wire shape.
    static func parseDate(_ text: String) throws(InputError) -> String {
        do throws(CalendarDayError) {
            return try CalendarDay.parse(text, .iso).iso
        } catch {
            throw .invalidDate(text: text, reason: error.reason)
        }
    }
}
