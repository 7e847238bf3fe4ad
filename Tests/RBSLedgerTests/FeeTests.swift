import Foundation
import RBSMoney
import Testing
@testable import RBSLedger

/// A payment's fee leg (issue #32 item 4) on the fixture's engine: the schema step `v17-fees`, the fee posted with
/// the amount in one journal entry to the bank's own income account, the balance covering amount plus fee, and
/// `verify`'s reconciliation of the fee with its signed document.
@Suite("Fees posted by the core")
struct FeeTests {
    static let payee = "40702810900000012345"

    /// A payment of `amount` with `extra` fields (the fee, its currency, …), drafted by the host's signer.
    static func payment(_ f: Fixture, amount: String = "2500.00", extra: [DocumentField]) throws -> Document {
        try f.ledger.draft(operation: "topup.mobile", plugin: "ru.example.payments.quick", pluginVersion: "1.0.0", fields: [
            DocumentField("from", CoreTests.current), DocumentField("account", payee), DocumentField("amount", amount),
            DocumentField("currency", "RUB"), DocumentField("bic", "044525593"), DocumentField("name", "ПАО МТС"),
            DocumentField("purpose", "Пополнение +7 916 123-45-67"),
        ] + extra)
    }

    @Test("a fee moves the amount to the payee and the fee to the bank's RUB income account in one journal entry; verify reconciles it")
    func postsFeeLeg() throws {
        let f = try Fixture()
        let document = try Self.payment(f, extra: [DocumentField("fee", "25.00")])
        guard case .posted(let receipt) = try f.ledger.signAndPost(document, code: f.nextCode()) else {
            Issue.record("not posted")
            return
        }
        let income = try #require(FeeIncome.number(of: "RUB"))
        #expect(income.hasPrefix("70601810"))
        #expect(receipt.posting.fee == FeeLeg(amount: try Money(plain: "25.00", currency: .rub), account: income))
        #expect(receipt.posting.totalDebited.plain == "2525.00")
        #expect(DecimalText.format(receipt.debitBalance, scale: 2) == "147475.00")
        #expect(DecimalText.format(try f.balance(CoreTests.current) ?? 0, scale: 2) == "147475.00")
        let legs = try f.ledger.database.read { db in
            try db.rows("SELECT journal_seq, debit, credit, amount FROM postings ORDER BY id").map { row in
                "\(try row["journal_seq"] as Int64) \(try row["debit"] as String) → \(try row["credit"] as String) \(try row["amount"] as String)"
            }
        }
        #expect(legs == ["1 \(CoreTests.current) → \(Self.payee) 2500.00", "1 \(CoreTests.current) → \(income) 25.00"])
        let held = try f.ledger.database.read { db in try db.value(String.self, "SELECT balance FROM fee_income WHERE currency = 'RUB'") }
        #expect(held == "25.00")
        #expect(try f.ledger.journal.verify() == .ok(1))

        // Submitting the same signed document again gives the first receipt, fee and all, and posts nothing.
        let again = try f.ledger.signAndPost(document, code: f.nextCode())
        guard case .posted(let repeated) = again else { Issue.record("not the first outcome: \(again)"); return }
        #expect(repeated.posting.fee == receipt.posting.fee)
        #expect(DecimalText.format(try f.balance(CoreTests.current) ?? 0, scale: 2) == "147475.00")
    }

    @Test("a balance that covers the amount but not the amount plus the fee is refused, naming all three; nothing moves")
    func insufficientForAmountPlusFee() throws {
        let f = try Fixture()
        let refusal = try f.ledger.bank.validate(try Self.payment(f, amount: "149990.00", extra: [DocumentField("fee", "10.01")]))
        #expect(refusal?.code == .insufficientFunds)
        #expect(refusal?.message == "insufficient funds on \(CoreTests.current): balance 150000.00 RUB, amount 149990.00 RUB plus fee 10.01 RUB = 150000.01 RUB")
        #expect(try f.ledger.bank.validate(try Self.payment(f, amount: "149990.00", extra: [DocumentField("fee", "10.00")])) == nil)
        let outcome = try f.ledger.signAndPost(try Self.payment(f, amount: "149990.00", extra: [DocumentField("fee", "10.01")]), code: f.nextCode())
        guard case .rejected(_, _, let reason) = outcome else { Issue.record("posted: \(outcome)"); return }
        #expect(reason.code == .insufficientFunds)
        #expect(DecimalText.format(try f.balance(CoreTests.current) ?? 0, scale: 2) == "150000.00")
    }

    @Test("a fee in another currency than the payment is refused with a message naming both")
    func feeInAnotherCurrencyRefused() throws {
        let f = try Fixture()
        let refusal = try f.ledger.bank.validate(try Self.payment(f, extra: [DocumentField("fee", "1.00"), DocumentField("feeCurrency", "USD")]))
        #expect(refusal?.code == .feeCurrencyMismatch)
        #expect(refusal?.message == "the currency of the fee: the fee is in USD but the payment is in RUB; the bank takes a fee only in the payment's currency")
        #expect(try f.ledger.bank.validate(try Self.payment(f, extra: [DocumentField("fee", "1.00"), DocumentField("feeCurrency", "RUB")])) == nil)
    }

    @Test("a fee on a document that moves no money, or a document naming the fee's account, is refused")
    func feeWhereNoneCanBe() throws {
        let f = try Fixture()
        let request = try f.ledger.draft(operation: "card.block", plugin: "ru.example.cards", pluginVersion: "1.0.0", fields: [
            DocumentField("cardMasked", "4276 38** **** 0005"), DocumentField("action", "block"), DocumentField("fee", "50.00"),
        ])
        let notCarried = try f.ledger.bank.validate(request)
        #expect(notCarried?.code == .feeNotCarried)
        #expect(notCarried?.message == "the document carries a fee (\"fee\": \"50.00\") but moves no money: only a payment (a document with an amount) can carry a fee")
        let named = try f.ledger.bank.validate(try Self.payment(f, extra: [DocumentField("fee", "25.00"), DocumentField("feeAccount", CoreTests.dollars)]))
        #expect(named?.code == .feeAccountNamed)
        let zero = try f.ledger.bank.validate(try Self.payment(f, extra: [DocumentField("fee", "0.00")]))
        #expect(zero?.code == .amountNotPositive)
        let fine = try f.ledger.bank.validate(try Self.payment(f, extra: [DocumentField("fee", "0.001")]))
        #expect(fine?.code == .tooManyDecimals)
    }

    @Test("the fee is signed: a document whose fee was changed after signing no longer verifies")
    func feeIsSigned() throws {
        let f = try Fixture()
        let document = try Self.payment(f, extra: [DocumentField("fee", "25.00")])
        let signed = try f.identity.sign(document)
        #expect(signed.isValid(publicKey: f.identity.publicKey))
        let changed = try Document(operation: document.operation, plugin: document.plugin, pluginVersion: document.pluginVersion,
                                   fields: document.fields.map { $0.key == "fee" ? DocumentField("fee", "0.01") : $0 },
                                   createdAtMilliseconds: document.createdAtMilliseconds, nonce: document.nonce, keyId: document.keyId)
        #expect(changed.id != document.id)
        let forged = SignedDocument(document: changed, canonicalBytes: CanonicalEncoding.encode(changed), signature: signed.signature)
        #expect(!forged.isValid(publicKey: f.identity.publicKey))
    }

    @Test("a basket's totals are what its documents debit: amount plus fee")
    func basketTotals() throws {
        let f = try Fixture()
        let basket = try Basket([try Self.payment(f, extra: [DocumentField("fee", "25.00")]), try f.payment(amount: "100.00")])
        #expect(basket.totals.map { "\($0.amount) \($0.currency)" } == ["2625.00 RUB"])
    }

    @Test("verify finds a fee income balance its postings do not give")
    func verifyReconcilesIncome() throws {
        let f = try Fixture()
        guard case .posted = try f.ledger.signAndPost(try Self.payment(f, extra: [DocumentField("fee", "25.00")]), code: f.nextCode()) else {
            Issue.record("not posted")
            return
        }
        try f.ledger.database.write { db in try db.execute("UPDATE fee_income SET balance = '30.00' WHERE currency = 'RUB'") }
        let result = try f.ledger.journal.verify()
        guard case .unreconciled(let reason) = result else { Issue.record("reconciled: \(result)"); return }
        #expect(reason.hasPrefix("the bank's RUB fee income \(FeeIncome.number(of: "RUB") ?? "") holds 30.00 RUB, but its postings give 25"))
    }
}
