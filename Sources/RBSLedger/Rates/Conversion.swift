import Foundation
import RBSMoney

/// A transfer between two of the bank's accounts in different currencies, converted at the bank's rate (issue #34,
/// part 3). The signed document carries it (``Key``): the amount debited (`amount`, `currency`, as every document),
/// the amount credited, the rate as a currency pair and the rate's time, so `verify`, the journal and every receipt
/// show what the person saw before signing.
///
/// The rule, decided here once for every front end:
/// - the rate is the bank's current rate (the newest import, ``ExchangeRate``): a customer buying a currency for
///   rubles pays the bank's `sell` rate, one selling a currency for rubles gets its `buy` rate; between two foreign
///   currencies the rate is `buy` of the one sold over `sell` of the one bought, kept to ``ExchangeRate/decimals``;
/// - the rate is written as a pair `BASE/QUOTE`: one unit of BASE costs `rate` units of QUOTE (`USD/RUB 94.388000`);
///   the credited amount is the debited amount times the rate when BASE is the debited currency, divided by it when
///   BASE is the credited one;
/// - the credited amount is rounded DOWN to the credited currency's minor units: the customer is credited the whole
///   minor units the debited amount buys, never a fraction more (the bank's position keeps the remainder);
/// - the rate is refused when it is older than ``maximumRateAge`` (the Bank of Russia sets rates for a day), and the
///   document's rate, pair, time and credited amount must be exactly the bank's at posting.
public struct Conversion: Sendable, Hashable, Codable {
    /// The document's keys of a conversion, besides `amount` and `currency` (the debited amount).
    public enum Key {
        public static let creditAmount = "creditAmount"
        public static let creditCurrency = "creditCurrency"
        public static let rate = "rate"
        public static let pair = "ratePair"
        public static let time = "rateTime"
        /// Every key the core writes into a conversion's document.
        public static let all = [creditAmount, creditCurrency, rate, pair, time]
    }

    /// How old the bank's rate may be when a conversion is posted: a day, as the Bank of Russia sets its rates
    /// daily and the bank imports each day's (`rbs-host rates import`).
    public static let maximumRateAge: Int64 = 24 * 3_600_000
    /// ``maximumRateAge`` as people read it.
    public static let maximumRateAgeText = "24 hours"

    public var debitAmount: Decimal
    public var debitCurrency: String
    public var creditAmount: Decimal
    public var creditCurrency: String
    /// One unit of ``base`` costs `rate` units of ``quote``.
    public var rate: Decimal
    public var base: String
    public var quote: String
    /// When the rate was imported (the older import of the two rates of a cross rate), in milliseconds.
    public var rateTimeMilliseconds: Int64

    /// `USD/RUB`.
    public var pair: String { "\(base)/\(quote)" }

    /// The credited amount with its currency's minor units (`106.50`), as the document and the postings write it.
    public var creditText: String {
        DecimalText.format(creditAmount, scale: Currency(code: creditCurrency)?.minorUnits ?? 2) ?? creditAmount.description
    }

    /// The rate with ``ExchangeRate/decimals`` decimals (`93.893387`), as the document writes it.
    public var rateText: String { DecimalText.format(rate, scale: ExchangeRate.decimals) ?? rate.description }

    /// The document fields that carry this conversion (``Key``), values as the core writes them.
    public var fields: [DocumentField] {
        [
            DocumentField(Key.creditAmount, creditText),
            DocumentField(Key.creditCurrency, creditCurrency),
            DocumentField(Key.rate, rateText),
            DocumentField(Key.pair, pair),
            DocumentField(Key.time, Timestamp.format(milliseconds: rateTimeMilliseconds)),
        ]
    }

    /// The conversion a signed document carries, or `nil` when it carries none (or not all of its fields read).
    public init?(document: Document) {
        guard let creditText = document[Key.creditAmount], let creditAmount = DecimalText.parse(creditText),
              let creditCurrency = document[Key.creditCurrency], let rateText = document[Key.rate],
              let rate = DecimalText.parse(rateText), let pair = document[Key.pair], let timeText = document[Key.time],
              let time = Timestamp.parse(timeText), let payment = Payment.of(document) else { return nil }
        let debitAmount = payment.amount.amount, debitCurrency = payment.amount.currency.code
        let sides = pair.split(separator: "/").map(String.init)
        guard sides.count == 2 else { return nil }
        self.init(debitAmount: debitAmount, debitCurrency: debitCurrency, creditAmount: creditAmount, creditCurrency: creditCurrency,
                  rate: rate, base: sides[0], quote: sides[1], rateTimeMilliseconds: time)
    }

    init(debitAmount: Decimal, debitCurrency: String, creditAmount: Decimal, creditCurrency: String, rate: Decimal,
         base: String, quote: String, rateTimeMilliseconds: Int64) {
        self.debitAmount = debitAmount
        self.debitCurrency = debitCurrency
        self.creditAmount = creditAmount
        self.creditCurrency = creditCurrency
        self.rate = rate
        self.base = base
        self.quote = quote
        self.rateTimeMilliseconds = rateTimeMilliseconds
    }

    /// Why the bank cannot quote a conversion.
    public enum QuoteProblem: Error, Sendable, Equatable {
        /// No rate of `currency` was ever imported.
        case noRate(currency: String)
        /// The currency has no minor units in ISO 4217 (the bank keeps no accounts in it).
        case unknownCurrency(String)
        /// The debited amount buys less than one minor unit of the credited currency.
        case tooSmall
    }

    /// The bank's conversion of `amount` (in `from`) into `to` at `rates` (the bank's current rate of each currency,
    /// by code; the ruble is the base of all of them): the rule above.
    public static func quoted(amount: Decimal, from: String, to: String,
                             rates: [String: ExchangeRate]) -> Result<Conversion, QuoteProblem> {
        guard let creditScale = Currency(code: to)?.minorUnits else { return .failure(.unknownCurrency(to)) }
        guard Currency(code: from) != nil else { return .failure(.unknownCurrency(from)) }
        let rate: Decimal, base: String, quote: String, time: Date
        switch (from, to) {
        case ("RUB", _):
            guard let bought = rates[to] else { return .failure(.noRate(currency: to)) }
            (rate, base, quote, time) = (bought.sell, to, "RUB", bought.importedAt)
        case (_, "RUB"):
            guard let sold = rates[from] else { return .failure(.noRate(currency: from)) }
            (rate, base, quote, time) = (sold.buy, from, "RUB", sold.importedAt)
        default:
            guard let sold = rates[from] else { return .failure(.noRate(currency: from)) }
            guard let bought = rates[to] else { return .failure(.noRate(currency: to)) }
            (rate, base, quote, time) = (ExchangeRate.rounded(sold.buy / bought.sell), from, to, min(sold.importedAt, bought.importedAt))
        }
        guard rate > 0 else { return .failure(.noRate(currency: base)) }
        let credit = rounded(base == from ? amount * rate : amount / rate, scale: creditScale)
        guard credit > 0 else { return .failure(.tooSmall) }
        return .success(Conversion(debitAmount: amount, debitCurrency: from, creditAmount: credit, creditCurrency: to, rate: rate,
                                   base: base, quote: quote, rateTimeMilliseconds: Int64((time.timeIntervalSince1970 * 1000).rounded())))
    }

    // The rate's time is read back from `exchange_rates.imported_ms` as milliseconds / 1000: rounded to the nearest
    // millisecond it is that column again (``Timestamp/milliseconds(_:)`` rounds down, which can lose one).

    /// `value` rounded down (toward zero) to `scale` decimals: the rule for the credited amount.
    static func rounded(_ value: Decimal, scale: Int) -> Decimal {
        var value = value
        var result = Decimal()
        NSDecimalRound(&result, &value, scale, .down)
        return result
    }
}
