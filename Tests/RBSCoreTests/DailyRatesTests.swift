import Foundation
@testable import RBSLedger
import Testing
@testable import RBSCore

/// The Bank of Russia's daily rates (XML_daily.asp as published, windows-1251) into the bank's rates in the ledger.
@Suite("Exchange rates: the Bank of Russia's daily XML and the bank's margin")
struct DailyRatesTests {
    static func day(_ valutes: String, date: String = "26.11.2026") -> Data {
        let text = """
            <?xml version="1.0" encoding="windows-1251"?>
            <ValCurs Date="\(date)" name="Foreign Currency Market">
            \(valutes)</ValCurs>
            """
        return text.data(using: .windowsCP1251) ?? Data()
    }

    static let usd = """
        <Valute ID="R01235"><NumCode>840</NumCode><CharCode>USD</CharCode><Nominal>1</Nominal><Name>Доллар США</Name><Value>92,5058</Value><VunitRate>92,5058</VunitRate></Valute>
        """
    static let amd = """
        <Valute ID="R01060"><NumCode>051</NumCode><CharCode>AMD</CharCode><Nominal>100</Nominal><Name>Армянских драмов</Name><Value>21,5637</Value><VunitRate>0,215637</VunitRate></Valute>
        """

    @Test("a day's file in windows-1251: the date, each currency with its Cyrillic name, the value per Nominal units as published")
    func reads() throws {
        let day = try DailyRates.read(Self.day(Self.usd + "\n" + Self.amd), file: "XML_daily.xml")
        #expect(day.date == "2026-11-26")
        #expect(day.rates == [
            OfficialRate(currency: "USD", numericCode: "840", name: "Доллар США", nominal: 1, value: Decimal(string: "92.5058")!),
            OfficialRate(currency: "AMD", numericCode: "051", name: "Армянских драмов", nominal: 100, value: Decimal(string: "21.5637")!),
        ])
    }

    @Test("a wrong value, a doubled currency, another XML and an empty day are refused naming the file, line, currency and element")
    func refuses() {
        let wrong = Self.usd.replacingOccurrences(of: "92,5058", with: "92,50,58")
        #expect(throws: DailyRatesError.invalid(file: "d.xml", line: 3, currency: "USD", element: "Value",
                                                reason: "\"92,50,58\" is not a rate in rubles (92,5058)")) {
            try DailyRates.read(Self.day(wrong), file: "d.xml")
        }
        #expect(throws: DailyRatesError.invalid(file: "d.xml", line: 4, currency: "USD", element: "CharCode", reason: "USD appears twice")) {
            try DailyRates.read(Self.day(Self.usd + "\n" + Self.usd), file: "d.xml")
        }
        #expect(throws: DailyRatesError.notDailyRates(file: "d.xml")) {
            try DailyRates.read(Data("<?xml version=\"1.0\"?><ED807/>".utf8), file: "d.xml")
        }
        #expect(throws: DailyRatesError.empty(file: "d.xml")) { try DailyRates.read(Self.day(""), file: "d.xml") }
        #expect(DailyRatesError.invalid(file: "d.xml", line: 3, currency: "USD", element: "Value", reason: "x").description
                == "d.xml:3: USD: <Value> x")
    }

    @Test("imported with a 1.5 % margin: per unit, buy below and sell above, 6 decimals; the newest import is current; rows are never changed")
    func imported() throws {
        let data = Fixtures.temporaryDirectory("rates-data")
        let clock = LockedClock(Date(timeIntervalSince1970: 1_795_000_000))
        let ledger = try Ledger.create(dataDirectory: data, clock: { clock.now }).ledger
        defer { try? ledger.close() }
        let day = try DailyRates.read(Self.day(Self.usd + "\n" + Self.amd), file: "XML_daily.xml")
        try ledger.importRates(day.rates, date: day.date, margin: Decimal(string: "0.015")!, source: "XML_daily.xml")
        let rates = try ledger.rates()
        #expect(rates.map(\.currency) == ["AMD", "USD"])
        let usd = try #require(rates.last)
        #expect((usd.official, usd.buy, usd.sell) == (Decimal(string: "92.5058")!, Decimal(string: "91.118213")!, Decimal(string: "93.893387")!))
        #expect(usd.date == "2026-11-26" && usd.importedAt == clock.now && usd.name == "Доллар США")
        #expect((rates[0].official, rates[0].buy) == (Decimal(string: "0.215637")!, Decimal(string: "0.212402")!))

        clock.now += 86_400
        let next = try DailyRates.read(Self.day(Self.usd.replacingOccurrences(of: "92,5058", with: "93,0000"), date: "27.11.2026"),
                                       file: "next.xml")
        try ledger.importRates(next.rates, date: next.date, margin: Decimal(string: "0.01")!, source: "next.xml")
        let current = try ledger.rates()
        #expect(current.first { $0.currency == "USD" }?.sell == Decimal(string: "93.93")!)
        #expect(current.first { $0.currency == "AMD" }?.date == "2026-11-26", "a currency the new day lacks keeps its last rate")

        // The database itself refuses to change or delete a rate a document may name.
        #expect(throws: LedgerError.self) { try ledger.database.write { db in try db.execute("UPDATE exchange_rates SET sell = '1'") } }
        #expect(throws: LedgerError.self) { try ledger.database.write { db in try db.execute("DELETE FROM exchange_rates") } }
        #expect(try ledger.rates() == current)

        #expect(throws: Ledger.RatesError.margin(Decimal(string: "0.6")!)) {
            try ledger.importRates(day.rates, date: day.date, margin: Decimal(string: "0.6")!, source: "x")
        }
    }
}

extension DailyRatesTests {
    @Test("an older day, a date over a month ahead, or a rate that moved more than 25 % and is not accepted by name, is refused whole; accepted, it is imported")
    func implausibleImports() throws {
        let data = Fixtures.temporaryDirectory("rates-checks")
        let clock = LockedClock(Date(timeIntervalSince1970: 1_795_000_000))
        let ledger = try Ledger.create(dataDirectory: data, clock: { clock.now }).ledger
        defer { try? ledger.close() }
        let margin = try #require(Decimal(string: "0.015"))
        func file(usd: String, amd: String = "21,5637", date: String) throws -> DailyRates {
            try DailyRates.read(Self.day(Self.usd.replacingOccurrences(of: "92,5058", with: usd) + "\n"
                                         + Self.amd.replacingOccurrences(of: "21,5637", with: amd), date: date), file: "d.xml")
        }
        let first = try file(usd: "92,5058", date: "26.11.2026")
        try ledger.importRates(first.rates, date: first.date, margin: margin, source: "d.xml")
        let kept = try ledger.rates()

        // A slipped comma (0,0001 for 92,5058) and a doubled AMD: both named, the flag spelt out, nothing written.
        let typo = try file(usd: "0,0001", amd: "43,1274", date: "27.11.2026")
        let refusal = try #require(throws: Ledger.RatesError.self) {
            try ledger.importRates(typo.rates, date: typo.date, margin: margin, source: "d.xml")
        }
        #expect(refusal == .changes([
            Ledger.RateChange(currency: "USD", new: try #require(Decimal(string: "0.0001")), current: try #require(Decimal(string: "92.5058")), currentDate: "2026-11-26"),
            Ledger.RateChange(currency: "AMD", new: try #require(Decimal(string: "0.431274")), current: try #require(Decimal(string: "0.215637")), currentDate: "2026-11-26"),
        ]))
        #expect(refusal.description == """
            USD: the official rate 0.0001 RUB is 99.99 % below the current one, 92.5058 RUB of 2026-11-26
            AMD: the official rate 0.431274 RUB is 100 % above the current one, 0.215637 RUB of 2026-11-26
            a change of more than 25 % in a day is refused as a likely error in the file, so nothing was imported: \
            check the file, or import it with --accept-change USD --accept-change AMD
            """)
        #expect(try ledger.rates() == kept)
        // Accepting one of the two still refuses the other; accepting a currency the file lacks is refused.
        #expect(throws: Ledger.RatesError.changes([Ledger.RateChange(currency: "AMD", new: try #require(Decimal(string: "0.431274")),
                                                                     current: try #require(Decimal(string: "0.215637")), currentDate: "2026-11-26")])) {
            try ledger.importRates(typo.rates, date: typo.date, margin: margin, source: "d.xml", accepting: ["USD"])
        }
        #expect(throws: Ledger.RatesError.acceptedAbsent(["GBP"])) {
            try ledger.importRates(typo.rates, date: typo.date, margin: margin, source: "d.xml", accepting: ["GBP"])
        }
        #expect(try ledger.rates() == kept)

        // 24.9 % up is a day's move, imported without a word; an older day after it is refused.
        let move = try file(usd: "115,5000", date: "27.11.2026")
        clock.now += 60
        try ledger.importRates(move.rates, date: move.date, margin: margin, source: "d.xml")
        #expect(try ledger.rates().first { $0.currency == "USD" }?.official == Decimal(string: "115.5"))
        #expect(throws: Ledger.RatesError.olderDay(file: "2026-11-26", current: "2026-11-27")) {
            try ledger.importRates(first.rates, date: first.date, margin: margin, source: "d.xml")
        }
        #expect(Ledger.RatesError.olderDay(file: "2026-11-26", current: "2026-11-27").description == "the file's rates are "
                + "of 2026-11-26, older than the bank's current rates of 2026-11-27: importing them would make a past day's "
                + "rates current, so nothing was imported")
        // A year's typo (2027 for 2026) would make every real day's file older: refused as a wrong date.
        let typoYear = try file(usd: "92,5058", date: "26.11.2027")
        #expect(throws: Ledger.RatesError.farAhead(file: "2027-11-26", today: "2026-11-18")) {
            try ledger.importRates(typoYear.rates, date: typoYear.date, margin: margin, source: "d.xml")
        }
        // Checked and accepted by name, the jump is imported.
        let checked = try file(usd: "0,0001", amd: "43,1274", date: "28.11.2026")
        clock.now += 60
        try ledger.importRates(checked.rates, date: checked.date, margin: margin, source: "d.xml", accepting: ["USD", "AMD"])
        #expect(try ledger.rates().map(\.official) == [try #require(Decimal(string: "0.431274")), try #require(Decimal(string: "0.0001"))])
    }
}

/// A clock the test moves.
final class LockedClock: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Date
    init(_ date: Date) { value = date }
    var now: Date {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}
