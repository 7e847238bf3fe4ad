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
        try f.ledger.importRates([usd], date: "2026-11-26", margin: Decimal(string: "0.015")!, source: "XML_daily.xml")
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
}
