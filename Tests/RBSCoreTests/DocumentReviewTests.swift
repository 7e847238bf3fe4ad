import CRBSPlugin
import Foundation
import RBSLedger
import Testing
@testable import RBSCore

/// The review before signing, as a customer reads it: labels from `rbs.document-labels/1` (the C, Swift and Rust
/// examples), enum titles, grouped amounts, payee, account and bank first — the same in this process and through a
/// plugin worker.
@Suite(.serialized)
struct DocumentReviewTests {
    static let now = Date(timeIntervalSince1970: 1_790_000_000)

    /// The example plugins, a data folder with a ledger and keys, a runtime (in this process, or in workers).
    static func runtime(isolated: Bool) throws -> Runtime {
        let files = (try? RBSCore.PluginRegistry.pluginFiles(in: Fixtures.plugins.path)) ?? []
        try #require(!files.isEmpty, "Plugins/ is empty: run `make plugins` first (`make test` does)")
        if isolated {
            try #require(FileManager.default.isExecutableFile(atPath: WorkerIsolationTests.worker.path),
                         "build rbs-host first (swift build)")
        }
        let data = Fixtures.temporaryDirectory("review-data")
        try Ledger.create(dataDirectory: data, clock: { now }).ledger.close()
        _ = try KeyStore(dataDirectory: data).initialize(name: "review", force: false)
        let runtime = Runtime(paths: HostPaths(plugins: Fixtures.plugins.path, data: data), clock: FixedClock(now),
                              log: StandardErrorLog(minimum: .error),
                              isolation: isolated ? WorkerIsolationTests.settings(deadline: .seconds(10)) : nil)
        runtime.loadPlugins()
        return runtime
    }

    /// The review's lines above the document id, as `caption: value`.
    static func review(_ runtime: Runtime, _ operation: String, _ values: [(String, String)],
                       in language: HostLanguage = .en) throws -> [String] {
        let session = try runtime.open(operation)
        defer { session.close() }
        session.language = language
        for (id, text) in values { _ = try session.commit(id, text: text, reader: .person) }
        guard case .ready(let draft) = session.submit() else {
            Issue.record("\(operation) did not submit: \(session.attention())")
            return []
        }
        let sign = try SignModule(draft: draft, ledger: try runtime.ledger(), directory: runtime.locator.optional(BankDirectory.self))
        #expect(sign.refusal == nil, "\(operation): \(String(describing: sign.refusal))")
        let document = HostMessage.document.text(language)
        return sign.review(in: language).prefix { $0.caption != document }.map { "\($0.caption): \($0.value)" }
    }

    /// The review's rows of `operation` filled with `values` (with their fields and prominence), and its heading.
    static func rows(_ runtime: Runtime, _ operation: String, _ values: [(String, String)],
                     _ language: HostLanguage) throws -> (rows: [DocumentPresentation.Row], heading: String?) {
        let session = try runtime.open(operation)
        defer { session.close() }
        session.language = language
        for (id, text) in values { _ = try session.commit(id, text: text, reader: .person) }
        guard case .ready(let draft) = session.submit() else {
            Issue.record("\(operation) did not submit: \(session.attention())")
            return ([], nil)
        }
        return (DocumentPresentation.rows(draft.fields, presentation: draft.presentation(of:), directory: nil, language: language),
                DocumentPresentation.heading(draft.fields, language: language))
    }

    static let quick: [(String, String)] = [
        ("srcAccount", "1"), ("destName", "ООО Ромашка"), ("destInn", "7707083893"), ("destAccount", "40702810938000000001"),
        ("destBic", "044525225"), ("destDesc", "Оплата по счёту 7"), ("amount", "1 000,50"),
    ]

    static let tax: [(String, String)] = [
        ("srcAccount", "1"), ("type", "2"), ("payerStatus", "01"), ("payerInn", "7707083893"), ("kbk", "18210102010011000110"), ("oktmo", "45382000"),
        ("basis", "ТП"), ("period", "МС.03.2026"), ("docDate", "31.03.2026"),
        ("destName", "УФК по г. Москве"), ("destInn", "7727406020"), ("destKpp", "770801001"),
        ("destAccount", "40702810638000000123"), ("destBic", "044525225"), ("destDesc", "Налог на доходы физических лиц"),
        ("amount", "12 345,67"),
    ]

    /// The tax payment's fields under the plugin's labels (the atoms' captions), the type as its title.
    /// Fields 60 and 22 (the payer's INN, the УИН "0" by default), 108 "0" by default, 109 as written: a text field,
    /// since "0" is its value when there is no document.
    static let taxLabelled = [
        "Вид платежа: Налоговый платёж", "Статус плательщика (101): 01", "ИНН плательщика (60): 7707083893", "УИН (22): 0",
        "КБК (104): 18210102010011000110", "ОКТМО (105): 45382000", "Основание платежа (106): ТП",
        "Налоговый период или код таможенного органа (107): МС.03.2026", "Номер документа-основания (108): 0",
        "Дата документа-основания (109): 31.03.2026", "КПП получателя: 770801001",
    ]

    /// The same fields under the plugin's English labels (its `rbs.texts/1` captions and option titles).
    static let taxLabelledInEnglish = [
        "Payment type: Tax payment", "Payer's status (101): 01", "Payer's INN (60): 7707083893", "UIN (22): 0",
        "Budget classification code (104): 18210102010011000110", "OKTMO (105): 45382000", "Payment basis (106): ТП",
        "Tax period or customs office code (107): МС.03.2026", "Basis document number (108): 0",
        "Basis document date (109): 31.03.2026", "Payee's KPP: 770801001",
    ]

    /// pay.pp.tax sets fields 108 and 109 to "0" when a budget type is chosen, and the form checks 109's value at once
    /// by its valid-if, which calls the plugin's own `isBasisDate`: in a worker that call reaches the plugin while
    /// the worker still waits for the host's answer to its set_value.
    @Test("a value a plugin sets is checked by its own function in the same worker: the run goes on", arguments: [false, true])
    func pluginFunctionDuringSetValue(isolated: Bool) throws {
        let runtime = try Self.runtime(isolated: isolated)
        let session = try runtime.open("pay.pp.tax")
        defer { session.close() }
        _ = try session.commit("type", text: "1", reader: .script)
        #expect(session.atom("docNumber")?.value == "0")
        #expect(session.atom("docDate")?.value == "0")
        #expect(session.atom("docDate")?.error == nil)
        _ = try session.commit("docDate", text: "30.02.2026", reader: .person)
        #expect(session.atom("docDate")?.error
                == "The basis document's date is DD.MM.YYYY, a date that exists (31.03.2026), or 0 if there is no document")
    }

    @Test("the review of each example: payee, account and bank first, labels not keys, enum titles, a grouped amount",
          arguments: [false, true])
    func examplesReview(isolated: Bool) throws {
        let runtime = try Self.runtime(isolated: isolated)
        #expect(try Self.review(runtime, "transfer.own", [("fromAccount", "1"), ("toAccount", "2"), ("amount", "1 500")]) == [
            "Amount: 1,500.00 RUB",
            "Payee's account: 40817810738000000002",
            "From account: 40817810438000000001",
            "Purpose: Перевод между своими счетами",
        ])
        #expect(try Self.review(runtime, "pay.pp.quick", Self.quick) == [
            "Amount: 1,000.50 RUB",
            "Payee: ООО Ромашка",
            "Payee's INN: 7707083893",
            "Payee's account: 40702810938000000001",
            "Bank: ПАО Сбербанк, BIC 044525225",
            "From account: 40817810438000000001",
            "Purpose: Оплата по счёту 7",
        ])
        #expect(try Self.review(runtime, "pay.pp.tax", Self.tax) == [
            "Amount: 12,345.67 RUB",
            "Payee: УФК по г. Москве",
            "Payee's INN: 7727406020",
            "Payee's account: 40702810638000000123",
            "Bank: ПАО Сбербанк, BIC 044525225",
            "From account: 40817810438000000001",
            "Purpose: Налог на доходы физических лиц",
        ] + Self.taxLabelledInEnglish)
        let card = try Self.review(runtime, "card.block", [("cardNumber", "4111 1111 1111 1111"), ("reason", "1"), ("confirm", "да")])
        #expect(card == [
            "Card: 4111 11** **** 1111",
            "Last digits of the card: 1111",
            "Reason for blocking: Lost",
            "Action: block the card",
        ], "\(card)")
        // The core's word for the action, as a person says it, prominent beside the card (never the raw "block").
        let rows = try Self.rows(runtime, "card.block", [("cardNumber", "4111 1111 1111 1111"), ("reason", "1"), ("confirm", "да")], .ru)
        #expect(rows.rows.first { $0.field == "action" }.map { "\($0.label): \($0.value) \($0.prominent)" } == "Действие: блокировка карты true")
        // A document that moves no money is headed by what it does (the web review's heading, where a payment's is
        // its amount and payee); a payment has none.
        #expect(rows.heading == "Блокировка карты 4111 11** **** 1111")
        // An unblock (its form needs a blocked card: its fields as card.unblock builds them); the same "action" without
        // a card is no card document, and its value is shown as written.
        let unblock: [(key: String, value: String)] = [("cardMasked", "4111 11** **** 1111"), ("cardLastFour", "1111"), ("action", "unblock")]
        let presentation = { (key: String) in FieldPresentation(label: key, role: key == "cardMasked" ? .cardNumber : .other, atom: nil) }
        #expect(DocumentPresentation.rows(unblock, presentation: presentation, directory: nil, language: .en)
            .first { $0.field == "action" }?.value == "unblock the card")
        #expect(DocumentPresentation.heading(unblock, language: .en) == "Unblock the card 4111 11** **** 1111")
        #expect(DocumentPresentation.rows([("action", "unblock")], presentation: presentation, directory: nil, language: .en)
            .first?.value == "unblock")
        #expect(DocumentPresentation.heading([("action", "unblock")], language: .en) == nil)
        #expect(try Self.rows(runtime, "pay.pp.quick", Self.quick, .en).heading == nil)
    }

    @Test("the labels cross from each example's extension into the manifest, and through a worker the same")
    func labelsInTheManifest() throws {
        for isolated in [false, true] {
            let runtime = try Self.runtime(isolated: isolated)
            let transfer = try #require(runtime.registry.operation(id: "transfer.own"))
            #expect(transfer.descriptor.documentLabels.map(\.key) == ["from", "account", "amount", "currency", "purpose"])
            #expect(transfer.descriptor.documentLabels.first { $0.key == "account" }?.atom == "toAccount")
            let card = try #require(runtime.registry.operation(id: "card.block"))
            #expect(card.descriptor.documentLabels.first { $0.key == "cardMasked" }?.role == .cardNumber)
            let tax = try #require(runtime.registry.operation(id: "pay.pp.tax"))
            #expect(tax.descriptor.documentLabels.first { $0.key == "inn" } == DocumentLabel(key: "inn", label: nil, role: .payeeTaxID, atom: "destInn"))
        }
    }

    @Test("without labels: the caption of the atom whose id is the key, else the key; the core's keys keep their roles")
    func fallbackWithoutLabels() throws {
        let atoms = [
            AtomDescriptor(id: "kind", kind: .enumeration, inputType: .text, flags: [], minLength: 0, maxLength: 0,
                           caption: "Вид", hint: nil, currency: nil, showIf: nil, validIf: nil, errorText: nil, filter: nil,
                           defaultValue: nil, options: [AtomOption(value: "2", title: "Таможенный")]),
        ]
        let operation = OperationDescriptor(id: "op", title: "Op", category: "Tests", atoms: atoms, functions: [],
                                            observesValues: false, hasAction: false)
        #expect(FieldPresentation.of("kind", in: operation) == FieldPresentation(label: "Вид", role: .other, atom: atoms[0]))
        #expect(FieldPresentation.of("note", in: operation) == FieldPresentation(label: "note", role: .other, atom: nil))
        #expect(FieldPresentation.of("account", in: operation).role == .payeeAccount)
        #expect(DocumentPresentation.value("2", FieldPresentation.of("kind", in: operation)) == "Таможенный")
        #expect(DocumentPresentation.value("7", FieldPresentation.of("kind", in: operation)) == "7")
        #expect(DocumentPresentation.value("4111111111111111", FieldPresentation.of("note", in: operation)) == "411111******1111")
    }

    @Test("the plugin cache keeps the labels")
    func cacheKeepsLabels() throws {
        let runtime = try Self.runtime(isolated: false)
        let manifest = try #require(runtime.registry.operation(id: "pay.pp.quick")).plugin.manifest
        let fingerprint = PluginCache.Fingerprint(size: 1, modified: 2, changed: 3, inode: 4, hash: "h")
        let cache = PluginCache(hostABI: ABIVersion.host.description,
                                entries: ["/p.so": PluginCache.Entry(fingerprint: fingerprint, result: .plugin(manifest, services: []))])
        let decoded = try PluginCacheCodec.decode(PluginCacheCodec.encode(cache))
        guard case .plugin(let read, _) = decoded.entries["/p.so"]?.result else {
            Issue.record("no manifest read back")
            return
        }
        #expect(read == manifest)
        #expect(!read.operations[0].documentLabels.isEmpty)
    }

    @Test("in Russian: the host's captions, amounts grouped as 12 345,67, dates as ДД.ММ.ГГГГ; the plugin's labels as written")
    func russianReview() throws {
        let runtime = try Self.runtime(isolated: false)
        #expect(try Self.review(runtime, "pay.pp.tax", Self.tax, in: .ru) == [
            "Сумма: 12\u{00A0}345,67 RUB",
            "Получатель: УФК по г. Москве",
            "ИНН получателя: 7727406020",
            "Счёт получателя: 40702810638000000123",
            "Банк получателя: ПАО Сбербанк, БИК 044525225",
            "Счёт списания: 40817810438000000001",
            "Назначение платежа: Налог на доходы физических лиц",
        ] + Self.taxLabelled)
        #expect(try Self.review(runtime, "card.block", [("cardNumber", "4111 1111 1111 1111"), ("reason", "2"), ("confirm", "да")],
                                in: .ru).prefix(1) == ["Карта: 4111 11** **** 1111"])
    }

    @Test("the language: --lang first, then LC_ALL, LC_MESSAGES, LANG (the first set decides); Russian for ru*, English otherwise")
    func chooseLanguage() {
        #expect(HostLanguage.choose(flag: .ru, environment: ["LANG": "en_US.UTF-8"]) == .ru)
        #expect(HostLanguage.choose(flag: .en, environment: ["LC_ALL": "ru_RU.UTF-8"]) == .en)
        #expect(HostLanguage.choose(flag: nil, environment: ["LANG": "ru_RU.UTF-8"]) == .ru)
        #expect(HostLanguage.choose(flag: nil, environment: ["LC_MESSAGES": "en_GB.UTF-8", "LANG": "ru_RU.UTF-8"]) == .en)
        #expect(HostLanguage.choose(flag: nil, environment: ["LC_ALL": "ru_RU.UTF-8", "LC_MESSAGES": "C"]) == .ru)
        #expect(HostLanguage.choose(flag: nil, environment: ["LC_ALL": "", "LANG": "ru"]) == .ru)
        #expect(HostLanguage.choose(flag: nil, environment: ["LANG": "C.UTF-8"]) == .en)
        #expect(HostLanguage.choose(flag: nil, environment: [:]) == .en)
    }

    @Test("errors on the form and sign paths are Russian from their typed facts, English as each error's own description")
    func errorsInBothLanguages() throws {
        let rejection = try #require(try {
            let data = Fixtures.temporaryDirectory("review-refusal")
            let ledger = try Ledger.create(dataDirectory: data, clock: { Self.now }).ledger
            defer { try? ledger.close() }
            _ = try KeyStore(dataDirectory: data).initialize(name: "r", force: false)
            let document = try ledger.draft(operation: "op", plugin: "p", pluginVersion: "1.0.0", fields: [
                DocumentField("from", "40817810438000000001"), DocumentField("account", "40817810738000000002"),
                DocumentField("amount", "999999.00"), DocumentField("currency", "RUB"),
            ])
            return try ledger.bank.validate(document)
        }())
        #expect(HostMessage.wouldRefuse(rejection, .ru)
            == "банк отклонит этот документ: недостаточно средств на счёте 40817810438000000001: остаток 150\u{00A0}000,00 RUB, сумма 999\u{00A0}999,00 RUB — ничего не подписано, одноразовый код не использован")
        #expect(HostMessage.wouldRefuse(rejection, .en) == LedgerError.wouldBeRejected(rejection).description)
        #expect(HostMessage.describe(LedgerError.code(.wrong(attemptsLeft: 1)), .ru)
            == "одноразовый код неверен; проверьте часы устройства с приложением-аутентификатором; осталось попыток до блокировки подписи на 5 минут: 1")
        #expect(HostMessage.describe(LedgerError.code(.wrong(attemptsLeft: 1)), .en) == OneTimeCodeError.wrong(attemptsLeft: 1).description)
        // A second signature's refusals (`--lang ru customers approve` said them in English after a Russian prefix).
        for refusal in [SecondSignatureError.notAwaiting(3), .alreadyDecided(3, by: 4), .sameSigner(user: "alice"), .noReason, .invalidThreshold("x")] {
            let russian = HostMessage.describe(LedgerError.secondSignature(refusal), .ru)
            #expect(russian != refusal.description && russian.range(of: "[а-яё]", options: .regularExpression) != nil, "\(russian)")
            #expect(HostMessage.describe(LedgerError.secondSignature(refusal), .en) == refusal.description)
        }
        // A rejection read back from the journal has no facts: its journaled message, never a half-filled sentence.
        let journaled = Rejection(code: rejection.code, message: rejection.message)
        #expect(HostMessage.describe(journaled, .ru) == rejection.message)
        #expect(journaled == rejection)
    }

    @Test("every message of the catalogue has both languages, and they differ where words are involved")
    func catalogueHasBoth() {
        let messages: [HostMessage] = [
            .amount, .currency, .payee, .payeeTaxID, .payeeAccount, .bank, .bic, .debitAccount, .card, .purpose, .document,
            .fee, .totalDebited, .cardAction(.block), .cardAction(.unblock), .cardActionHeading(.block, card: "4111 11** **** 1111"),
            .cardActionHeading(.unblock, card: "4111 11** **** 1111"), .challenge, .signedWith, .signingMethod(.totp), .signingMethod(.ocra), .signingMethod(.passkey), .yes, .no, .formKeys, .optional, .blocked,
            .form, .needsAttention, .noAccountHere, .tryAgain, .fixOrGoOn, .backToThatField, .enterSubmits, .enterPresses,
            .submitHelp, .actionHelp, .pressEnterOrWord("x"), .optionalHelp, .formHelpKeys, .cleared("x"), .kindText(""),
            .kindDigits(""), .kindNumber, .kindAmount("RUB"), .kindDate, .kindChoice(3), .kindToggle, .kindAccount,
            .accountsHeader, .balance, .title, .accountColumn, .sign, .codePrompt, .responsePrompt("1234"), .signingCancelled,
            .notOffered, .cancelledNothingPosted, .posted, .rejected, .notSubmitted, .unknown, .journalEntry(1), .balanceNow,
            .errorLabel, .controlCharacter(7), .tooShort(length: 1, minimum: 2), .tooLong(length: 3, maximum: 2),
            .digitsOnly("x", position: 1), .amountNotPositive, .noSuchMonth(date: "2026-13-01", month: 13),
            .noSuchDay(date: "2026-02-30", day: 30, month: 2, year: 2026), .required("X"), .notValid("X"), .notADate("x"),
            .notOnList(4, count: 3), .startsMoreThanOne("x", titles: ["a"]), .notAnOptionByNumber("x", titles: ["a"]),
            .answerYesOrNo("x"), .accountNotHere(3, account: "1", blocked: true, offered: ["1) 1"]), .notAnOfferedAccount("x", offered: []),
            .operationRefused, .greeting(version: "0.1.0", operations: 4, plugins: 4, editor: "libedit"),
            .firstStart(directory: "/d"), .unknownCommand("x", suggestion: nil), .unknownCommand("x", suggestion: "run"),
            .noSuchCommand("x"), .runNeedsOperation, .giveIDValue("x"), .qrUsage, .qrSource, .nothingChanged, .verified(entries: 1),
            .badEntry(2, reason: "x"), .unreconciled("x"), .helpHeaderCommand, .helpHeaderWhat, .helpInsideForm,
        ] + ["list", "run", "qr", "template", "plugins", "reload", "accounts", "statement", "journal", "verify", "keys", "help", "quit"]
            .map { HostMessage.commandSummary($0) }
        for message in messages {
            let english = message.text(.en), russian = message.text(.ru)
            #expect(!english.isEmpty && !russian.isEmpty, "\(message)")
            #expect(english != russian, "\(message): the same text in both languages")
            #expect(russian.range(of: "[а-яёА-ЯЁ№]", options: .regularExpression) != nil, "\(message): \(russian)")
        }
        #expect(HostMessage.date(iso: "2026-03-31") == "31.03.2026")
        #expect(HostMessage.date(iso: "31.03.2026") == "31.03.2026")
    }
}
