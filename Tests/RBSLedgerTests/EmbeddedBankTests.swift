import Foundation
import GRDB
import RBSMoney
import Testing
@testable import RBSLedger

@Suite("EmbeddedBank and Ledger")
struct CoreTests {
    static let current = "40817810438000000001"
    static let savings = "40817810738000000002"
    static let blocked = "40817810038000000003"
    static let dollars = "40817840638000000004"

    @Test("the demo customer is seeded on first start")
    func seeded() throws {
        let f = try Fixture()
        let accounts = try f.ledger.bank.accounts()
        #expect(accounts.map(\.number) == [Self.current, Self.savings, Self.blocked, Self.dollars])
        #expect(accounts.allSatisfy { $0.owner == DemoBank.customer })
        #expect(try f.balance(Self.current) == 150_000)
        #expect(try f.ledger.bank.account(number: "40817810000000000000") == nil)
    }

    @Test("a payment to another bank debits the account and returns a receipt")
    func externalPayment() throws {
        let f = try Fixture()
        let outcome = try f.ledger.signAndPost(try f.payment(amount: "1234.56"), code: f.nextCode())
        guard case .posted(let receipt) = outcome else { Issue.record("not posted: \(outcome)"); return }
        #expect(receipt.posting.debit == Self.current)
        #expect(receipt.posting.credit == "40702810900000012345")
        #expect(receipt.posting.amount == Money(minorUnits: 123_456, currency: .rub))
        #expect(!receipt.posting.internalTransfer)
        #expect(receipt.debitBalance == (try f.balance(Self.current)))
        #expect(DecimalText.format(receipt.debitBalance, scale: 2) == "148765.44")
        #expect(receipt.sequence == 1)
    }

    @Test("a transfer between own accounts credits the other account")
    func ownTransfer() throws {
        let f = try Fixture()
        let outcome = try f.ledger.signAndPost(try f.payment(to: Self.savings, amount: "0.01"), code: f.nextCode())
        guard case .posted(let receipt) = outcome else { Issue.record("not posted: \(outcome)"); return }
        #expect(receipt.posting.internalTransfer)
        #expect(DecimalText.format(try f.balance(Self.current) ?? 0, scale: 2) == "149999.99")
        #expect(DecimalText.format(try f.balance(Self.savings) ?? 0, scale: 2) == "500000.01")
    }

    @Test("submitting the same signed document twice posts once and returns the first outcome")
    func idempotent() throws {
        let f = try Fixture()
        let signed = try f.identity.sign(try f.payment(amount: "10.00"))
        let first = try f.ledger.bank.submit(signed: signed, publicKey: f.identity.publicKey)
        let second = try f.ledger.bank.submit(signed: signed, publicKey: f.identity.publicKey)
        #expect(first == second)
        #expect(try f.balance(Self.current) == 149_990)
        #expect(try f.ledger.journal.entries().count == 1)
    }

    @Test("rejections are journaled with their reason", arguments: [
        ("insufficient", Rejection.Code.insufficientFunds),
        ("blocked", .accountBlocked),
        ("unknown", .unknownDebitAccount),
        ("currency", .currencyMismatch),
        // To the USD account: a conversion, refused while the bank has no rate (ExchangeTests covers conversions).
        ("creditCurrency", .noExchangeRate),
        ("zero", .amountNotPositive),
        ("negative", .amountNotPositive),
        ("decimals", .tooManyDecimals),
        ("blockedCredit", .accountBlocked),
    ])
    func rejections(kind: String, code: Rejection.Code) throws {
        let f = try Fixture()
        let document: Document = switch kind {
        case "insufficient": try f.payment(amount: "150000.01")
        case "blocked": try f.payment(from: Self.blocked, amount: "1.00")
        case "unknown": try f.payment(from: "40817810000000000099")
        case "currency": try f.payment(currency: "USD")
        case "creditCurrency": try f.payment(to: Self.dollars)
        case "zero": try f.payment(amount: "0.00")
        case "negative": try f.payment(amount: "-5")
        case "blockedCredit": try f.payment(to: Self.blocked, amount: "1.00")
        default: try f.payment(amount: "1.001")
        }
        // The dry run says exactly what posting will say, and writes nothing.
        let predicted = try f.ledger.bank.validate(document)
        #expect(predicted?.code == code)
        #expect(try f.ledger.journal.entries().isEmpty)
        let outcome = try f.ledger.signAndPost(document, code: f.nextCode())
        guard case .rejected(_, let sequence, let reason) = outcome else { Issue.record("not rejected: \(outcome)"); return }
        #expect(reason.code == code)
        #expect(reason == predicted, "validate and posting share one decision")
        #expect(!reason.message.isEmpty)
        #expect(try f.balance(Self.current) == 150_000)
        let entry = try #require(try f.ledger.journal.entries().first)
        #expect(entry.sequence == sequence)
        #expect(entry.kind == .rejected)
        #expect(entry.reason == reason.message)
        #expect(try f.ledger.journal.verify() == .ok(1))
    }

    @Test("validate: nil for a document the core posts, a missing-field refusal for an amount without an account")
    func validateAccepts() throws {
        let f = try Fixture()
        #expect(try f.ledger.bank.validate(try f.payment(amount: "1.00")) == nil)
        let noAccount = try f.ledger.draft(operation: "odd", plugin: "p", pluginVersion: "1", fields: [
            .init("from", Self.current), .init("amount", "5.00"), .init("currency", "RUB"),
        ])
        #expect(try f.ledger.bank.validate(noAccount)?.code == .missingField)
        #expect(try f.ledger.journal.entries().isEmpty)
        #expect(try f.balance(Self.current) == 150_000)
    }

    @Test("a document without an amount is journaled and acknowledged without postings")
    func acknowledged() throws {
        let f = try Fixture()
        let document = try f.ledger.draft(operation: "card.block", plugin: "ru.example.cards", pluginVersion: "1",
                                          fields: [DocumentField("card", "4276 **** 1234"), DocumentField("reason", "lost")])
        let outcome = try f.ledger.signAndPost(document, code: f.nextCode())
        #expect(outcome == .acknowledged(documentId: document.id, sequence: 1))
        #expect(try f.ledger.bank.accounts().map(\.balance) == DemoBank.seedAccounts.map(\.balance))
    }

    @Test("a wrong code posts nothing and journals nothing")
    func wrongCodePostsNothing() throws {
        let f = try Fixture()
        #expect(throws: LedgerError.code(.wrong(attemptsLeft: 4))) {
            try f.ledger.signAndPost(try f.payment(), code: "000000")
        }
        #expect(try f.ledger.journal.entries().isEmpty)
        #expect(try f.balance(Self.current) == 150_000)
    }

    @Test("a bad signature is refused and not journaled")
    func badSignature() throws {
        let f = try Fixture()
        let document = try f.payment()
        let forged = SignedDocument(document: document, signature: Data(count: 64))
        #expect(throws: LedgerError.badSignature(documentId: document.id)) {
            try f.ledger.bank.submit(signed: forged, publicKey: f.identity.publicKey)
        }
        #expect(try f.ledger.journal.entries().isEmpty)
    }

    @Test("group commit posts a batch in one transaction, in order, with one code")
    func groupCommit() throws {
        let f = try Fixture()
        let batch = try (0..<50).map { _ in try f.payment(amount: "100.00") } + [try f.payment(amount: "1000000.00")]
        let outcomes = try f.ledger.process(batch: batch, code: f.nextCode())
        #expect(outcomes.count == 51)
        #expect(outcomes.map(\.sequence) == Array(1...51))
        #expect(outcomes.prefix(50).allSatisfy { if case .posted = $0 { true } else { false } })
        if case .rejected(_, _, let reason) = outcomes[50] { #expect(reason.code == .insufficientFunds) } else { Issue.record("last not rejected") }
        #expect(try f.balance(Self.current) == 145_000)
        #expect(try f.ledger.journal.verify() == .ok(51))
    }

    @Test("state survives closing and reopening")
    func survivesReopen() throws {
        let f = try Fixture()
        _ = try f.ledger.signAndPost(try f.payment(amount: "5.00"), code: f.nextCode())
        try f.ledger.close()
        let reopened = try f.reopen()
        #expect(try reopened.bank.account(number: Self.current)?.balance.amount == 149_995)
        #expect(try reopened.journal.verify() == .ok(1))
    }

    @Test("SQLite: a file that is not SQLite gives a clear error, not a crash")
    func notADatabase() throws {
        let directory = temporaryDirectory()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(repeating: 0x41, count: 8192).write(to: directory.appendingPathComponent("rbs.sqlite"))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: directory.appendingPathComponent("rbs.sqlite").path)
        #expect { _ = try Ledger(dataDirectory: directory) } throws: { error in
            guard case .corruptDatabase(let path, _) = error as? LedgerError else { return false }
            return path.hasSuffix("rbs.sqlite") && String(describing: error).contains("damaged")
        }
    }

    @Test("SQLite: a database with damaged pages gives a clear error, not a crash")
    func damagedPages() throws {
        let f = try Fixture(engine: .sqlite)
        _ = try f.ledger.signAndPost(try f.payment(), code: f.nextCode())
        try f.ledger.close()
        let url = f.directory.appendingPathComponent("rbs.sqlite")
        var bytes = try Data(contentsOf: url)
        // Overwrite everything after the header page with garbage.
        for i in 4096..<bytes.count { bytes[i] = 0xA5 }
        try bytes.write(to: url)
        #expect(throws: LedgerError.self) {
            let ledger = try Ledger(dataDirectory: f.directory)
            _ = try ledger.journal.verify()
        }
    }
}
