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
        for written in ["1500.5", "1500.50"] {
            #expect(try f.ledger.recentDuplicate(of: try f.payment(amount: written))?.sequence == latest.sequence, "\(written)")
        }
        // More decimals than RUB has: no payment (the core refuses it, ``PaymentError/tooManyDecimals``), so it repeats nothing.
        #expect(try f.ledger.recentDuplicate(of: try f.payment(amount: "1500.500")) == nil)
        #expect(try f.ledger.recentDuplicate(of: try f.payment(amount: "1500.51")) == nil)
        #expect(try f.ledger.recentDuplicate(of: try f.payment(amount: "150.05")) == nil)
        #expect(try f.ledger.recentDuplicate(of: try f.payment(to: "40702810500000054321", amount: "1500.50")) == nil)
        #expect(try f.ledger.recentDuplicate(of: try f.payment(from: CoreTests.dollars, amount: "1500.50", currency: "USD")) == nil)
        #expect(try f.ledger.recentDuplicate(of: try f.payment(amount: "10.07"))?.amount == "10.07")
        // The payee's name and the purpose as a person reads them: a doubled or trailing space, another case or ё for е
        // is the same payment (the doubled space let a tester post the same payment twice unasked); another word is not.
        let respaced = { (name: String, purpose: String) throws -> Document in
            try f.ledger.draft(operation: "payment.domestic", plugin: "ru.example.payments", pluginVersion: "1.0.0", fields: [
                DocumentField("from", "40817810438000000001"), DocumentField("account", Self.payee), DocumentField("amount", "1500.50"),
                DocumentField("currency", "RUB"), DocumentField("bic", "044525593"), DocumentField("name", name),
                DocumentField("purpose", purpose),
            ])
        }
        for (name, purpose) in [("ООО  Ромашка", "Оплата по счёту 7 "), (" ооо ромашка", "оплата  по  СЧЕТУ 7")] {
            #expect(try f.ledger.recentDuplicate(of: try respaced(name, purpose))?.sequence == latest.sequence, "\(name) / \(purpose)")
        }
        #expect(try f.ledger.recentDuplicate(of: try respaced("ООО Ромашка", "Оплата по счёту 8")) == nil)
        // A day later none counts.
        f.clock.advance(Ledger.duplicateWindow + 60)
        #expect(try f.ledger.recentDuplicate(of: try f.payment(amount: "1500.50")) == nil)
    }

    @Test("with a signer's key: the payments of that signer's customer count, whichever of its users signed or approved them; another customer's same payment does not")
    func ownPaymentsOnly() throws {
        let c = try SecondSignerTests.Company()
        let (carl, _) = try c.f.ledger.customers.add(name: "carl", passwordRecord: "z")
        let carlsCredentials = try #require(try c.f.ledger.customers.credentials(named: "carl"))
        func draft(_ amount: String, keyId: String, from: String) throws -> Document {
            try c.f.ledger.draft(operation: "payment.domestic", plugin: "ru.example.payments", pluginVersion: "1.0.0", fields: [
                DocumentField("from", from), DocumentField("account", Self.payee), DocumentField("amount", amount),
                DocumentField("currency", "RUB"), DocumentField("name", "ООО Ромашка"), DocumentField("purpose", "Оплата \(amount)"),
            ], keyId: keyId)
        }
        // Carl pays the payee the same amount, with the same name and purpose, many times.
        let carlsAccount = try c.f.ledger.customers.accounts(of: carl)[0].number
        for _ in 0..<5 {
            c.f.clock.advance(30)
            let code = try c.f.ledger.customers.code(for: "carl", at: c.f.clock.now)
            guard case .posted = try c.f.ledger.signAndPost(try draft("150.00", keyId: carl.keyId, from: carlsAccount),
                                                           code: code, as: carlsCredentials) else {
                Issue.record("carl's payment was not posted"); return
            }
        }
        let annsNew = try draft("150.00", keyId: c.ann.customer.keyId, from: c.account)
        #expect(try c.f.ledger.recentDuplicate(of: annsNew, keyId: c.ann.customer.keyId) == nil)
        #expect(try c.f.ledger.recentDuplicate(of: annsNew)?.keyId == carl.keyId)  // without a key: anyone's

        // Ann's own payment counts.
        guard case .posted(let own) = try c.annPays("150.00") else { Issue.record("ann's payment was not posted"); return }
        #expect(try c.f.ledger.recentDuplicate(of: annsNew, keyId: c.ann.customer.keyId)?.sequence == own.sequence)

        // Above the threshold: bob approves, so the posted entry's row names bob, its document ann.
        guard case .awaiting(_, let awaiting) = try c.annPays("200000.00") else { Issue.record("not awaiting"); return }
        guard case .posted(let approved) = try c.f.ledger.approve(entry: awaiting, code: try c.code(c.bob), as: c.bob) else {
            Issue.record("not approved"); return
        }
        let big = try draft("200000.00", keyId: c.ann.customer.keyId, from: c.account)
        #expect(try c.f.ledger.recentDuplicate(of: big, keyId: c.ann.customer.keyId)?.sequence == approved.sequence)
        // Bob, another user of the same customer, repeating it is asked too: the customer's payment, not ann's alone
        // (an API user and a second user repeated a posted payment unasked).
        let bobs = try draft("200000.00", keyId: c.bob.customer.keyId, from: c.account)
        #expect(try c.f.ledger.recentDuplicate(of: bobs, keyId: c.bob.customer.keyId)?.sequence == approved.sequence)
        let bobsSmall = try draft("150.00", keyId: c.bob.customer.keyId, from: c.account)
        #expect(try c.f.ledger.recentDuplicate(of: bobsSmall, keyId: c.bob.customer.keyId)?.sequence == own.sequence)
        // Carl's key is his customer's alone: ann's payments are not his.
        let carlsBig = try draft("200000.00", keyId: carl.keyId, from: carlsAccount)
        #expect(try c.f.ledger.recentDuplicate(of: carlsBig, keyId: carl.keyId) == nil)
    }
}
