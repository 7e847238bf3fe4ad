import Foundation

/// An amount of money: a whole number of minor units (kopecks, cents) of one ISO 4217 currency.
///
/// Exact by construction: there is no way to make a `Money` from a value with more decimals than its currency has,
/// and nothing here rounds. Amounts are limited to 18 digits in minor units (they fit an `Int64` with room for a sum).
public struct Money: Hashable, Sendable, CustomStringConvertible {
    /// The largest magnitude in minor units: 18 nines.
    public static let maximumMinorUnits: Int64 = 999_999_999_999_999_999

    /// The amount in minor units of ``currency``: 150050 for 1500.50 RUB.
    public let minorUnits: Int64
    public let currency: Currency

    /// `minorUnits` of `currency`; nil when beyond ``maximumMinorUnits``.
    public init?(minorUnits: Int64, currency: Currency) {
        guard minorUnits.magnitude <= UInt64(Self.maximumMinorUnits) else { return nil }
        self.minorUnits = minorUnits
        self.currency = currency
    }

    /// `units` whole units of `currency` (150000 RUB): never beyond 18 digits, so never fails.
    public init(whole units: Int32, currency: Currency) {
        var minor = Int64(units)
        for _ in 0..<currency.minorUnits { minor *= 10 }
        self.minorUnits = minor
        self.currency = currency
    }

    /// Exactly `amount` of `currency`.
    /// - Throws: ``MoneyError/tooManyMinorDigits(_:currency:)`` when `amount` has more decimals than the currency
    ///   (never rounded), ``MoneyError/tooLarge(_:)`` beyond 18 digits.
    public init(_ amount: Decimal, currency: Currency) throws(MoneyError) {
        // `Decimal.description` is exact and always plain ("-12.5"), whatever the locale.
        try self.init(plain: amount.description, currency: currency)
    }

    /// Plain decimal text (`-?digits(.digits)?`, as documents and the ledger store amounts) as money of `currency`.
    /// Fewer decimals than the currency has are fine ("1500.5" is 1500.50 RUB); more are an error, never rounded.
    public init(plain text: String, currency: Currency) throws(MoneyError) {
        guard let scale = DecimalText.scale(of: text) else { throw .notPlainDecimal(text) }
        guard scale <= currency.minorUnits else { throw .tooManyMinorDigits(text, currency: currency) }
        guard let minor = DecimalText.minorUnits(text, scale: currency.minorUnits) else { throw .tooLarge(text) }
        self.minorUnits = minor
        self.currency = currency
    }

    /// The exact amount as a `Decimal`.
    public var amount: Decimal { DecimalText.decimal(minorUnits: minorUnits, scale: currency.minorUnits) }

    /// Plain text with exactly the currency's decimals and a '.' separator: "1500.50", "-3.000", "7" (JPY).
    public var plain: String { DecimalText.format(minorUnits: minorUnits, scale: currency.minorUnits) }

    /// For a person reading `locale`: "1 500,50" (ru, no-break spaces) or "1,500.50" (en); without the currency code.
    public func formatted(_ locale: AmountLocale) -> String { AmountText.format(self, locale: locale) }

    public var isZero: Bool { minorUnits == 0 }
    public var isNegative: Bool { minorUnits < 0 }

    /// "1500.50 RUB".
    public var description: String { "\(plain) \(currency.code)" }
}

/// Why a value cannot be a ``Money``.
public enum MoneyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// More digits after the separator than the currency has minor units.
    case tooManyMinorDigits(String, currency: Currency)
    /// More than 18 digits in minor units.
    case tooLarge(String)
    /// Not plain decimal text (`-?digits(.digits)?`).
    case notPlainDecimal(String)

    public var description: String {
        switch self {
        case .tooManyMinorDigits(let text, let currency):
            currency.minorUnits == 0
                ? "\(text): \(currency.code) has no minor units; amounts are whole numbers"
                : "\(text): \(currency.code) has \(currency.minorUnits) digit\(currency.minorUnits == 1 ? "" : "s") after the decimal separator, not more (amounts are never rounded)"
        case .tooLarge(let text):
            "\(text): too large (18 digits at most, counting the minor units)"
        case .notPlainDecimal(let text):
            "\"\(text)\" is not a plain decimal number such as 1500.50"
        }
    }
}
