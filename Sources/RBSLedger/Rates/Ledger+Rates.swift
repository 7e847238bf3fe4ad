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
        /// The file's day is before the day of the bank's current rates: importing it would make a past day's current.
        case olderDay(file: String, current: String)
        /// The file's day is more than ``furthestAhead`` days after the host's (Moscow's) day: a wrong date, which would
        /// then refuse every real day's file as older.
        case farAhead(file: String, today: String)
        /// Currencies whose official rate moved by more than ``largestChange`` from the current one, not accepted.
        case changes([RateChange])
        /// A currency accepted as changed that the file does not hold.
        case acceptedAbsent([String])

        public var description: String {
            switch self {
            case .noRates: "the file holds no rates: nothing was imported"
            case .margin(let margin):
                "a margin of \(margin * 100) % is out of range: give a percentage from 0 up to 50 (e.g. --margin 1.5)"
            case .rubles: "the ruble is the rates' base: a rate for RUB is not imported"
            case .olderDay(let file, let current):
                "the file's rates are of \(file), older than the bank's current rates of \(current): importing them would "
                    + "make a past day's rates current, so nothing was imported"
            case .farAhead(let file, let today):
                "the file's rates are of \(file), more than \(Ledger.furthestAhead) days after today (\(today) in Moscow "
                    + "on this host's clock): the Bank of Russia sets rates a few days ahead at most, so its date is "
                    + "taken as wrong and nothing was imported"
            case .changes(let changes):
                changes.map(\.description).joined(separator: "\n") + "\na change of more than "
                    + "\(Ledger.largestChange * 100) % in a day is refused as a likely error in the file, so nothing was "
                    + "imported: check the file, or import it with "
                    + changes.map { "--accept-change \($0.currency)" }.joined(separator: " ")
            case .acceptedAbsent(let currencies):
                "--accept-change \(currencies.joined(separator: ", ")): the file has no rate for "
                    + "\(currencies.count == 1 ? "it" : "them") — nothing was imported"
            }
        }
    }

    /// One currency's official rate against the bank's current one (``RatesError/changes(_:)``).
    public struct RateChange: Sendable, Equatable, CustomStringConvertible {
        public var currency: String
        /// Rubles for one unit in the file and in the bank's current rate (of `currentDate`).
        public var new: Decimal
        public var current: Decimal
        public var currentDate: String

        /// The change as a percentage of the current rate (negative: the rate fell).
        public var percent: Decimal { (new - current) / current * 100 }
        /// The change's size as a fraction of the current rate, whichever way (what ``Ledger/largestChange`` bounds).
        public var size: Decimal { abs(new - current) / current }

        public var description: String {
            // Its size cut (not rounded) to 2 decimals: 0.0001 for 92.5058 is 99.99 % below, never "100 %".
            var size = self.size * 100
            var cut = Decimal()
            NSDecimalRound(&cut, &size, 2, .down)
            return "\(currency): the official rate \(new) RUB is \(cut) % \(percent < 0 ? "below" : "above") the "
                + "current one, \(current) RUB of \(currentDate)"
        }
    }

    /// How far (a fraction) a currency's official rate may move from the bank's current one in one import without
    /// being accepted by name: the ruble's largest one-day moves (December 2014, March 2022) stayed well inside it,
    /// while a slipped comma or a corrupt file (0,0001 for 92,5058) is far outside it.
    public static let largestChange = Decimal(string: "0.25")!
    /// How many days after the host's day a file's may be: the Bank of Russia sets a day's rates on the working day
    /// before it, and before the New Year holidays for up to twelve days ahead.
    public static let furthestAhead = 31

    /// Imports the day's official `rates` with `margin` (a fraction: 0.015 for 1.5 %), all in one transaction, and
    /// answers the bank's rates as kept.
    ///
    /// Refused whole, before anything is written: a day (`date`, YYYY-MM-DD) before that of the bank's current rates,
    /// and a currency whose official rate moved by more than ``largestChange`` from its current one unless it is in
    /// `accepting` (the operator has checked it) — a conversion at a mistyped rate would pay out real money.
    @discardableResult
    public func importRates(_ rates: [OfficialRate], date: String, margin: Decimal, source: String,
                            accepting: Set<String> = []) throws -> [ExchangeRate] {
        guard !rates.isEmpty else { throw RatesError.noRates }
        guard margin >= 0, margin <= Decimal(string: "0.5")! else { throw RatesError.margin(margin) }
        guard !rates.contains(where: { $0.currency == "RUB" }) else { throw RatesError.rubles }
        let absent = accepting.subtracting(rates.map(\.currency)).sorted()
        guard absent.isEmpty else { throw RatesError.acceptedAbsent(absent) }
        let now = clock()
        if let day = try? CalendarDay.parse(date, .iso), let today = CalendarDay.containing(now, in: Self.moscow),
           let latest = today.adding(days: Self.furthestAhead), latest < day {
            throw RatesError.farAhead(file: date, today: today.iso)
        }
        let kept = rates.map { ExchangeRate($0, date: date, margin: margin, importedAt: now, source: source) }
        let milliseconds = Timestamp.milliseconds(now)
        // Decided on the rates the write transaction reads (the refusal is answered from it, not thrown through it,
        // which would report it as the database's).
        let refusal: RatesError? = try database.write { db in
            let current = try Self.currentRatesByCurrency(in: db)
            // YYYY-MM-DD: the text's order is the days'.
            if let newest = current.values.map(\.date).max(), date < newest {
                return .olderDay(file: date, current: newest)
            }
            let changes = kept.compactMap { rate -> RateChange? in
                guard let was = current[rate.currency], was.official > 0, !accepting.contains(rate.currency) else { return nil }
                let change = RateChange(currency: rate.currency, new: rate.official, current: was.official, currentDate: was.date)
                return change.size > Self.largestChange ? change : nil
            }
            guard changes.isEmpty else { return .changes(changes) }
            for rate in kept {
                try db.execute("""
                    INSERT INTO exchange_rates (currency, name, rate_date, official, buy, sell, margin, imported_ms, source)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, rate.currency, rate.name, rate.date, "\(rate.official)", "\(rate.buy)", "\(rate.sell)",
                    "\(rate.margin)", milliseconds, rate.source)
            }
            return nil
        }
        if let refusal { throw refusal }
        return kept
    }

    /// The Bank of Russia's days are Moscow's.
    private static let moscow = TimeZone(identifier: "Europe/Moscow") ?? TimeZone(secondsFromGMT: 3 * 3600)!

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
