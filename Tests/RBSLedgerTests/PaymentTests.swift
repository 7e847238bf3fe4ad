import Foundation
import RBSMoney
import Testing
@testable import RBSLedger

/// The typed view of a payment document (``Payment``): made in one place from the fields' roles, refused by the core
/// with one typed error naming the field when a money field is missing or malformed.
@Suite("Typed payments")
struct PaymentTests {
    static let current = "40817810438000000001"
    static let dollars = "40817840638000000004"
    static let payee = "40702810900000012345"

    static func fields(_ values: [(String, String)]) -> [DocumentField] { values.map { DocumentField($0.0, $0.1) } }

    static let full = fields([
        ("from", current), ("account", payee), ("amount", "1500.5"), ("currency", "RUB"), ("name", "ООО Ромашка"),
        ("bic", "044525593"), ("inn", "7707083893"), ("kpp", "770701001"), ("purpose", "Оплата по счёту 7"),
    ])

    @Test("a payment document reads as money, accounts, the payee with INN and KPP, the purpose, and no fee")
    func readsEveryField() throws {
        let payment = try #require(try Payment(fields: Self.full))
        #expect(payment.amount == Money(minorUnits: 150_050, currency: .rub))
        #expect(payment.amount.plain == "1500.50")
        #expect(payment.debitAccount == Self.current && payment.creditAccount == Self.payee)
        #expect(payment.payee == Payment.Payee(name: "ООО Ромашка", taxID: "7707083893", kpp: "770701001", bank: "044525593"))
        #expect(payment.purpose == "Оплата по счёту 7")
        #expect(payment.fee == nil, "a document without a fee has no fee: none is invented")
    }

    @Test("a fee the document carries is money in the payment's currency")
    func feeWhenPresent() throws {
        let payment = try #require(try Payment(fields: Self.full + Self.fields([("fee", "15")])))
        #expect(payment.fee == Money(minorUnits: 1_500, currency: .rub))
        #expect(throws: PaymentError.notPositive(.fee, text: "1,50", label: "the fee")) {
            try Payment(fields: Self.full + Self.fields([("fee", "1,50")]))
        }
    }

    @Test("a document that moves no money is no payment")
    func noAmountNoPayment() throws {
        #expect(try Payment(fields: Self.fields([("cardMasked", "4111 11** **** 1111"), ("action", "block")])) == nil)
    }

    @Test("the roles of the operation's labels say which key holds the payee's tax id, and name the fields in errors")
    func rolesFromLabels() throws {
        let layout = PaymentLayout(labels: [
            (key: "payeeTaxNumber", label: "ИНН получателя", field: .payeeTaxID),
            (key: "from", label: "Счёт списания", field: .debitAccount),
            (key: "purpose", label: nil, field: .purpose),
        ])
        let fields = Self.full.filter { $0.key != "inn" } + Self.fields([("payeeTaxNumber", "500100732259")])
        let payment = try #require(try Payment(fields: fields, layout: layout))
        #expect(payment.payee.taxID == "500100732259")
        #expect(layout.label(.debitAccount) == "Счёт списания")
        #expect(layout.label(.purpose) == "the purpose", "a key without a label is named by its meaning")
        // A role cannot move a key the contract fixes: the amount is always under "amount".
        let moved = PaymentLayout(labels: [(key: "sum", label: "Сумма", field: .amount)])
        #expect(moved.key(.amount) == "amount")
    }

    @Test("a missing debit account is one typed error naming the field by its label")
    func missingDebitAccount() throws {
        let layout = PaymentLayout(labels: [(key: "from", label: "Счёт списания", field: .debitAccount)])
        let fields = Self.full.filter { $0.key != "from" }
        #expect(throws: PaymentError.missing(.debitAccount, key: "from", label: "Счёт списания")) {
            try Payment(fields: fields, layout: layout)
        }
        do {
            _ = try Payment(fields: fields, layout: layout)
        } catch {
            #expect(error.description == "Счёт списания: the document moves money but has no \"from\" field")
        }
        let empty = Self.full.map { $0.key == "from" ? DocumentField("from", "") : $0 }
        #expect(throws: PaymentError.missing(.debitAccount, key: "from", label: "the debit account")) { try Payment(fields: empty) }
    }

    @Test("the core refuses a payment without a debit account, naming the field, and journals it")
    func coreRefusesMissingDebit() throws {
        let f = try Fixture()
        let document = try f.ledger.draft(operation: "odd", plugin: "p", pluginVersion: "1", fields: [
            .init("account", Self.payee), .init("amount", "5.00"), .init("currency", "RUB"),
        ])
        let predicted = try #require(try f.ledger.bank.validate(document))
        #expect(predicted.code == .missingField)
        #expect(predicted.message == "the document has an amount but no \"from\" field (the debit account)")
        #expect(predicted.facts["field"] == "from" && predicted.facts["label"] == "the debit account")
        let outcome = try f.ledger.signAndPost(document, code: f.nextCode())
        guard case .rejected(_, _, let reason) = outcome else { Issue.record("not rejected: \(outcome)"); return }
        #expect(reason == predicted)
        #expect(try f.balance(Self.current) == 150_000)
    }

    @Test("a malformed amount is refused, never read as zero or rounded", arguments: [
        ("0", PaymentError.notPositive(.amount, text: "0", label: "the amount"), Rejection.Code.amountNotPositive),
        ("-3.00", .notPositive(.amount, text: "-3.00", label: "the amount"), .amountNotPositive),
        ("1.001", .tooManyDecimals(.amount, text: "1.001", currency: .rub, label: "the amount"), .tooManyDecimals),
    ])
    func malformedAmount(text: String, error: PaymentError, code: Rejection.Code) throws {
        let fields = Self.full.map { $0.key == "amount" ? DocumentField("amount", text) : $0 }
        #expect(throws: error) { try Payment(fields: fields) }
        let f = try Fixture()
        let outcome = try f.ledger.signAndPost(try f.payment(amount: text), code: f.nextCode())
        guard case .rejected(_, _, let reason) = outcome else { Issue.record("not rejected: \(outcome)"); return }
        #expect(reason.code == code)
        #expect(try f.balance(Self.current) == 150_000)
    }

    @Test("an unknown or lower-case currency is refused as written")
    func unknownCurrency() throws {
        for code in ["XXX", "rub"] {
            let fields = Self.full.map { $0.key == "currency" ? DocumentField("currency", code) : $0 }
            #expect(throws: PaymentError.unknownCurrency(code, label: "the currency of the amount")) { try Payment(fields: fields) }
        }
    }

    @Test("a foreign-currency amount is money of that currency, with its own minor units, and posts as such")
    func foreignCurrency() throws {
        let dollars = Self.full.map { field -> DocumentField in
            switch field.key {
            case "currency": DocumentField("currency", "USD")
            case "amount": DocumentField("amount", "12.3")
            default: field
            }
        }
        #expect(try Payment(fields: dollars)?.amount == Money(minorUnits: 1_230, currency: .usd))
        let yen = try #require(Currency(code: "JPY"))
        let inYen = dollars.map { $0.key == "currency" ? DocumentField("currency", "JPY") : $0 }
        #expect(throws: PaymentError.tooManyDecimals(.amount, text: "12.3", currency: yen, label: "the amount")) { try Payment(fields: inYen) }

        let f = try Fixture()
        let outcome = try f.ledger.signAndPost(try f.payment(from: Self.dollars, amount: "12.3", currency: "USD"), code: f.nextCode())
        guard case .posted(let receipt) = outcome else { Issue.record("not posted: \(outcome)"); return }
        #expect(receipt.posting.amount == Money(minorUnits: 1_230, currency: .usd))
        #expect(try f.ledger.bank.account(number: Self.dollars)?.balance == Money(minorUnits: 248_770, currency: .usd))
    }

    /// Files outside the mapping where a subscript by one of these keys reads something that is no document: named
    /// here with what it reads.
    static let otherObjects: [String: String] = [
        "PublisherKey.swift": "a publisher key file's `name` line",
        "ValueInput.swift": "the JSON wire's {\"amount\", \"currency\"} value object, before any document exists",
        "CheckCases.swift": "a plugin author's cases file: each case's `name`",
    ]

    @Test("no module outside the payment mapping reads a money field of a document by its key")
    func noMoneyFieldReadByKey() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
        #expect(files.count > 50)
        let keys = PaymentField.allCases.map(\.key) + ["fromAccount", "toAccount"]
        let alternatives = keys.joined(separator: "|")
        // `receiver["amount"]` / `receiver?["from"]`, and `key == "amount"`; a database row's column (`row[…]`) and
        // an HTTP query's parameter (`query[…]`) are no document.
        let subscriptRead = try Regex("([A-Za-z_][A-Za-z0-9_]*)\\??\\[\\s*\"(\(alternatives))\"\\s*\\]")
        let keyCompare = try Regex("\\.?key\\s*==\\s*\"(\(alternatives))\"")
        var found: [String] = []
        for file in files where !file.path.contains("/Sources/RBSLedger/Documents/") && Self.otherObjects[file.lastPathComponent] == nil {
            let text = try String(contentsOf: file, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                for match in line.matches(of: subscriptRead) {
                    let receiver = match.output[1].substring.map(String.init) ?? ""
                    if receiver == "row" || receiver == "query" { continue }
                    found.append("\(file.lastPathComponent):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
                }
                if line.contains(keyCompare) {
                    found.append("\(file.lastPathComponent):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        #expect(found.isEmpty, "read the typed Payment (or Document.text(of:)) instead:\n\(found.joined(separator: "\n"))")
    }
}
