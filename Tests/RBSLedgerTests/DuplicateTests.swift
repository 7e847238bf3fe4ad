import Foundation
import Testing
@testable import RBSLedger

@Suite("Duplicate payments")
struct DuplicateTests {
    static let payee = "40702810900000012345"

    @Test("the latest posted payment of the same amount (however written) to the payee is found among many others; another amount, currency or payee is none")
    func sameAmountAmongMany() throws {
        let f = try Fixture()
        guard case .posted = try f.ledger.signAndPost(try f.payment(amount: "1500.5"), code: f.nextCode()) else {
            Issue.record("the first payment was not posted"); return
        }
        // The payee's other payments of the day: other amounts (the query selects by amount, not by the payee alone).
        for cents in 1...20 {
            _ = try f.ledger.signAndPost(try f.payment(amount: "10.\(String(format: "%02d", cents))"), code: f.nextCode())
        }
        guard case .posted(let latest) = try f.ledger.signAndPost(try f.payment(amount: "1500.50"), code: f.nextCode()) else {
            Issue.record("the repeat was not posted"); return
        }
        for written in ["1500.5", "1500.50", "1500.500"] {
            #expect(try f.ledger.recentDuplicate(of: try f.payment(amount: written))?.sequence == latest.sequence, "\(written)")
        }
        #expect(try f.ledger.recentDuplicate(of: try f.payment(amount: "1500.51")) == nil)
        #expect(try f.ledger.recentDuplicate(of: try f.payment(amount: "150.05")) == nil)
        #expect(try f.ledger.recentDuplicate(of: try f.payment(to: "40702810500000054321", amount: "1500.50")) == nil)
        #expect(try f.ledger.recentDuplicate(of: try f.payment(from: CoreTests.dollars, amount: "1500.50", currency: "USD")) == nil)
        #expect(try f.ledger.recentDuplicate(of: try f.payment(amount: "10.07"))?.amount == "10.07")
        // A day later none counts.
        f.clock.advance(Ledger.duplicateWindow + 60)
        #expect(try f.ledger.recentDuplicate(of: try f.payment(amount: "1500.50")) == nil)
    }
}
