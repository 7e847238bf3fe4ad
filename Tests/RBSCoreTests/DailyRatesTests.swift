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
