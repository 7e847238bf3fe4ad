import Foundation

/// Parses amounts as people type them, exactly, into `Decimal` (never through `Double`).
///
/// Accepted: `1500.50`, `1 500,50` (space, NBSP or narrow NBSP grouping, decimal comma), `1,500.50`,
/// `1.500,50`, `1500`, `0.07`. Rules:
/// - Spaces group digits; when both `,` and `.` occur, the last one is the decimal separator and the other groups.
/// - A lone comma followed by exactly three digits, with no other separator, groups: `1,500` is 1500;
///   any other lone comma is a decimal comma: `1,5` is 1.5. Several commas in 3-digit groups group: `1,500,000`.
/// - A lone dot is the decimal separator; two dots (`1.500.000`, `1.5.0`) are refused as ambiguous.
/// - Digit groups after the first have exactly three digits.
/// - Refused: empty text, letters, exponents (`1e3`), signs, zero, and more decimals than the currency has.
public enum Money {
    /// The amount in `text` for `currency` (an ISO 4217 code known to ``Currency``).
    public static func parse(_ text: String, currency: String) throws(InputError) -> Decimal {
        guard let places = Currency.minorUnits(currency) else { throw .unknownCurrency(currency) }
        let value = try parseDecimal(text, allowNegative: false, context: "amount")
        if value.fractionDigits > places {
            throw .tooManyDecimals(text: text.trimmed, currency: currency.uppercased(), places: places)
        }
        if value.decimal.isZero { throw .zeroAmount }
        return value.decimal
    }

    /// A parsed number with the count of digits after its decimal separator.
    struct ParsedDecimal {
        var decimal: Decimal
        var fractionDigits: Int
    }

    /// Parses a grouped decimal number by the rules above; `context` names the field in messages.
    static func parseDecimal(_ raw: String, allowNegative: Bool, context: String) throws(InputError) -> ParsedDecimal {
        let text = raw.trimmed
        guard !text.isEmpty else { throw .empty }
        var chars = Array(text)
        var negative = false
        if chars.first == "-" || chars.first == "−" {
            guard allowNegative else { throw .negativeAmount(text: text) }
            negative = true
            chars.removeFirst()
        }
        let offset = negative ? 2 : 1
        for (i, c) in chars.enumerated() {
            if c == "e" || c == "E" { throw .exponent(text: text) }
            guard c.isASCII && c.isNumber || c == "," || c == "." || Self.isSpace(c) else {
                if c == "-" || c == "+" {
                    throw allowNegative ? .invalidCharacter(c, position: i + offset, expected: "a number")
                                        : .negativeAmount(text: text)
                }
                throw .invalidCharacter(c, position: i + offset, expected: "an \(context) takes digits, ',' and '.' only")
            }
        }
        let commas = chars.filter { $0 == "," }.count
        let dots = chars.filter { $0 == "." }.count
        let hasSpaces = chars.contains(where: Self.isSpace)
        var decimalSeparator: Character?
        if commas > 0 && dots > 0 {
            guard let last = chars.last(where: { $0 == "," || $0 == "." }) else { throw .empty }
            decimalSeparator = last
            if (last == "," ? commas : dots) > 1 { throw .multipleDecimalSeparators(text: text) }
        } else if dots > 1 {
            throw .multipleDecimalSeparators(text: text)
        } else if dots == 1 {
            decimalSeparator = "."
        } else if commas == 1 {
            let afterComma = chars.split(separator: ",", omittingEmptySubsequences: false).last ?? []
            decimalSeparator = (afterComma.count == 3 && !hasSpaces) ? nil : ","
        } else if commas > 1 {
            decimalSeparator = nil
        }
        var integerPart = chars[...]
        var fractionPart: ArraySlice<Character> = []
        if let separator = decimalSeparator, let index = chars.lastIndex(of: separator) {
            integerPart = chars[..<index]
            fractionPart = chars[(index + 1)...]
            guard !fractionPart.isEmpty, !integerPart.isEmpty,
                  fractionPart.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                throw .missingDigits(text: text)
            }
        }
        // Digit groups: split at any grouping separator; the first has 1-3 digits, the rest exactly 3.
        let groups = integerPart.split(omittingEmptySubsequences: false) { $0 == "," || $0 == "." || Self.isSpace($0) }
        if groups.count > 1 {
            guard let first = groups.first, (1...3).contains(first.count),
                  groups.dropFirst().allSatisfy({ $0.count == 3 }) else {
                throw .misplacedGroupSeparator(text: text)
            }
        }
        let integerDigits = String(groups.joined())
        guard !integerDigits.isEmpty else { throw .missingDigits(text: text) }
        let significant = integerDigits.drop(while: { $0 == "0" })
        guard significant.count <= 18 else { throw .tooLarge(text: text) }
        let canonical = (negative ? "-" : "") + integerDigits + (fractionPart.isEmpty ? "" : "." + String(fractionPart))
        guard fractionPart.count <= 18,
              let decimal = Decimal(string: canonical, locale: Locale(identifier: "en_US_POSIX")) else {
            throw .tooLarge(text: text)
        }
        return ParsedDecimal(decimal: decimal, fractionDigits: fractionPart.count)
    }

    private static func isSpace(_ c: Character) -> Bool {
        c == " " || c == "\u{00A0}" || c == "\u{202F}"
    }
}

extension String {
    /// The text without surrounding whitespace.
    var trimmed: String { trimmingCharacters(in: .whitespaces) }
}
