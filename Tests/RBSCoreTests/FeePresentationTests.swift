import Foundation
import RBSLedger
import RBSMoney
import Testing
@testable import RBSCore

/// A payment's fee as every front end shows it (issue #32 item 4): the review's rows, `journal show`, the receipt
/// (text and PDF) and the statement, all made from ``DocumentPresentation`` and ``EntryReport``.
@Suite("Fees in the review, receipts and statements")
struct FeePresentationTests {
    static let from = "40817810438000000001"
    static let income = FeeIncome.number(of: "RUB") ?? ""

    /// A ledger with keys and one posted mobile top-up of 2500.00 RUB with a fee of 25.00 (entry 1).
    private func ledger() throws -> Ledger {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rbs-fee-tests-\(UUID().uuidString)")
        let ledger = try Ledger.create(dataDirectory: directory).ledger
        _ = try KeyStore(dataDirectory: directory).initialize(name: "Test", force: false)
        let identity = try KeyStore(dataDirectory: directory).load()
        let document = try ledger.draft(operation: "topup.mobile", plugin: "ru.example.payments.quick", pluginVersion: "1.0.0", fields: [
            DocumentField("from", Self.from), DocumentField("account", "40702810100000001234"), DocumentField("bic", "044525232"),
            DocumentField("name", "ПАО «МТС»"), DocumentField("purpose", "Пополнение счёта телефона +7 9161234567"),
            DocumentField("amount", "2500.00"), DocumentField("currency", "RUB"), DocumentField("fee", "25.00"),
        ])
        let outcome = try ledger.bank.submit(signed: try identity.sign(document), publicKey: identity.publicKey)
        guard case .posted = outcome else { throw ReceiptError.notPosted(1, kind: "\(outcome)", reason: nil) }
        return ledger
    }

    /// "label: value" of each row of `section`.
    private func lines(_ section: EntryReport.Section) -> [String] { section.rows.map { "\($0.label): \($0.value)" } }

    @Test("the review shows the amount, the fee and the total debited, in English and Russian, right after the amount")
    func reviewRows() {
        let fields: [(key: String, value: String)] = [
            ("from", Self.from), ("amount", "2500.00"), ("currency", "RUB"), ("fee", "25.00"), ("name", "ПАО «МТС»"),
        ]
        func shown(_ language: HostLanguage) -> [String] {
            DocumentPresentation.rows(fields, presentation: { FieldPresentation(label: $0, role: DocumentFieldRole.ofCoreKey($0) ?? .other, atom: nil) },
                                      directory: nil, language: language).map { "\($0.label): \($0.value)\($0.prominent ? " !" : "")" }
        }
        #expect(shown(.en) == ["Amount: 2,500.00 RUB !", "Fee: 25.00 RUB !", "Total debited: 2,525.00 RUB !", "Payee: ПАО «МТС» !",
                               "From account: \(Self.from)"])
        #expect(shown(.ru) == ["Сумма: 2\u{A0}500,00 RUB !", "Комиссия: 25,00 RUB !", "Всего к списанию: 2\u{A0}525,00 RUB !",
                               "Получатель: ПАО «МТС» !", "Счёт списания: \(Self.from)"])
        // A fee in another currency is shown as written, with no total: the core refuses it, and says why.
        let other = DocumentPresentation.feeRows([("amount", "2500.00"), ("currency", "RUB"), ("fee", "1.00"), ("feeCurrency", "USD")],
                                                 language: .en)
        #expect(other.map { "\($0.label): \($0.value)" } == ["Fee: 1.00 USD"])
    }

    @Test("journal show and the receipt list the fee and the total in the document and the fee posted in the outcome")
    func receiptRows() throws {
        let ledger = try ledger()
        let shown = try EntryReport(sequence: 1, ledger: ledger, directory: nil, receipt: false)
        let document = lines(shown.sections[0])
        let amount = try #require(document.firstIndex(of: "Amount: 2,500.00 RUB"))
        #expect(Array(document[amount...].prefix(3)) == ["Amount: 2,500.00 RUB", "Fee: 25.00 RUB", "Total debited: 2,525.00 RUB"])
        #expect(lines(shown.sections[1]).filter { $0.hasPrefix("Amount posted") || $0.hasPrefix("Fee posted") || $0.hasPrefix("Total debited")
            || $0.hasPrefix("Balance after") } == [
            "Amount posted: 2,500.00 RUB", "Fee posted: 25.00 RUB: \(Self.from) → \(Self.income)", "Total debited: 2,525.00 RUB",
            "Balance after: 147,475.00 RUB",
        ])

        let receipt = try EntryReport(sequence: 1, ledger: ledger, directory: nil, receipt: true, language: .ru)
        let text = ReceiptFormat.text(receipt).split(separator: "\n").map { $0.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) } }
        #expect(text.contains(["Комиссия", "25,00 RUB"]))
        #expect(text.contains(["Всего к списанию", "2\u{A0}525,00 RUB"]))
        #expect(text.contains(["Проведённая комиссия", "25,00 RUB: \(Self.from) → \(Self.income)"]))
        #expect(text.contains(["Всего списано", "2\u{A0}525,00 RUB"]))

        // The PDF writes each label and value as one run of glyphs: the fee's rows are there, exactly.
        let pdf = try ReceiptFormat.pdf.render(receipt)
        let font = try TrueTypeFont(path: ReceiptFormat.fontPath)
        func run(_ text: String) -> Data { Data(("<" + text.unicodeScalars.map { String(format: "%04X", font.glyph($0)) }.joined() + "> Tj").utf8) }
        for shown in ["Комиссия", "25,00 RUB", "Всего к списанию", "2\u{A0}525,00 RUB"] {
            #expect(pdf.range(of: run(shown)) != nil, "\(shown)")
        }
    }

    @Test("the core's fee refusals are said in Russian from their facts, naming the amount, the fee and the total")
    func refusalsInRussian() throws {
        let ledger = try ledger()
        let keyId = try ledger.keys.load().keyId
        func refusal(_ fields: [DocumentField]) throws -> Rejection? {
            try ledger.bank.validate(try ledger.draft(operation: "topup.mobile", plugin: "ru.example.payments.quick", pluginVersion: "1.0.0",
                                                      fields: fields, keyId: keyId))
        }
        let base = [DocumentField("from", Self.from), DocumentField("account", "40702810100000001234"), DocumentField("currency", "RUB")]
        let short = try #require(try refusal(base + [DocumentField("amount", "147000.00"), DocumentField("fee", "1470.00")]))
        #expect(HostMessage.describe(short, .ru)
                == "недостаточно средств на счёте \(Self.from): остаток 147\u{00A0}475,00 RUB, сумма 147\u{00A0}000,00 RUB плюс комиссия 1\u{00A0}470,00 RUB = 148\u{00A0}470,00 RUB")
        let other = try #require(try refusal(base + [DocumentField("amount", "10.00"), DocumentField("fee", "1.00"), DocumentField("feeCurrency", "USD")]))
        #expect(HostMessage.describe(other, .ru) == "комиссия указана в USD, а платёж — в RUB: банк берёт комиссию только в валюте платежа")
    }

    @Test("the statement has the payment's line and the fee's line of the same entry, the fee's counterparty the bank")
    func statementLines() throws {
        let ledger = try ledger()
        let statement = try ledger.statement(account: Self.from)
        #expect(statement.lines.map { "\($0.sequence) \($0.amount) \($0.isFee) \($0.counterpartyAccount)" } == [
            "1 -2500 false 40702810100000001234", "1 -25 true \(Self.income)",
        ])
        #expect(statement.lines.map { StatementFormat.counterparty($0, language: .en) } == ["ПАО «МТС», 40702810100000001234", "Bank fee, \(Self.income)"])
        #expect(StatementFormat.counterparty(statement.lines[1], language: .ru) == "Комиссия банка, \(Self.income)")
        let json = StatementFormat.json(statement)
        #expect(json.lines.map { "\($0.kind) \($0.amount)" } == ["payment -2500.00", "fee -25.00"])
        #expect(json.closing == "147475.00")
    }
}
