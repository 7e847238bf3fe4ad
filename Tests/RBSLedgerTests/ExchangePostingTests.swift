import Foundation
import RBSMoney
import Testing
@testable import RBSLedger

/// A conversion between own accounts on the fixture's engine (SQLite, or PostgreSQL in make test's second run): the
/// schema step `v13-exchange`, both legs in one transaction and `verify`'s reconciliation, the same SQL on both.
@Suite("Exchange postings on the ledger's engine")
struct ExchangePostingTests {
    @Test("a RUB → USD conversion posts both legs through the bank's positions; verify reconciles them; a stale rate is refused")
    func postsBothLegs() throws {
        let f = try Fixture()
        let usd = OfficialRate(currency: "USD", numericCode: "840", name: "Доллар США", nominal: 1, value: Decimal(string: "92.5058")!)
        try f.ledger.importRates([usd], date: "2025-06-15", margin: Decimal(string: "0.015")!, source: "XML_daily.xml")
        let document = try f.payment(to: CoreTests.dollars, amount: "10000.00")
        #expect([document["creditAmount"], document["rate"], document["ratePair"]] == ["106.50", "93.893387", "USD/RUB"])
        guard case .posted(let receipt) = try f.ledger.signAndPost(document, code: f.nextCode()) else {
            Issue.record("not posted")
            return
        }
        #expect(receipt.posting.conversion?.creditCurrency == "USD")
        #expect(DecimalText.format(try f.balance(CoreTests.current) ?? 0, scale: 2) == "140000.00")
        #expect(DecimalText.format(try f.balance(CoreTests.dollars) ?? 0, scale: 2) == "2606.50")
        let legs = try f.ledger.database.read { db in
            try db.rows("SELECT credit, amount, currency FROM postings WHERE journal_seq = ? ORDER BY id", receipt.sequence).map { row in
                "\(try row["credit"] as String) \(try row["amount"] as String) \(try row["currency"] as String)"
            }
        }
        #expect(legs == ["\(ExchangePosition.number(of: "RUB") ?? "") 10000.00 RUB", "\(CoreTests.dollars) 106.50 USD"])
        #expect(try f.ledger.journal.verify() == .ok(1))
        // The database refuses to change a recorded conversion, as it refuses to change a posting.
        #expect(throws: LedgerError.self) { try f.ledger.database.write { db in try db.execute("UPDATE exchanges SET rate = '1'") } }

        f.clock.advance(24 * 3600)
        let stale = try f.ledger.bank.validate(try f.payment(to: CoreTests.dollars, amount: "10000.00"))
        #expect(stale?.code == .exchangeRateStale)
        #expect(stale?.facts["maximumAge"] == "24 hours")
    }

    @Test("a stored rate that is not plain decimal text is refused by name, never read in part")
    func damagedRateRefused() throws {
        let f = try Fixture()
        let usd = OfficialRate(currency: "USD", numericCode: "840", name: "Доллар США", nominal: 1, value: Decimal(string: "92.5058")!)
        try f.ledger.importRates([usd], date: "2025-06-15", margin: Decimal(string: "0.015")!, source: "XML_daily.xml")
        f.clock.advance(60)
        try f.ledger.database.write { db in
            try db.execute("""
                INSERT INTO exchange_rates (currency, name, rate_date, official, buy, sell, margin, imported_ms, source)
                VALUES ('USD', 'Доллар США', '2025-06-16', '92.5abc', '91', '94', '0.015', ?, 'hand-written')
                """, Timestamp.milliseconds(f.clock.now))
        }
        #expect {
            _ = try f.ledger.rates()
        } throws: { error in
            String(describing: error).contains("exchange_rates.official holds '92.5abc', not a decimal")
        }
    }

    @Test("a conversion awaiting the second signer is decided again at approval: after a newer import it is refused, nothing moves")
    func secondSignerAfterNewRate() throws {
        let c = try SecondSignerTests.Company(threshold: 1_000)
        let usd = OfficialRate(currency: "USD", numericCode: "840", name: "Доллар США", nominal: 1, value: Decimal(string: "92.5058")!)
        try c.f.ledger.importRates([usd], date: "2025-06-15", margin: Decimal(string: "0.015")!, source: "XML_daily.xml")
        let dollars = try #require(try c.f.ledger.customers.accounts(of: c.ann.customer).first { $0.currency == "USD" }?.number)
        c.f.clock.advance(30)
        let document = try c.f.ledger.draft(operation: "transfer.own", plugin: "ru.example.transfers", pluginVersion: "1.0.0", fields: [
            DocumentField("from", c.account), DocumentField("account", dollars), DocumentField("amount", "10000.00"),
            DocumentField("currency", "RUB"), DocumentField("purpose", "Перевод между своими счетами"),
        ], keyId: c.ann.customer.keyId)
        #expect(document["creditAmount"] == "106.50")
        guard case .awaiting = try c.f.ledger.signAndPost(document, code: try c.code(c.ann), as: c.ann) else {
            Issue.record("not awaiting the second signer")
            return
        }
        c.f.clock.advance(3600)
        try c.f.ledger.importRates([usd], date: "2025-06-16", margin: Decimal(string: "0.02")!, source: "XML_daily.xml")
        let before = try c.f.balance(c.account)
        let outcome = try c.f.ledger.approve(entry: 1, code: try c.code(c.bob), as: c.bob)
        guard case .rejected(_, _, let reason) = outcome else { Issue.record("approved at an old rate: \(outcome)"); return }
        #expect(reason.code == .exchangeRateNotCurrent)
        #expect(try c.f.balance(c.account) == before)
        #expect(try c.f.ledger.journal.verify() == .ok(2))
    }
}
