import Foundation

/// The words of `rbs-host serve`'s web page, in English and Russian side by side: part of the host's one catalogue
/// (``HostMessage`` holds the words the page shares with the REPL — status words, the review's captions — and these
/// cases say them through it). The server hands the whole list to the page (`GET /api/v1/messages?lang=ru`), so
/// the page carries no text of its own. A `{name}` in a text is filled in by the page (a number, an amount, a date).
public enum PageText: String, CaseIterable, Sendable {
    // The frame of the page.
    case pageTitle, brand, skipToContent, menu, logOut, language, otherLanguage, otherLanguageName, loading
    // Logging in.
    case logIn, customer, password, sessionEnded, loggedOut, wrongLogin
    // The server could not do something (an internal error: its cause is in the server's log, under `{reference}`).
    case internalError
    // A period's day that is not one, a period that ends before it starts (the query's field marked).
    case notADay, periodReversed
    // Operations, accounts, history.
    case operations, continueRun, accounts, account, accountTitle, balance, blocked, history, entry, outcome
    case debitCredit, amount, time, noEntries, noAccounts, home
    // A payment QR code.
    case qrPay, qrHint, qrPhoto, qrText, qrOpen, qrEmpty, qrShownOnly
    // The form.
    case continueToReview, cancel, cancelled, errorSummary, newField, removedField, required, notSaved, runGone
    case runExpiry
    // The review (check your answers) and signing.
    case checkAndSign, checkIntro, change, changeField, documentHash, signedWithCode, signedWithPasskey, duplicateEntry, duplicateAwaiting
    case duplicateConfirm, duplicateFirst, codeLabel, codeHint, signAndSend, signWithPasskey, addToBasket, backToForm
    case theDocument, payee
    // The receipt.
    case receipt, status, journalEntry, from, to, balanceNow, reason, done, posted, accepted, rejected, awaiting, fee, totalDebited
    // The basket.
    case basket, basketIntro, basketOperation, basketPayeeAccount, basketReview, basketTotal, basketId, basketCode
    case basketSign, basketMake, basketClear, basketAdded, basketSigned, basketEmptied, basketRefuse, basketDuplicate
    case basketRepeatsDocument, basketConfirmDuplicate
    // Passkeys.
    case passkey, passkeyUnavailable, passkeyRegistered, passkeyOffer, passkeyRegister, passkeyRegisterNew
    case passkeyDone, passkeyNotSigned, passkeyNotCreated, passkeyCode, passkeyCodeFirst
    // History (search and one entry's details) and the statement of an account.
    case searchLabel, searchHint, search, periodFrom, periodTo, allAccounts, anyStatus, purpose, details, found, noneFound
    case entryNumber, repeatPayment, backToHistory, valueDropped, searchFilters, dateFormat, dateFormatHint
    case statement, statementShow, statementOf, statementPostings, period, sinceOpening, untilNow, openingBalance
    case closingBalance, totalDebit, totalCredit, counterparty, noPostings, downloadPdf, downloadReceipt
    // Templates: the customer's own.
    case templates, templatesIntro, noTemplates, templateName, templateNameHint, saveTemplate, saveTemplateTitle
    case templateSaved, templateRun, templateOf, rename, renameTo, saveName, delete, templateRenamed, templateDeleted
    // Cards: the customer's own, blocked and unblocked through card.block and card.unblock.
    case cards, cardsIntro, noCards, cardOn, cardActive, cardBlocked, cardBlockedWhy, blockCard, unblockCard
    case cardReasonLost, cardReasonStolen, cardReasonCompromised, cardReasonOther
    // Errors the page itself meets.
    case serverAnswered, networkDown, updated

    /// The text in `language`.
    public func text(_ language: HostLanguage) -> String {
        switch self {
        case .pageTitle: language.pick("Online bank", "Интернет-банк")
        case .brand: language.pick("Online bank", "Интернет-банк")
        case .skipToContent: language.pick("Skip to content", "Перейти к содержанию")
        case .menu: language.pick("Menu", "Меню")
        case .logOut: language.pick("Log out", "Выйти")
        case .language: language.pick("Language", "Язык")
        case .otherLanguage: language.pick("ru", "en")
        case .otherLanguageName: language.pick("Русский", "English")
        case .loading: language.pick("Loading…", "Загрузка…")

        case .logIn: language.pick("Log in", "Вход")
        case .customer: language.pick("Customer", "Клиент")
        case .password: language.pick("Password", "Пароль")
        case .sessionEnded: language.pick("Your session ended; log in again.", "Сеанс закончился: войдите снова.")
        case .loggedOut: language.pick("You are logged out.", "Вы вышли.")
        case .wrongLogin: language.pick("The customer name or the password is wrong.", "Неверное имя клиента или пароль.")
        case .notADay: language.pick("“{text}” is not a day: write DD.MM.YYYY, e.g. 25.11.2026.",
                                     "«{text}» — не дата: введите ДД.ММ.ГГГГ, например 25.11.2026.")
        case .periodReversed: language.pick("The period ends before it starts: the second day must not come before the first.",
                                            "Период кончается раньше, чем начинается: вторая дата не может быть раньше первой.")
        case .internalError: language.pick("The bank could not do this just now. Before paying again, check the history. Reference for the bank: {reference}.",
                                           "Банк не смог сделать это сейчас. Прежде чем платить снова, проверьте историю. Номер для обращения в банк: {reference}.")

        case .operations: language.pick("Operations", "Операции")
        case .continueRun: language.pick("Continue: {title}", "Продолжить: {title}")
        case .qrPay: language.pick("Pay by QR code", "Оплата по QR-коду")
        case .qrHint: language.pick("The code on an invoice, a utility bill, a fine or a tax notice opens the payment filled in; you check every value before signing.",
                                    "Код на счёте, квитанции, штрафе или налоговом уведомлении откроет платёж заполненным; каждое значение вы проверите перед подписью.")
        case .qrPhoto: language.pick("A photo of the code", "Фото кода")
        case .qrText: language.pick("Or the code's text", "Или текст кода")
        case .qrOpen: language.pick("Open the payment", "Открыть платёж")
        case .qrEmpty: language.pick("Paste the code's text or choose a photo of it", "Вставьте текст кода или выберите его фото")
        case .qrShownOnly: language.pick("From the QR code, not fields of this form (check them yourself): {fields}",
                                         "Из QR-кода, в форме таких полей нет (сверьте сами): {fields}")
        case .accounts: language.pick("Accounts", "Счета")
        case .account: language.pick("Account", "Счёт")
        case .accountTitle: language.pick("Title", "Название")
        case .balance: language.pick("Balance", "Остаток")
        case .blocked: language.pick("blocked", HostMessage.accountBlocked.text(language))
        case .history: language.pick("History", "История операций")
        case .entry: language.pick("No.", "№")
        case .outcome: language.pick("Outcome", "Результат")
        case .debitCredit: language.pick("From → to", "Откуда → куда")
        case .amount: language.pick("Amount", HostMessage.amount.text(language))
        case .time: language.pick("Time", "Время")
        case .noEntries: language.pick("No payments yet.", "Платежей пока нет.")
        case .noAccounts: HostMessage.noAccounts.text(language)
        case .home: language.pick("Home", "Главная")

        case .continueToReview: language.pick("Continue to review", "Перейти к проверке")
        case .cancel: language.pick("Cancel", "Отменить")
        case .cancelled: language.pick("Cancelled: nothing was signed or sent.", "Отменено: ничего не подписано и не отправлено.")
        case .errorSummary: language.pick("There is a problem", "Исправьте ошибки")
        case .newField: language.pick("new field: {caption}", "новое поле: {caption}")
        case .removedField: language.pick("removed: {caption}", "убрано поле: {caption}")
        case .required: language.pick("required", "обязательно")
        case .notSaved: language.pick("Not saved: {reason}", "Не сохранено: {reason}")
        case .runGone:
            language.pick("That form is no longer open (forms close when signed, cancelled, after {minutes} minutes unused, or when the server restarts).",
                          "Эта форма уже закрыта (формы закрываются после подписи, отмены, через {minutes} мин без действий или при перезапуске сервера).")
        case .runExpiry:
            language.pick("An unfinished form is kept for {minutes} minutes after your last change.",
                          "Незаконченная форма хранится {minutes} мин после последнего изменения.")

        case .checkAndSign: language.pick("Check and sign", "Проверка и подпись")
        case .checkIntro: language.pick("Check every value before you sign: what you see is what is signed.",
                                        "Проверьте каждое значение перед подписью: подписывается ровно то, что показано.")
        case .change: language.pick("Change", "Изменить")
        case .changeField: language.pick("Change {caption}", "Изменить: {caption}")
        case .documentHash: language.pick("Document hash", "Хеш документа")
        case .signedWithCode: language.pick("Signed with a one-time code after you check the document.",
                                            "Подписывается одноразовым кодом после проверки документа.")
        case .signedWithPasskey: language.pick("Your passkey signs this document's hash: the amount and payee above, exactly.",
                                               "Ключ доступа подписывает хеш этого документа: ровно эту сумму и этого получателя.")
        case .duplicateEntry:
            language.pick("This payment repeats journal entry {journal}, posted {time} ({amount} to {payee}). Send it again?",
                          "Этот платёж повторяет запись журнала {journal} от {time} ({amount}, получатель {payee}). Отправить его ещё раз?")
        case .duplicateAwaiting:
            language.pick("This payment repeats journal entry {journal}, signed {time} and awaiting its second signature ({amount} to {payee}). Send it again?",
                          "Этот платёж повторяет запись журнала {journal} от {time}, ожидающую второй подписи ({amount}, получатель {payee}). Отправить его ещё раз?")
        case .duplicateConfirm: language.pick("Yes, send this payment again", "Да, отправить этот платёж ещё раз")
        case .duplicateFirst: language.pick("Confirm above that you want to send this payment again, or go back to the form.",
                                            "Подтвердите выше, что хотите отправить платёж ещё раз, или вернитесь к форме.")
        case .codeLabel: language.pick("One-time code from your authenticator app", "Одноразовый код из приложения-аутентификатора")
        case .codeHint: language.pick("6 digits; you may type them with a space, as the app shows them.",
                                      "6 цифр; можно вводить с пробелом, как их показывает приложение.")
        case .signAndSend: language.pick("Sign and send", "Подписать и отправить")
        case .signWithPasskey: language.pick("Sign with passkey", "Подписать ключом доступа")
        case .addToBasket: language.pick("Add to basket", "Добавить в пакет")
        case .backToForm: language.pick("Back to the form", "Вернуться к форме")
        case .theDocument: language.pick("The document to sign", "Документ на подпись")
        case .payee: HostMessage.payee.text(language)

        case .receipt: language.pick("Receipt", "Квитанция")
        case .status: language.pick("Status", "Статус")
        case .journalEntry: language.pick("Journal entry", "Запись журнала")
        case .from: language.pick("From", "Со счёта")
        case .to: language.pick("To", "На счёт")
        case .balanceNow: language.pick("Balance now", "Остаток после платежа")
        case .fee: HostMessage.fee.text(language)
        case .totalDebited: HostMessage.Report.totalPosted.text(language)
        case .reason: language.pick("Reason", "Причина")
        case .done: language.pick("Done", "Готово")
        case .posted: HostMessage.posted.text(language)
        case .accepted: HostMessage.status(.acknowledged).text(language)
        case .rejected: HostMessage.rejected.text(language)
        case .awaiting: HostMessage.awaitingSecondSignature.text(language)

        case .basket: HostMessage.basketId.text(language)
        case .basketIntro: language.pick("Documents to sign together with one code. Each is posted or rejected on its own.",
                                         "Документы, подписываемые вместе одним кодом. Каждый проводится или отклоняется отдельно.")
        case .basketOperation: language.pick("Operation", "Операция")
        case .basketPayeeAccount: HostMessage.payeeAccount.text(language)
        case .basketReview: language.pick("Check every document, then sign once", "Проверьте каждый документ и подпишите один раз")
        case .basketTotal: language.pick("Total, {currency}", "Итого, {currency}")
        case .basketId: language.pick("Basket", "Пакет")
        case .basketCode: language.pick("One-time code for the whole basket", "Одноразовый код для всего пакета")
        case .basketSign: language.pick("Sign the basket", "Подписать пакет")
        case .basketMake: language.pick("Review the basket", "Проверить пакет")
        case .basketClear: language.pick("Empty the basket", "Очистить пакет")
        case .basketAdded: language.pick("Added to the basket ({count}). Open another operation, or review the basket.",
                                         "Добавлено в пакет (документов: {count}). Откройте другую операцию или проверьте пакет.")
        case .basketSigned: language.pick("Basket signed: {posted} of {count} posted.", "Пакет подписан: проведено {posted} из {count}.")
        case .basketEmptied: language.pick("The basket is empty; nothing was signed.", "Пакет очищен; ничего не подписано.")
        case .basketRefuse: language.pick("The bank would refuse it", "Банк отклонит этот документ")
        case .basketDuplicate: language.pick("Repeats an earlier payment: signing the basket sends it again",
                                             "Повторяет прежний платёж: подпись пакета отправит его ещё раз")

        case .basketRepeatsDocument: language.pick("Repeats document {document} of this basket: the same payee, account, amount and purpose",
                                                   "Повторяет документ {document} этого пакета: тот же получатель, счёт, сумма и назначение")
        case .basketConfirmDuplicate: language.pick("Send the repeated payments marked above again",
                                                    "Отправить ещё раз отмеченные выше повторные платежи")

        case .passkey: language.pick("Passkey", "Ключ доступа")
        case .passkeyUnavailable: language.pick("This browser cannot use passkeys here: sign with a one-time code.",
                                                "Этот браузер не может использовать ключ доступа: подписывайте одноразовым кодом.")
        case .passkeyRegistered:
            language.pick("Your passkey signs your payments: each one is confirmed on this device for exactly the amount and payee shown.",
                          "Ваши платежи подписывает ключ доступа: каждый подтверждается на этом устройстве ровно на показанную сумму и получателя.")
        case .passkeyOffer: language.pick("Register a passkey to sign payments on this device instead of typing one-time codes.",
                                          "Зарегистрируйте ключ доступа, чтобы подписывать платежи на этом устройстве без одноразовых кодов.")
        case .passkeyRegister: language.pick("Register a passkey on this device", "Зарегистрировать ключ доступа на этом устройстве")
        case .passkeyRegisterNew: language.pick("Register a new passkey", "Зарегистрировать новый ключ доступа")
        case .passkeyDone: language.pick("Passkey registered: your next payments are signed with it.",
                                         "Ключ доступа зарегистрирован: следующие платежи подписываются им.")
        case .passkeyNotSigned: language.pick("The passkey did not sign: {reason}", "Ключ доступа не подписал: {reason}")
        case .passkeyNotCreated: language.pick("The passkey was not created: {reason}", "Ключ доступа не создан: {reason}")
        case .passkeyCode: language.pick("Your one-time code (registering a passkey needs it)",
                                         "Ваш одноразовый код (без него ключ доступа не зарегистрировать)")
        case .passkeyCodeFirst: language.pick("Type your one-time code first: registering a passkey needs it.",
                                              "Сначала введите одноразовый код: без него ключ доступа не зарегистрировать.")

        case .searchLabel: language.pick("Payee, purpose or amount", "Получатель, назначение или сумма")
        case .searchHint: language.pick("Part of a name or of the purpose, or the whole amount (1 500,50).",
                                        "Часть названия или назначения платежа либо сумма целиком (1 500,50).")
        case .search: language.pick("Search", "Найти")
        case .periodFrom: language.pick("From (day)", "С (дата)")
        case .periodTo: language.pick("To (day)", "По (дата)")
        case .allAccounts: language.pick("All accounts", "Все счета")
        case .anyStatus: language.pick("Any outcome", "Любой результат")
        case .purpose: HostMessage.purpose.text(language)
        case .details: language.pick("Details", "Подробнее")
        case .found: language.pick("Found: {count}", "Найдено: {count}")
        case .noneFound: language.pick("Nothing found.", "Ничего не найдено.")
        case .entryNumber: language.pick("Journal entry {entry}", "Запись журнала {entry}")
        case .repeatPayment: language.pick("Repeat this payment", "Повторить платёж")
        case .backToHistory: language.pick("Back to history", "Вернуться к истории")
        case .valueDropped: language.pick("The form no longer has the field {field}: its earlier value was not used.",
                                          "В форме больше нет поля {field}: прежнее значение не использовано.")
        case .statement: language.pick("Statement", "Выписка")
        case .statementShow: language.pick("Show the statement", "Показать выписку")
        case .statementOf: language.pick("Account {account} ({title})", "Счёт {account} ({title})")
        case .statementPostings: language.pick("Postings of the period", "Операции за период")
        case .period: language.pick("Period", "Период")
        case .sinceOpening: language.pick("the opening", "с открытия")
        case .untilNow: language.pick("now", "по сей день")
        case .openingBalance: language.pick("Opening balance", "Входящий остаток")
        case .closingBalance: language.pick("Closing balance", "Исходящий остаток")
        case .totalDebit: language.pick("Debits ({count})", "Списания ({count})")
        case .totalCredit: language.pick("Credits ({count})", "Зачисления ({count})")
        case .counterparty: language.pick("Counterparty", "Контрагент")
        case .noPostings: HostMessage.noPostings.text(language)
        case .downloadPdf: language.pick("Download the PDF", "Скачать выписку (файл для печати)")
        case .downloadReceipt: language.pick("Download the receipt (PDF)", "Скачать квитанцию (файл для печати)")

        case .templates: language.pick("Templates", "Шаблоны")
        case .templatesIntro: language.pick("Your saved forms: fill one in, check it and sign as usual.",
                                            "Ваши сохранённые формы: заполните по шаблону, проверьте и подпишите как обычно.")
        case .noTemplates: language.pick("No templates yet: save one under a form or a receipt.",
                                         "Шаблонов пока нет: сохраните шаблон под формой или квитанцией.")
        case .templateName: language.pick("Template name", "Название шаблона")
        case .templateNameHint: language.pick("Letters, digits, '.', '-' or '_', no spaces (Rent_office).",
                                              "Буквы, цифры, «.», «-» или «_», без пробелов (Аренда_офиса).")
        case .saveTemplate: language.pick("Save as template", "Сохранить как шаблон")
        case .saveTemplateTitle: language.pick("Keep as a template", "Сохранить шаблон")
        case .templateSaved: language.pick("Template {name} saved.", "Шаблон {name} сохранён.")
        case .templateRun: language.pick("Fill in", "Заполнить")
        case .templateOf: language.pick("{title}: {count} values", "{title}: значений — {count}")
        case .rename: language.pick("Rename", "Переименовать")
        case .renameTo: language.pick("New name for {name}", "Новое название для {name}")
        case .saveName: language.pick("Save the name", "Сохранить название")
        case .delete: language.pick("Delete", "Удалить")
        case .templateRenamed: language.pick("Template {name} is now {newName}.", "Шаблон {name} переименован в {newName}.")
        case .templateDeleted: language.pick("Template {name} deleted.", "Шаблон {name} удалён.")

        case .searchFilters: language.pick("Search and filters", "Поиск и фильтры")
        case .dateFormat: language.pick("DD.MM.YYYY", "ДД.ММ.ГГГГ")
        case .dateFormatHint: language.pick("Days as DD.MM.YYYY (25.11.2026); both days are included.",
                                            "Даты — ДД.ММ.ГГГГ (25.11.2026); оба дня включаются.")
        case .cards: language.pick("Cards", "Карты")
        case .cardsIntro: language.pick("Your cards and their states. Blocking or unblocking a card is a document you check and sign as usual.",
                                        "Ваши карты и их состояние. Блокировка и разблокировка карты — документ: проверьте и подпишите его как обычно.")
        case .noCards: language.pick("You have no cards.", "У вас нет карт.")
        case .cardOn: language.pick("On account {account}", "К счёту {account}")
        case .cardActive: language.pick("Active", "Активна")
        case .cardBlocked: language.pick("Blocked", "Заблокирована")
        case .cardBlockedWhy: language.pick("Blocked on {time}: {reason}", "Заблокирована {time}: {reason}")
        case .blockCard: language.pick("Block the card", "Заблокировать карту")
        case .unblockCard: language.pick("Unblock the card", "Разблокировать карту")
        case .cardReasonLost: language.pick("lost", "утеряна")
        case .cardReasonStolen: language.pick("stolen", "украдена")
        case .cardReasonCompromised: language.pick("compromised", "скомпрометирована")
        case .cardReasonOther: language.pick("another reason", "другая причина")

        case .serverAnswered: language.pick("The server answered {status}.", "Сервер ответил {status}.")
        case .networkDown: language.pick("The bank cannot be reached; check the connection and try again.",
                                         "Банк недоступен; проверьте соединение и повторите.")
        case .updated: language.pick("Updated: {message}. New forms use the new version.", "Обновлено: {message}. Новые формы открываются в новой версии.")
        }
    }

    /// Every text of the page in `language`, by key: what `GET /api/v1/messages` answers.
    public static func catalogue(_ language: HostLanguage) -> [String: String] {
        Dictionary(uniqueKeysWithValues: allCases.map { ($0.rawValue, $0.text(language)) })
    }
}

extension HostLanguage {
    /// The language an HTTP `Accept-Language` header prefers among English and Russian: the tag with the highest
    /// `q` whose primary subtag is `ru` or `en` (`ru-RU,ru;q=0.9,en;q=0.8` is Russian); English when none is.
    public static func preferred(acceptLanguage header: String?) -> HostLanguage {
        guard let header else { return .en }
        var best: (language: HostLanguage, q: Double)?
        for part in header.split(separator: ",") {
            let pieces = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let tag = pieces.first?.lowercased() else { continue }
            let primary = tag.split(separator: "-").first.map(String.init) ?? tag
            guard let language = HostLanguage(rawValue: primary) else { continue }
            // q is a quality weight in 0…1 (RFC 9110 §12.4.2), not money: a Double is its type.
            let q = pieces.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            if q > 0, q > (best?.q ?? -1) { best = (language, q) }
        }
        return best?.language ?? .en
    }
}
