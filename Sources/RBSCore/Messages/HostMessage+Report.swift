import Foundation
import RBSLedger

extension HostMessage {
    /// The words of a journal entry's report (`journal show`, receipts, the server's `sections`), of the REPL's and
    /// one-shot commands' tables, and of the questions around signing: part of the one catalogue, in English and
    /// Russian side by side.
    public enum Report: Sendable, Equatable {
        case receiptTitle(Int64), entryTitle(Int64)
        case bankSection, documentSection, outcomeSection, signatureSection, basketSection
        case bankName, bankWithBIC(String), correspondentAccount
        case operation, plugin, created, payer
        case statusLabel, journalEntry, recorded, debitedCredited, amountPosted, amountAwaiting, balanceAfter, reason, decidedBy, decides
        /// A posted fee (``FeeIncome``): the fee and the bank's income account it went to, and the amount plus the fee.
        case feePosted, totalPosted, feeLine
        case documentHash, signatureEd25519, signaturePasskey, keyId, authorisedWith, entryHash, response
        case authorisedTOTP, authorisedOCRA(suite: String, basket: Bool), authorisedPasskey(suite: String), notRecorded
        case basketOutcome(id: String, posted: Int, of: Int, repeated: Bool), basketInvalid(id: String)
        case basketListMissing, documentInBasketLabel, documentInBasket(Int, of: Int), basketTotal, basketEntries, basketSignature

        // Tables: `journal`, `list`, `basket`.
        case numberColumn, timeColumn, statusColumn, operationColumn, amountColumn, routeColumn, signedWithColumn, noteColumn
        case titleColumn, categoryColumn, pluginColumn, payeeColumn, payeeAccountColumn
        case journalEmpty, noEntryMatches, methodTOTP, methodNotRecorded, inBasket(String)
        case noOperations, unavailable(operation: String, why: String)
        /// `list` with nothing to list: the folder cannot be used, or every plugin file in it failed.
        case noOperationsFolder(PluginLoadError), noOperationsFailed(Int)
        /// `describe`: the form's table and its verdict.
        case atomColumn, kindColumn, captionColumn, valueColumn, readyToSubmit, notReady(String)
        /// `plugins`: the table of plugin files and their states.
        case fileColumn, idColumn, versionColumn, abiColumn, noPluginFiles, pluginStatus(PluginRecord.Status)

        // Around signing and templates.
        case duplicateNotice(entry: Int64, postedAt: String, awaiting: Bool), warning, signAgain, answerYesOrNo
        case templateSaved(name: String, operation: String, values: Int), noTemplates, templateUsage
        /// Where prefilled values came from, and those the plugin's current version has no atom for.
        case fromTemplate(String), fromEntry(Int64), hasNoAtom(source: String, operation: String, version: String)
        case droppedValue(id: String, value: String)

        public func text(_ language: HostLanguage) -> String {
            switch self {
            case .receiptTitle(let sequence): language.pick("Receipt for journal entry \(sequence)", "Квитанция к записи журнала \(sequence)")
            case .entryTitle(let sequence): language.pick("Journal entry \(sequence)", "Запись журнала \(sequence)")
            case .bankSection: language.pick("Bank", "Банк")
            case .documentSection: language.pick("Document", "Документ")
            case .outcomeSection: language.pick("Outcome", "Исполнение")
            case .signatureSection: language.pick("Signature", "Подпись")
            case .basketSection: language.pick("Basket", "Пакет")
            case .bankName: language.pick("Bank", "Банк")
            case .bankWithBIC(let bic): language.pick("the bank with BIC \(bic)", "банк с БИК \(bic)")
            case .correspondentAccount: language.pick("Correspondent account", "Корреспондентский счёт")
            case .operation: language.pick("Operation", "Операция")
            case .plugin: language.pick("Plugin", "Плагин")
            case .created: language.pick("Created", "Составлен")
            case .payer: language.pick("Payer", "Плательщик")
            case .statusLabel: language.pick("Status", "Статус")
            case .journalEntry: language.pick("Journal entry", "Запись журнала")
            case .recorded: language.pick("Recorded", "Записан")
            case .debitedCredited: language.pick("Debited → credited", "Списано → зачислено")
            case .amountPosted: language.pick("Amount posted", "Проведённая сумма")
            case .amountAwaiting: language.pick("Amount (not posted: awaiting a second signature)", "Сумма (не проведена: ждёт второй подписи)")
            case .decidedBy: language.pick("Second signature", "Вторая подпись")
            case .decides: language.pick("Second signature of", "Вторая подпись к")
            case .feePosted: language.pick("Fee posted", "Проведённая комиссия")
            case .totalPosted: language.pick("Total debited", "Всего списано")
            case .feeLine: language.pick("Bank fee", "Комиссия банка")
            case .balanceAfter: language.pick("Balance after", "Остаток после")
            case .reason: language.pick("Reason", "Причина")
            case .documentHash: language.pick("Document hash (SHA-256)", "Хеш документа (SHA-256)")
            case .signatureEd25519: language.pick("Signature (Ed25519)", "Подпись (Ed25519)")
            case .signaturePasskey: language.pick("Signature (passkey, WebAuthn)", "Подпись (ключ доступа, WebAuthn)")
            case .keyId: language.pick("Key id", "Идентификатор ключа")
            case .authorisedWith: language.pick("Authorised with", "Подтверждено")
            case .entryHash: language.pick("Entry hash", "Хеш записи")
            case .response: language.pick("Response", "Ответ")
            case .authorisedTOTP:
                language.pick("TOTP one-time code (not bound to the document)", "одноразовый код TOTP (не привязан к документу)")
            case .authorisedOCRA(let suite, let basket):
                language.pick("OCRA \(suite) (" + (basket ? "bound to its basket: every amount and payee and the total)" : "bound to the document)"),
                              "OCRA \(suite) (" + (basket ? "привязан к пакету: каждая сумма, получатель и итог)" : "привязан к документу)"))
            case .authorisedPasskey(let suite):
                language.pick("passkey \(suite) (bound to the document)", "ключ доступа \(suite) (привязан к документу)")
            case .notRecorded:
                language.pick("not recorded (an entry from before methods were recorded)",
                              "не записано (запись сделана до того, как способ подписи стал записываться)")
            case .basketListMissing:
                language.pick("missing: the basket's list and signature are not stored (verify reports it)",
                              "отсутствует: список и подпись пакета не сохранены (verify сообщает об этом)")
            case .basketOutcome(let id, let posted, let count, let repeated):
                language.pick("Basket\(id): \(posted) of \(count) posted" + (repeated ? " (signed before: its first outcomes)" : ""),
                              "Пакет\(id): проведено \(posted) из \(count)" + (repeated ? " (подписан раньше: его первые результаты)" : ""))
            case .basketInvalid(let id):
                language.pick("Basket\(id): not submitted — nothing was signed or posted", "Пакет\(id): не отправлен — ничего не подписано и не проведено")
            case .documentInBasketLabel: language.pick("Document in basket", "Документ в пакете")
            case .documentInBasket(let position, let count):
                language.pick("\(position) of \(count)", "\(position) из \(count)")
            case .basketTotal: language.pick("Basket total", "Итого по пакету")
            case .basketEntries: language.pick("Basket's journal entries", "Записи журнала пакета")
            case .basketSignature: language.pick("Basket signature (Ed25519)", "Подпись пакета (Ed25519)")

            case .noOperationsFolder(let problem): (language.pick("No operations: ", "Операций нет: ") + HostMessage.describe(problem, language))
            case .noOperationsFailed(let count):
                count == 1
                    ? language.pick("No operations: the plugin file in the folder failed to load — `plugins` says why",
                                    "Операций нет: файл плагина в папке не загрузился — причина в `plugins`")
                    : language.pick("No operations: all \(count) plugin files in the folder failed to load — `plugins` says why",
                                    "Операций нет: ни один из \(count) файлов плагинов в папке не загрузился — причины в `plugins`")
            case .fileColumn: language.pick("FILE", "ФАЙЛ")
            case .idColumn: language.pick("ID", "ИДЕНТИФИКАТОР")
            case .versionColumn: language.pick("VERSION", "ВЕРСИЯ")
            case .abiColumn: language.pick("ABI", "ABI")
            case .noPluginFiles: language.pick("No plugin files found.", "Файлов плагинов не найдено.")
            case .pluginStatus(.listed): language.pick("listed", "в списке")
            case .pluginStatus(.loaded): language.pick("loaded", "загружен")
            case .pluginStatus(.failed): language.pick("failed", "ошибка")
            case .atomColumn: language.pick("ATOM", "ПОЛЕ")
            case .kindColumn: language.pick("KIND", "ВИД")
            case .captionColumn: language.pick("CAPTION", "ПОДПИСЬ ПОЛЯ")
            case .valueColumn: language.pick("VALUE", "ЗНАЧЕНИЕ")
            case .readyToSubmit: language.pick("ready to submit", "готово к отправке")
            case .notReady(let reasons): language.pick("not ready: \(reasons)", "не готово: \(reasons)")
            case .numberColumn: language.pick("#", "№")
            case .timeColumn: language.pick("TIME", "ВРЕМЯ")
            case .statusColumn: language.pick("STATUS", "СТАТУС")
            case .operationColumn: language.pick("OPERATION", "ОПЕРАЦИЯ")
            case .amountColumn: language.pick("AMOUNT", "СУММА")
            case .routeColumn: language.pick("DEBIT → CREDIT", "СПИСАНИЕ → ЗАЧИСЛЕНИЕ")
            case .signedWithColumn: language.pick("SIGNED WITH", "ПОДПИСЬ")
            case .noteColumn: language.pick("NOTE", "ПРИМЕЧАНИЕ")
            case .titleColumn: language.pick("TITLE", "НАЗВАНИЕ")
            case .categoryColumn: language.pick("CATEGORY", "РАЗДЕЛ")
            case .pluginColumn: language.pick("PLUGIN", "ПЛАГИН")
            case .payeeColumn: language.pick("PAYEE", "ПОЛУЧАТЕЛЬ")
            case .payeeAccountColumn: language.pick("PAYEE'S ACCOUNT", "СЧЁТ ПОЛУЧАТЕЛЯ")
            case .journalEmpty: language.pick("The journal is empty.", "Журнал пуст.")
            case .noEntryMatches: language.pick("No journal entry matches.", "Подходящих записей журнала нет.")
            case .methodTOTP: language.pick("TOTP (not bound)", "TOTP (без привязки)")
            case .methodNotRecorded: language.pick("(not recorded)", "(не записано)")
            case .inBasket(let id): language.pick("basket \(id)", "пакет \(id)")
            case .noOperations: language.pick("No operations: put plugins (*.so) into the plugin folder.",
                                              "Операций нет: положите плагины (*.so) в папку плагинов.")
            case .unavailable(let operation, let why): language.pick("\(operation): unavailable — \(why)", "\(operation): недоступна — \(why)")

            case .duplicateNotice(let entry, let postedAt, awaiting: true):
                language.pick("this payment repeats journal entry \(entry), signed \(postedAt) and awaiting its second signature: the same payee, account, amount and purpose within 24 hours",
                              "этот платёж повторяет запись журнала \(entry), подписанную \(postedAt) и ожидающую второй подписи: тот же получатель, счёт, сумма и назначение в течение 24 часов")
            case .duplicateNotice(let entry, let postedAt, awaiting: false):
                language.pick("this payment repeats journal entry \(entry), posted \(postedAt): the same payee, account, amount and purpose within 24 hours",
                              "этот платёж повторяет запись журнала \(entry), проведённую \(postedAt): тот же получатель, счёт, сумма и назначение в течение 24 часов")
            case .warning: language.pick("Warning", "Внимание")
            case .signAgain: language.pick("Sign it again? (yes/no)> ", "Подписать ещё раз? (да/нет)> ")
            case .answerYesOrNo: language.pick("answer yes or no", "ответьте да или нет")
            case .templateSaved(let name, let operation, let values):
                language.pick("template \(name) saved: \(operation), \(values) values — run @\(name) fills them in",
                              "шаблон \(name) сохранён: \(operation), значений: \(values) — run @\(name) заполнит их")
            case .noTemplates: language.pick("No templates yet: fill a form, then template save NAME.",
                                             "Шаблонов пока нет: заполните форму, затем template save ИМЯ.")
            case .templateUsage: language.pick("usage: template [save NAME | qr NAME]", "использование: template [save ИМЯ | qr ИМЯ]")
            case .fromTemplate(let name): language.pick("template \(name)", "шаблон \(name)")
            case .fromEntry(let sequence): language.pick("journal entry \(sequence)", "запись журнала \(sequence)")
            case .hasNoAtom(let source, let operation, let version):
                language.pick("\(source): \(operation) \(version) has no atom ", "\(source): в \(operation) \(version) нет поля ")
            case .droppedValue(let id, let value):
                language.pick("\(id) (its value '\(value)' was dropped)", "\(id) (его значение «\(value)» отброшено)")
            }
        }
    }

    /// One word per outcome kind (see ``HostMessage/status(_:)``). A document the bank took without moving money (a
    /// card block) is `accepted`, never `posted`: `run --json` and the API still say `posted` for it (their contract),
    /// and `journal --status acknowledged` still finds it.
    static func statusWord(_ kind: JournalEntry.Kind, _ language: HostLanguage) -> String {
        switch kind {
        case .posted: language.pick("posted", "проведено")
        case .acknowledged: language.pick("accepted", "принято")
        case .rejected: language.pick("rejected", "отклонено")
        case .awaiting: language.pick("awaiting a second signature", "ожидает второй подписи")
        }
    }
}
