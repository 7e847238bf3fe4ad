import Foundation

/// Amounts as people type and read them, by the rules of their language, exactly (never through `Double`).
///
/// Accepted (any locale, since each has one reading): `1500.50`, `1500,50`, `1 500,50` (space, U+00A0 or U+202F
/// between groups), `1,500.50`, `1.500,50`, `1,500,000`, `1.500.000`, `0,07`, `1,5`.
/// Refused:
/// - every form with two readings: one ',' or '.' followed by exactly three digits, with no other separator and
///   a first group of 1–3 digits (`1,500`, `1.500`, `12.345`): the message shows both readings;
/// - more digits after the decimal separator than the currency has (`10.555` RUB): an error, never a rounding;
/// - signs, exponents (`1e3`), letters, zero, digit groups that are not of three, mixed group separators.
///
/// The front ends (REPL, `describe`/`run --set`, the server) call ``parse(_:currency:locale:)``; the core gets `Money`.
public enum AmountText {
    /// The amount of `currency` in `text`, read by the rules above; `locale` spells the readings in a refusal.
    public static func parse(_ text: String, currency: Currency, locale: AmountLocale) throws(AmountInputError) -> Money {
        try parse(text, currency: currency, locale: locale, quickReading: true)
    }

    /// ``parse(_:currency:locale:)``, with `quickReading: false` reading every text character by character (the
    /// reference the quick reading of plain digits is tested against).
    package static func parse(_ text: String, currency: Currency, locale: AmountLocale,
                              quickReading: Bool) throws(AmountInputError) -> Money {
        let number: Reading
        if quickReading, let plain = plainReading(text) { number = plain } else {
            number = try read(text, allowNegative: false, locale: locale)
        }
        if number.fractionDigits > currency.minorUnits { throw .tooManyMinorDigits(text: text.trimmed, currency: currency) }
        guard let money = try? Money(plain: number.plain, currency: currency) else { throw .tooLarge(text: text.trimmed) }
        if money.isZero { throw .zero }
        return money
    }

    /// A decimal number (it may be negative) in `text`, by the same rules, without a currency.
    public static func parseNumber(_ text: String, locale: AmountLocale) throws(AmountInputError) -> Decimal {
        let number = try read(text, allowNegative: true, locale: locale)
        guard let value = DecimalText.parse(number.plain) else { throw .tooLarge(text: text.trimmed) }
        return value
    }

    /// `money` for a person reading `locale`, with all the currency's decimals and grouped thousands:
    /// "1 500,50" (ru, U+00A0 between groups), "1,500.50" (en), "-12,000" (JPY, en). Exact: nothing is rounded.
    public static func format(_ money: Money, locale: AmountLocale) -> String {
        grouped(plain: money.plain, groupSeparator: locale.groupSeparator, decimalSeparator: locale.decimalSeparator)
    }

    /// Plain decimal text ("-1500000.50") with its thousands grouped by `groupSeparator` and `decimalSeparator`
    /// in place of the '.': the one grouping every amount shown to a person goes through.
    package static func grouped(plain: String, groupSeparator: Character, decimalSeparator: Character) -> String {
        let negative = plain.hasPrefix("-")
        let body = negative ? plain.dropFirst() : Substring(plain)
        let parts = body.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let integer = Array(parts[0])
        var grouped = ""
        for (i, digit) in integer.enumerated() {
            if i > 0 && (integer.count - i) % 3 == 0 { grouped.append(groupSeparator) }
            grouped.append(digit)
        }
        if parts.count > 1 { grouped += String(decimalSeparator) + parts[1] }
        return negative ? "-" + grouped : grouped
    }

    /// A number read from text: plain decimal text and the count of digits typed after the decimal separator.
    private struct Reading {
        var plain: String
        var fractionDigits: Int
    }

    private static func isSpace(_ c: Character) -> Bool { c == " " || c == "\u{00A0}" || c == "\u{202F}" }
    private static func isDigit(_ c: Character) -> Bool { c.isASCII && c.isNumber }

    /// The reading of the commonest typed amounts — ASCII digits, optionally one '.' or ',' and one, two or four
    /// and more digits after it ("100", "200.50", "0,07") — straight from the bytes; nil for anything else, which
    /// ``read(_:allowNegative:locale:)`` reads character by character (amounts only). Three digits after the mark
    /// (perhaps a group), spaces, signs, leading or trailing marks and over-long numbers are all left to it, so its
    /// refusals stay its own; what is read here is what it would read (AmountTextTests compares the two).
    private static func plainReading(_ raw: String) -> Reading? {
        var plain: [UInt8] = []
        plain.reserveCapacity(raw.utf8.count + 1)
        var integerDigits = 0, significant = 0, fractionDigits = 0
        var seenMark = false
        for byte in raw.utf8 {
            if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                if seenMark {
                    if fractionDigits == 0 {
                        if significant == 0 { plain.append(UInt8(ascii: "0")) }
                        plain.append(UInt8(ascii: "."))
                    }
                    fractionDigits += 1
                    plain.append(byte)
                } else {
                    integerDigits += 1
                    if significant > 0 || byte != UInt8(ascii: "0") {
                        significant += 1
                        plain.append(byte)
                    }
                }
            } else if (byte == UInt8(ascii: ".") || byte == UInt8(ascii: ",")) && !seenMark && integerDigits > 0 {
                seenMark = true
            } else {
                return nil
            }
        }
        guard integerDigits > 0, !seenMark || (fractionDigits > 0 && fractionDigits != 3),
              significant <= 18, significant + fractionDigits <= 36 else { return nil }
        if significant == 0 && !seenMark { plain.append(UInt8(ascii: "0")) }
        return Reading(plain: String(decoding: plain, as: UTF8.self), fractionDigits: fractionDigits)
    }

    private static func read(_ raw: String, allowNegative: Bool, locale: AmountLocale) throws(AmountInputError) -> Reading {
        let text = raw.trimmed
        guard !text.isEmpty else { throw .empty }
        var chars = Array(text)
        var negative = false
        if chars.first == "-" || chars.first == "−" {
            guard allowNegative else { throw .negative(text: text) }
            negative = true
            chars.removeFirst()
        }
        let offset = raw.prefix(while: { $0.isWhitespace }).count + (negative ? 2 : 1)
        for (i, c) in chars.enumerated() {
            if c == "e" || c == "E" { throw .exponent(text: text) }
            if (c == "-" || c == "−") && !allowNegative { throw .negative(text: text) }
            guard isDigit(c) || c == "," || c == "." || isSpace(c) else {
                throw .invalidCharacter(c, position: i + offset)
            }
        }
        let marks = chars.filter { $0 == "," || $0 == "." }
        let hasSpaces = chars.contains(where: isSpace)
        var decimalMark: Character?
        var groupMark: Character?
        if let last = marks.last {
            let kinds = Set(marks)
            if kinds.count == 2 {
                // The last mark is the decimal separator; the other kind groups. "1,500.50", "1.500,50".
                guard marks.filter({ $0 == last }).count == 1 else { throw .multipleDecimalSeparators(text: text) }
                decimalMark = last
                groupMark = last == "," ? "." : ","
            } else if marks.count > 1 {
                // "1,500,000" or "1.500.000": several of one kind can only group.
                groupMark = last
            } else {
                // One mark. Three digits after it, no spaces, and a valid first group before it: two readings.
                let index = chars.lastIndex(of: last) ?? chars.endIndex
                let before = chars[..<index]
                let after = chars[(index + 1)...]
                let couldGroup = !hasSpaces && after.count == 3 && (1...3).contains(before.count)
                    && before.first != "0" && before.allSatisfy(isDigit) && after.allSatisfy(isDigit)
                if couldGroup {
                    let grouped = Decimal(string: String(before) + String(after), locale: Locale(identifier: "en_US_POSIX")) ?? 0
                    let decimal = Decimal(string: String(before) + "." + String(after), locale: Locale(identifier: "en_US_POSIX")) ?? 0
                    throw .ambiguous(text: text, grouped: negative ? -grouped : grouped,
                                     decimal: negative ? -decimal : decimal, locale: locale)
                }
                decimalMark = last
            }
        }
        var integerPart = chars[...]
        var fractionPart: ArraySlice<Character> = []
        if let decimalMark, let index = chars.lastIndex(of: decimalMark) {
            integerPart = chars[..<index]
            fractionPart = chars[(index + 1)...]
            guard !fractionPart.isEmpty, !integerPart.isEmpty, fractionPart.allSatisfy(isDigit) else {
                throw .missingDigits(text: text)
            }
        }
        // Digit groups: one kind of separator (a mark or spaces), the first group 1–3 digits, the others exactly 3.
        if groupMark != nil && integerPart.contains(where: isSpace) { throw .misplacedGroupSeparator(text: text) }
        let groups = integerPart.split(omittingEmptySubsequences: false) { $0 == groupMark || isSpace($0) }
        if groups.count > 1 {
            guard let first = groups.first, (1...3).contains(first.count),
                  groups.dropFirst().allSatisfy({ $0.count == 3 }) else {
                throw .misplacedGroupSeparator(text: text)
            }
        }
        let integerDigits = String(groups.joined())
        guard !integerDigits.isEmpty, integerDigits.allSatisfy(isDigit) else { throw .missingDigits(text: text) }
        let significant = integerDigits.drop(while: { $0 == "0" })
        guard significant.count + fractionPart.count <= 36, significant.count <= 18 else { throw .tooLarge(text: text) }
        let integer = significant.isEmpty ? "0" : String(significant)
        let plain = (negative ? "-" : "") + integer + (fractionPart.isEmpty ? "" : "." + String(fractionPart))
        return Reading(plain: plain, fractionDigits: fractionPart.count)
    }
}

extension String {
    /// The text without surrounding whitespace (spaces, no-break spaces, tabs): what `trimmingCharacters(in:
    /// .whitespaces)` takes off (the tab, Unicode's space separators and the zero-width space U+200B, scalar by
    /// scalar), without Foundation's character set on every typed value.
    public var trimmed: String {
        let scalars = unicodeScalars
        func isSpace(_ scalar: Unicode.Scalar) -> Bool {
            scalar == "\t" || scalar == "\u{200B}" || scalar.properties.generalCategory == .spaceSeparator
        }
        guard let first = scalars.firstIndex(where: { !isSpace($0) }) else { return "" }
        guard isSpace(scalars[scalars.startIndex]) || isSpace(scalars[scalars.index(before: scalars.endIndex)]) else { return self }
        let last = scalars.lastIndex(where: { !isSpace($0) }) ?? first
        return String(scalars[first...last])
    }
}
