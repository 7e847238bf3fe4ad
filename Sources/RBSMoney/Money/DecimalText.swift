import Foundation

/// Exact conversions between `Decimal`, minor units and plain decimal text ("-12.50"), without locales, floating
/// point or rounding.
///
/// The grammar is `-?(0|[1-9][0-9]*)(\.[0-9]+)?`: an optional minus sign, no leading zeros, a '.' as the
/// separator, no exponent, no grouping, no spaces.
package enum DecimalText {
    /// The number of digits after the '.', or `nil` when `text` is not a plain decimal.
    package static func scale(of text: String) -> Int? {
        var bytes = Substring(text).utf8[...]
        if bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        let integer = bytes.prefix { $0 != UInt8(ascii: ".") }
        guard !integer.isEmpty, integer.allSatisfy(isDigit) else { return nil }
        if integer.count > 1 && integer.first == UInt8(ascii: "0") { return nil }
        let rest = bytes.dropFirst(integer.count)
        if rest.isEmpty { return 0 }
        let fraction = rest.dropFirst()
        guard !fraction.isEmpty, fraction.allSatisfy(isDigit) else { return nil }
        return fraction.count
    }

    /// The exact value of plain decimal text, or `nil` when it is not plain decimal text or has more than 30 digits.
    package static func parse(_ text: String) -> Decimal? {
        guard let scale = scale(of: text) else { return nil }
        let negative = text.hasPrefix("-")
        let digits = text.utf8.filter(isDigit)
        guard digits.count <= 30 else { return nil }
        var significand = Decimal(0)
        if digits.count <= 19 {
            // Fits a UInt64 (< 10^19): one exact conversion instead of a Decimal multiply and add per digit.
            var value: UInt64 = 0
            for digit in digits { value = value * 10 + UInt64(digit - UInt8(ascii: "0")) }
            significand = Decimal(value)
        } else {
            for digit in digits {
                significand = significand * 10 + Decimal(Int(digit - UInt8(ascii: "0")))
            }
        }
        let value = Decimal(sign: .plus, exponent: -scale, significand: significand)
        return negative && value != 0 ? -value : value
    }

    /// `value` written with at least `scale` digits after the '.' (trailing zeros added), or `nil` when it has
    /// more significant decimals than `scale`: an exact value is never rounded to fit.
    package static func format(_ value: Decimal, scale: Int) -> String? {
        // `description` of a Decimal is exact and uses '.' whatever the locale.
        let text = value.description
        var integer = Substring(text)
        var fraction = Substring("")
        if let dot = text.firstIndex(of: ".") {
            integer = text[..<dot]
            fraction = text[text.index(after: dot)...]
        }
        while fraction.last == "0" { fraction = fraction.dropLast() }
        guard fraction.count <= scale else { return nil }
        fraction += String(repeating: "0", count: scale - fraction.count)
        return scale > 0 ? "\(integer).\(fraction)" : String(integer)
    }

    /// Plain decimal text `text` with `scale` digits after the '.' (its ``scale(of:)``) written with `target`
    /// (≥ `scale`) digits: trailing zeros added.
    package static func padded(_ text: String, scale: Int, to target: Int) -> String {
        guard target > scale else { return text }
        var out = text
        if scale == 0 { out += "." }
        out += String(repeating: "0", count: target - scale)
        return out
    }

    /// Plain decimal text as a whole number of units of 10^-`scale` (cents for 2), when it has at most `scale`
    /// decimals and at most 18 digits after scaling (so sums of two stay far from overflowing); else `nil`.
    package static func minorUnits(_ text: String, scale: Int) -> Int64? {
        guard let textScale = self.scale(of: text), textScale <= scale else { return nil }
        var value: Int64 = 0
        var digits = 0
        for c in text.utf8 where isDigit(c) {
            if digits > 0 || c != UInt8(ascii: "0") { digits += 1 }
            if digits > 18 { return nil }
            value = value * 10 + Int64(c - UInt8(ascii: "0"))
        }
        for _ in textScale..<scale {
            if value != 0 { digits += 1 }
            if digits > 18 { return nil }
            value *= 10
        }
        return text.utf8.first == UInt8(ascii: "-") ? -value : value
    }

    /// `minor` units of 10^-`scale` as plain decimal text with exactly `scale` decimals.
    package static func format(minorUnits minor: Int64, scale: Int) -> String {
        var digits = String(minor.magnitude)
        if digits.utf8.count <= scale { digits = String(repeating: "0", count: scale + 1 - digits.utf8.count) + digits }
        var text = digits
        if scale > 0 {
            let split = digits.utf8.index(digits.utf8.endIndex, offsetBy: -scale)
            text = String(digits[..<split]) + "." + String(digits[split...])
        }
        return minor < 0 ? "-" + text : text
    }

    /// The exact `Decimal` of `minor` units of 10^-`scale`.
    package static func decimal(minorUnits minor: Int64, scale: Int) -> Decimal {
        Decimal(sign: minor < 0 ? .minus : .plus, exponent: -scale, significand: Decimal(minor.magnitude))
    }

    private static func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }
}
