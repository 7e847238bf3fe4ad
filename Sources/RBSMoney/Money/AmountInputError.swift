import Foundation

/// Why typed amount text was refused. Every message says what to type instead.
public enum AmountInputError: Error, Sendable, Equatable, CustomStringConvertible {
    case empty
    /// `position` is 1-based, in characters.
    case invalidCharacter(Character, position: Int)
    case exponent(text: String)
    /// A minus sign where only positive amounts are accepted.
    case negative(text: String)
    /// Both separators appear more than once, or the last separator is followed by another of its kind.
    case multipleDecimalSeparators(text: String)
    /// Digit groups after the first must have exactly three digits; group separators must not be mixed.
    case misplacedGroupSeparator(text: String)
    /// A separator with no digits on one side.
    case missingDigits(text: String)
    /// One separator followed by exactly three digits (`1,500`, `1.500`): a group separator (`grouped`) or a
    /// decimal separator (`decimal`). Both readings are shown; the person types one without the doubt.
    case ambiguous(text: String, grouped: Decimal, decimal: Decimal, locale: AmountLocale)
    /// More digits after the decimal separator than the currency has minor units; never rounded.
    case tooManyMinorDigits(text: String, currency: Currency)
    case zero
    /// More than 18 digits.
    case tooLarge(text: String)

    public var description: String {
        switch self {
        case .empty:
            "enter an amount"
        case .invalidCharacter(let c, let position):
            "\(UnicodeText.quoted(c)) at position \(position) is not allowed: an amount takes digits, spaces, ',' and '.' only"
        case .exponent(let text):
            "\(text): write the number in full; exponents are not accepted"
        case .negative(let text):
            "\(text): an amount must be positive"
        case .multipleDecimalSeparators(let text):
            "\(text): more than one decimal separator"
        case .misplacedGroupSeparator(let text):
            "\(text): digit groups must have three digits and one kind of separator; remove or move the separator"
        case .missingDigits(let text):
            "\(text): put digits on both sides of the decimal separator"
        case .ambiguous(let text, let grouped, let decimal, let locale):
            "\(text) is ambiguous: it reads as \(Self.plain(grouped, locale)) (a group separator) or as "
                + "\(Self.plain(decimal, locale)) (a decimal separator); type \(Self.plain(grouped, locale)) or "
                + "\(Self.plain(decimal, locale))"
        case .tooManyMinorDigits(let text, let currency):
            currency.minorUnits == 0
                ? "\(text): \(currency.code) has no minor units; enter a whole number (amounts are never rounded)"
                : "\(text): \(currency.code) has \(currency.minorUnits) digit\(currency.minorUnits == 1 ? "" : "s") after the decimal separator, not more (amounts are never rounded)"
        case .zero:
            "the amount must be greater than zero"
        case .tooLarge(let text):
            "\(text): too many digits: an amount has at most 18, its minor units (kopecks, cents) included"
        }
    }

    /// `value` without grouping, with the locale's decimal separator: "1500", "1,5" (ru), "1.5" (en).
    static func plain(_ value: Decimal, _ locale: AmountLocale) -> String {
        let text = value.description
        return locale == .ru ? text.replacingOccurrences(of: ".", with: ",") : text
    }
}
