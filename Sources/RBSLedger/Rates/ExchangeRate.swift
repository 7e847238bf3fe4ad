import Foundation

/// One currency's rate as the Bank of Russia sets it for a day: rubles for `nominal` units (its `Value` element).
public struct OfficialRate: Sendable, Equatable {
    /// ISO 4217 letters (`USD`) and digits (`840`).
    public var currency: String
    public var numericCode: String
    /// The currency's name as the Bank of Russia writes it (`Доллар США`).
    public var name: String
    /// How many units `value` rubles buy (1, 10, 100, 10000: the Bank of Russia quotes small units by the hundred).
    public var nominal: Int
    /// Rubles for `nominal` units, exactly as published (4 decimals).
    public var value: Decimal

    public init(currency: String, numericCode: String, name: String, nominal: Int, value: Decimal) {
        self.currency = currency
        self.numericCode = numericCode
        self.name = name
        self.nominal = nominal
        self.value = value
    }

    /// Rubles for one unit.
    public var perUnit: Decimal { value / Decimal(nominal) }
}

/// The bank's rate for one currency, kept in the ledger (table `exchange_rates`, schema step `v11-rates`): the
/// official rate of a day and the bank's margin on either side of it. A row is never changed: a new import is a new
/// row, so a document can name the rate it was converted at by the time it was imported.
public struct ExchangeRate: Sendable, Equatable {
    public var currency: String
    public var name: String
    /// The Bank of Russia's day the official rate is for (YYYY-MM-DD).
    public var date: String
    /// Rubles for one unit, officially.
    public var official: Decimal
    /// Rubles the bank pays for one unit (a customer sells the currency): official × (1 − margin).
    public var buy: Decimal
    /// Rubles the bank takes for one unit (a customer buys the currency): official × (1 + margin).
    public var sell: Decimal
    /// The margin as a fraction (0.015 for 1.5 %).
    public var margin: Decimal
    /// When the rate was imported: its time in every review that uses it.
    public var importedAt: Date
    /// The file it came from, as the import named it.
    public var source: String

    /// Rates are kept to 6 decimals per unit: a rate quoted per 100 units (AMD 21,5637) keeps its digits per unit.
    public static let decimals = 6

    /// The bank's rates from the official `rate` with `margin` (a fraction), rounded half-up to ``decimals``.
    public init(_ rate: OfficialRate, date: String, margin: Decimal, importedAt: Date, source: String) {
        currency = rate.currency
        name = rate.name
        self.date = date
        official = Self.rounded(rate.perUnit)
        buy = Self.rounded(rate.perUnit * (1 - margin))
        sell = Self.rounded(rate.perUnit * (1 + margin))
        self.margin = margin
        self.importedAt = importedAt
        self.source = source
    }

    init(currency: String, name: String, date: String, official: Decimal, buy: Decimal, sell: Decimal, margin: Decimal,
         importedAt: Date, source: String) {
        self.currency = currency
        self.name = name
        self.date = date
        self.official = official
        self.buy = buy
        self.sell = sell
        self.margin = margin
        self.importedAt = importedAt
        self.source = source
    }

    static func rounded(_ value: Decimal) -> Decimal {
        var value = value
        var result = Decimal()
        NSDecimalRound(&result, &value, decimals, .plain)
        return result
    }
}
