import Foundation
import RBSMoney

/// The bank's exchange rates (issue #34, part 3): imported from the Bank of Russia's daily rates with the bank's
/// margin, kept in the ledger's database so every host of one database converts at the same rate, never changed once
/// written (a new import adds rows).
extension Ledger {
    /// Why rates were not imported.
    public enum RatesError: Error, Sendable, Equatable, CustomStringConvertible {
        case noRates
        case margin(Decimal)
        case rubles

        public var description: String {
            switch self {
            case .noRates: "the file holds no rates: nothing was imported"
            case .margin(let margin):
                "a margin of \(margin * 100) % is not one: give a percentage from 0 up to 50 (e.g. --margin 1.5)"
            case .rubles: "the ruble is the rates' base: a rate for RUB is not imported"
            }
        }
    }

    /// Imports the day's official `rates` with `margin` (a fraction: 0.015 for 1.5 %), all in one transaction, and
    /// answers the bank's rates as kept.
    @discardableResult
    public func importRates(_ rates: [OfficialRate], date: String, margin: Decimal, source: String) throws -> [ExchangeRate] {
        guard !rates.isEmpty else { throw RatesError.noRates }
        guard margin >= 0, margin <= Decimal(string: "0.5")! else { throw RatesError.margin(margin) }
        guard !rates.contains(where: { $0.currency == "RUB" }) else { throw RatesError.rubles }
        let now = clock()
        let kept = rates.map { ExchangeRate($0, date: date, margin: margin, importedAt: now, source: source) }
        let milliseconds = Timestamp.milliseconds(now)
        try database.write { db in
            for rate in kept {
                try db.execute("""
                    INSERT INTO exchange_rates (currency, name, rate_date, official, buy, sell, margin, imported_ms, source)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, rate.currency, rate.name, rate.date, "\(rate.official)", "\(rate.buy)", "\(rate.sell)",
                    "\(rate.margin)", milliseconds, rate.source)
            }
        }
        return kept
    }

    /// The bank's current rate of each currency (the newest import's), by currency code.
    public func rates() throws(LedgerError) -> [ExchangeRate] {
        try database.read { db in try Self.currentRates(in: db) }
    }

    /// ``currentRates(in:)`` by currency code: what ``Conversion/quoted(amount:from:to:rates:)`` reads.
    static func currentRatesByCurrency(in db: any SQLTransaction) throws -> [String: ExchangeRate] {
        Dictionary(try currentRates(in: db).map { ($0.currency, $0) }, uniquingKeysWith: { $1 })
    }

    /// The bank's current rates read inside a transaction: what a conversion is checked against when it is posted.
    static func currentRates(in db: any SQLTransaction) throws -> [ExchangeRate] {
        try db.rows("""
            SELECT r.currency, r.name, r.rate_date, r.official, r.buy, r.sell, r.margin, r.imported_ms, r.source
            FROM exchange_rates r
            WHERE r.imported_ms = (SELECT MAX(imported_ms) FROM exchange_rates n WHERE n.currency = r.currency)
            ORDER BY r.currency
            """).map { row in
            func decimal(_ column: String) throws -> Decimal {
                let text: String = try row.decode(forColumn: column)
                // The exact reader of the plain decimal text the import wrote (`Decimal(string:)` would read
                // "12abc" as 12): a row that is anything else is refused, never read in part.
                guard let value = DecimalText.parse(text) else {
                    throw RatesStorageError(column: column, text: text)
                }
                return value
            }
            let milliseconds: Int64 = try row.decode(forColumn: "imported_ms")
            return ExchangeRate(currency: try row.decode(forColumn: "currency"), name: try row.decode(forColumn: "name"),
                                date: try row.decode(forColumn: "rate_date"), official: try decimal("official"),
                                buy: try decimal("buy"), sell: try decimal("sell"), margin: try decimal("margin"),
                                importedAt: Timestamp.date(milliseconds: milliseconds),
                                source: try row.decode(forColumn: "source"))
        }
    }
}

/// A stored rate that does not read back as a decimal (the table was written by something else).
struct RatesStorageError: Error, CustomStringConvertible {
    var column: String
    var text: String
    var description: String { "exchange_rates.\(column) holds '\(text)', not a decimal" }
}
