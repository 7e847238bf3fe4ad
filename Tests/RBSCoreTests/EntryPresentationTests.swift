import Foundation
import RBSLedger
import Testing
@testable import RBSCore

/// One presentation of a journaled document (``EntryReport`` through ``DocumentPresentation``): what `journal show`,
/// receipts and the server's `sections` say, asserted whole in English and Russian on documents the example plugins
/// made and the ledger signed — the plugin's labels and enum titles, the masked card, the payer's name, amounts and
/// dates as the language writes them, the catalogue's status word.
@Suite("Entry presentation", .serialized)
struct EntryPresentationTests {
    /// The example plugins' runtime with `operation` filled with `values`, signed with the current code and journaled
    /// as entry 1.
    static func signed(_ operation: String, _ values: [(String, String)]) throws -> Runtime {
        let runtime = try DocumentReviewTests.runtime(isolated: false)
        let session = try runtime.open(operation)
        defer { session.close() }
        for (id, text) in values { _ = try session.commit(id, text: text, reader: .person) }
        guard case .ready(let draft) = session.submit() else {
            Issue.record("\(operation) did not submit: \(session.attention())")
            return runtime
        }
        let ledger = try runtime.ledger()
        let sign = try SignModule(draft: draft, ledger: ledger, directory: runtime.locator.optional(BankDirectory.self))
        let secret = try #require(try ledger.keys.load().totpSecret)
        #expect(try sign.sign(code: TOTP.code(secret: secret, at: DocumentReviewTests.now), confirmDuplicate: false).sequence == 1)
        return runtime
    }

    static func report(_ runtime: Runtime, _ language: HostLanguage, receipt: Bool) throws -> EntryReport {
        try EntryReport(sequence: 1, ledger: try runtime.ledger(), directory: runtime.locator.optional(BankDirectory.self),
                        receipt: receipt, language: language, operation: runtime.registry.listedDescriptor)
    }

    private func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }

    @Test("a card block: journal show in English, the receipt in Russian — labels in each language (rbs.texts/1), the reason's title, the masked card, the payer, `accepted`")
    func cardBlock() throws {
        let runtime = try Self.signed("card.block", [("cardNumber", "4111 1111 1111 1111"), ("reason", "2"), ("confirm", "да")])
        let shown = try Self.report(runtime, .en, receipt: false)
        let entry = shown.entry
        #expect(ReceiptFormat.text(shown) == """
            Journal entry 1
            ===============

            Document
              Operation:               Block a card (card.block)
              Plugin:                  ru.example.cards 1.1.0
              Created:                 21.09.2026 14:13:20 UTC
              Payer:                   review
              Card:                    4111 11** **** 1111
              Last digits of the card: 1111
              Reason for blocking:     Stolen
              Action:                  block the card

            Outcome
              Status:                  accepted
              Journal entry:           1
              Recorded:                21.09.2026 14:13:20 UTC

            Signature
              Document hash (SHA-256): \(entry.documentId)
              Signature (Ed25519):     \(hex(entry.signature))
              Key id:                  \(entry.keyId)
              Authorised with:         TOTP one-time code (not bound to the document)
              Entry hash:              \(hex(entry.hash))

            """)
        let receipt = try Self.report(runtime, .ru, receipt: true)
        #expect(ReceiptFormat.text(receipt) == """
            Квитанция к записи журнала 1
            ============================

            Банк
              Банк:                    ПАО Сбербанк
              БИК:                     044525225
              Корреспондентский счёт:  30101810400000000225

            Документ
              Операция:                Блокировка карты (card.block)
              Плагин:                  ru.example.cards 1.1.0
              Составлен:               21.09.2026 14:13:20 UTC
              Плательщик:              review
              Карта:                   4111 11** **** 1111
              Последние цифры карты:   1111
              Причина блокировки:      Украдена
              Действие:                блокировка карты

            Исполнение
              Статус:                  принято
              Запись журнала:          1
              Записан:                 21.09.2026 14:13:20 UTC

            Подпись
              Хеш документа (SHA-256): \(entry.documentId)
              Подпись (Ed25519):       \(hex(entry.signature))
              Идентификатор ключа:     \(entry.keyId)
              Подтверждено:            одноразовый код TOTP (не привязан к документу)
              Хеш записи:              \(hex(entry.hash))

            """)
        let html = String(decoding: try ReceiptFormat.html.render(receipt), as: UTF8.self)
        #expect(html.contains("<html lang=\"ru\">") && html.contains("<tr><th>Причина блокировки</th><td>Украдена</td></tr>\n"))
    }

    @Test("a tax payment in Russian: amounts grouped with a no-break space, the date as written, the payment type's title, fields 60, 22 and 108 by the plugin's labels")
    func taxPayment() throws {
        let runtime = try Self.signed("pay.pp.tax", DocumentReviewTests.tax)
        let shown = try Self.report(runtime, .ru, receipt: false)
        let entry = shown.entry
        #expect(ReceiptFormat.text(shown) == """
            Запись журнала 1
            ================

            Документ
              Операция:                                          Платёж в бюджет (pay.pp.tax)
              Плагин:                                            ru.example.payments.tax 1.1.0
              Составлен:                                         21.09.2026 14:13:20 UTC
              Плательщик:                                        review
              Сумма:                                             12\u{00A0}345,67 RUB
              Получатель:                                        УФК по г. Москве
              ИНН получателя:                                    7727406020
              Счёт получателя:                                   40702810638000000123
              Банк получателя:                                   ПАО Сбербанк, БИК 044525225
              Счёт списания:                                     40817810438000000001
              Назначение платежа:                                Налог на доходы физических лиц
              Вид платежа:                                       Налоговый платёж
              Статус плательщика (101):                          01
              ИНН плательщика (60):                              7707083893
              УИН (22):                                          0
              КБК (104):                                         18210102010011000110
              ОКТМО (105):                                       45382000
              Основание платежа (106):                           ТП
              Налоговый период или код таможенного органа (107): МС.03.2026
              Номер документа-основания (108):                   0
              Дата документа-основания (109):                    31.03.2026
              КПП получателя:                                    770801001

            Исполнение
              Статус:                                            проведено
              Запись журнала:                                    1
              Записан:                                           21.09.2026 14:13:20 UTC
              Списано → зачислено:                               40817810438000000001 → 40702810638000000123
              Проведённая сумма:                                 12\u{00A0}345,67 RUB
              Остаток после:                                     137\u{00A0}654,33 RUB

            Подпись
              Хеш документа (SHA-256):                           \(entry.documentId)
              Подпись (Ed25519):                                 \(hex(entry.signature))
              Идентификатор ключа:                               \(entry.keyId)
              Подтверждено:                                      одноразовый код TOTP (не привязан к документу)
              Хеш записи:                                        \(hex(entry.hash))

            """)
    }

    @Test("every word of a report, a table and a question has both languages, and they differ")
    func reportCatalogueHasBoth() {
        let reports: [HostMessage.Report] = [
            .receiptTitle(1), .entryTitle(1), .bankSection, .documentSection, .outcomeSection, .signatureSection, .basketSection,
            .bankName, .bankWithBIC("1"), .correspondentAccount, .operation, .plugin, .created, .payer, .statusLabel, .journalEntry,
            .recorded, .debitedCredited, .amountPosted, .balanceAfter, .reason, .documentHash, .signatureEd25519, .signaturePasskey,
            .keyId, .authorisedWith, .entryHash, .response, .authorisedTOTP, .authorisedOCRA(suite: "S", basket: false),
            .authorisedOCRA(suite: "S", basket: true), .authorisedPasskey(suite: "S"), .notRecorded,
            .basketOutcome(id: "", posted: 1, of: 2, repeated: true), .basketInvalid(id: ""), .basketListMissing,
            .documentInBasketLabel, .documentInBasket(1, of: 2), .basketTotal, .basketEntries, .basketSignature, .numberColumn,
            .timeColumn, .statusColumn, .operationColumn, .amountColumn, .routeColumn, .signedWithColumn, .noteColumn, .titleColumn,
            .categoryColumn, .pluginColumn, .payeeColumn, .payeeAccountColumn, .journalEmpty, .noEntryMatches, .methodTOTP,
            .methodNotRecorded, .inBasket("1"), .noOperations, .unavailable(operation: "op", why: "x"),
            .duplicateNotice(entry: 1, postedAt: "x", awaiting: false), .duplicateNotice(entry: 1, postedAt: "x", awaiting: true),
            .warning, .signAgain, .answerYesOrNo,
            .templateSaved(name: "n", operation: "op", values: 1), .noTemplates, .templateUsage, .fromTemplate("n"), .fromEntry(1),
            .hasNoAtom(source: "s", operation: "op", version: "1"), .droppedValue(id: "a", value: "v"),
        ]
        for report in reports {
            let english = report.text(.en), russian = report.text(.ru)
            #expect(!english.isEmpty && !russian.isEmpty && english != russian, "\(report)")
        }
    }

    @Test("one word per outcome kind, from the catalogue: the journal's, a report's and a run's")
    func statusWords() {
        let kinds: [JournalEntry.Kind] = [.posted, .acknowledged, .rejected, .awaiting]
        #expect(kinds.map { HostMessage.status($0).text(.en) } == ["posted", "accepted", "rejected", "awaiting a second signature"])
        #expect(kinds.map { HostMessage.status($0).text(.ru) } == ["проведено", "принято", "отклонено", "ожидает второй подписи"])
        #expect(HostMessage.posted.text(.ru) == HostMessage.status(.posted).text(.ru))
    }
}
