/// How a person writes numbers: the decimal separator and the digit-group separator of their language.
///
/// Parsing accepts every form that has one reading in any of these conventions and refuses a form with two
/// (`1,500`, `1.500`); the locale decides how amounts are shown and how the two readings are spelled in a refusal.
public enum AmountLocale: String, Sendable, Hashable, CaseIterable {
    /// Russian: `1 500,50` (no-break space groups, decimal comma).
    case ru
    /// English: `1,500.50` (comma groups, decimal point).
    case en

    /// The decimal separator: ',' for ru, '.' for en.
    public var decimalSeparator: Character { self == .ru ? "," : "." }
    /// The digit-group separator written when formatting: U+00A0 no-break space for ru, ',' for en.
    public var groupSeparator: Character { self == .ru ? "\u{00A0}" : "," }

    /// The locale of a POSIX locale name or language tag ("ru_RU.UTF-8", "en-GB", "ru"); nil for other languages.
    public init?(identifier: String) {
        let language = identifier.prefix { $0.isLetter }.lowercased()
        guard let locale = AmountLocale(rawValue: language) else { return nil }
        self = locale
    }
}
