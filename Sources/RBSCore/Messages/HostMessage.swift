import Foundation
import RBSExpressions
import RBSLedger
import RBSMoney

/// The host's messages to people, in English and Russian side by side: one catalogue, one case per message, so no
/// message exists in one language only. Prompts and hints of the REPL and its forms, the sign step, the review's
/// captions, and the errors a person meets on those paths. (`--json` output and machine keys never go through it.)
public enum HostMessage: Sendable, Equatable {
    // The review's captions (SignModule).
    case amount, currency, payee, payeeTaxID, payeeAccount, bank, bic, debitAccount, card, purpose, document, challenge
    case signedWith, signingMethod(SigningMethod), yes, no
    // A conversion's rows (``DocumentPresentation``): the amount debited and credited, the rate and its time.
    case debited, credited, exchangeRate, rateTime
    // A fee's rows (``DocumentPresentation``): the fee the document carries and what leaves the account in all.
    case fee, totalDebited
    // A card document's action (``DocumentPresentation``): its row's value, and the review's heading with the card.
    case cardAction(Card.Action), cardActionHeading(Card.Action, card: String)
    case basketTotal(documents: Int), basketId, basketEmpty, basketAdded(position: Int, count: Int), basketRemoved(Int, left: Int)
    case basketCleared(Int), basketNoSuchDocument(Int, count: Int), basketWouldRefuse(String), basketHeader(Int)
    /// `run --challenge` and `basket sign --challenge` without --json: the challenge issued, and how to answer it.
    case challengeIssued(String), challengeHowTo(String)
    /// `keys init` and `keys show` (the command's and the REPL's): the signing key's fields and how to load the secret.
    case keyName, keyIdLabel, publicKeyLabel, methodLabel, suiteLabel, addToAuthenticator, loadIntoOCRA, ocraSuiteLabel, ocraSecretLabel
    case basketUsage, basketNothingFilled, basketAllRefused, basketCodePrompt, basketResponsePrompt(String)
    case basketSigningMethod(SigningMethod)

    // The form (the REPL's FormModule).
    case formKeys, optional, blocked, form, needsAttention, noAccountHere, accountsUnavailable(String), tryAgain, fixOrGoOn
    case backToThatField
    case enterSubmits, enterPresses, submitHelp, actionHelp, pressEnterOrWord(String), optionalHelp, formHelpKeys
    case cleared(String)
    case kindText(String), kindDigits(String), kindNumber, kindAmount(String), kindDate, kindChoice(Int), kindToggle, kindAccount
    case accountsHeader, balance, title, accountColumn

    // Leaving a form and signing (SignPresenter, the REPL).
    case sign, codePrompt, responsePrompt(String), signingCancelled, notOffered, cancelledNothingPosted
    case posted, rejected, notSubmitted, unknown, awaitingSecondSignature, journalEntry(Int64), balanceNow, errorLabel

    // Values a field refuses (FormInput at the edge, FormSession's check of a typed value).
    case controlCharacter(UInt32), tooShort(length: Int, minimum: Int), tooLong(length: Int, maximum: Int)
    case invisibleCharacter(caption: String, InvisibleCharacter)
    case digitsOnly(Character, position: Int), amountNotPositive, noSuchMonth(date: String, month: Int)
    /// An amount entered in one currency, cleared because the account it is debited from is now in another.
    case amountCurrencyChanged(from: String, to: String)
    /// An amount entered before the account whose currency it takes was chosen.
    case amountBeforeAccount(currency: String)
    case noSuchDay(date: String, day: Int, month: Int, year: Int), required(String), notADate(String)
    /// A value whose valid-if fails, of an atom that says no error text of its own.
    case notValid(String)
    case notOnList(Int, count: Int), startsMoreThanOne(String, titles: [String])
    case notAnOptionByNumber(String, titles: [String]), answerYesOrNo(String)
    case accountNotHere(Int, account: String, blocked: Bool, offered: [String]), notAnOfferedAccount(String, offered: [String])
    case operationRefused

    // Accounts and statements (`accounts`, `statement`).
    case noAccounts, currencyColumn, stateColumn, accountOpen, accountBlocked, accountClosed
    case statementOf(account: String, title: String, currency: String), period(from: String?, to: String?)
    case openingBalance(String), closingBalance(String), noPostings, dateColumn, counterpartyColumn, purposeColumn, amountColumn
    case totals(debits: String, debitCount: Int, credits: String, creditCount: Int)
    case accountHolder(String), statementIssued(String)

    // The REPL's own commands.
    case greeting(version: String, operations: Int, plugins: Int, editor: String), firstStart(directory: String)
    case unknownCommand(String, suggestion: String?), noSuchCommand(String), runNeedsOperation, giveIDValue(String), qrUsage, qrSource
    case nothingChanged, verified(entries: Int), badEntry(Int64, reason: String), unreconciled(String)
    case helpHeaderCommand, helpHeaderWhat, helpInsideForm, commandSummary(String)

    // A document as a person reads it (``DocumentPresentation``, ``EntryReport``), tables and questions of the REPL
    // and the one-shot commands: ``HostMessage/Report`` (HostMessage+Report.swift).
    case report(HostMessage.Report)
    /// The word for what became of a journaled document: one per outcome kind, the same in the REPL, `run`,
    /// `journal`, `journal show`, receipts and the server's `sections`.
    case status(JournalEntry.Kind)

    /// The text in `language`.
    public func text(_ language: HostLanguage) -> String {
        switch self {
        case .amount: language.pick("Amount", "Сумма")
        case .currency: language.pick("Currency", "Валюта")
        case .payee: language.pick("Payee", "Получатель")
        case .payeeTaxID: language.pick("Payee's INN", "ИНН получателя")
        case .payeeAccount: language.pick("Payee's account", "Счёт получателя")
        case .bank: language.pick("Bank", "Банк получателя")
        case .bic: language.pick("BIC", "БИК")
        case .debitAccount: language.pick("From account", "Счёт списания")
        case .card: language.pick("Card", "Карта")
        case .purpose: language.pick("Purpose", "Назначение платежа")
        case .document: language.pick("Document", "Документ")
        case .challenge: language.pick("Challenge", "Запрос")
        case .debited: language.pick("Debited", "Списывается")
        case .credited: language.pick("Credited", "Зачисляется")
        case .exchangeRate: language.pick("Exchange rate", "Курс обмена")
        case .rateTime: language.pick("Rate as of", "Курс на")
        case .fee: language.pick("Fee", "Комиссия")
        case .totalDebited: language.pick("Total debited", "Всего к списанию")
        case .cardAction(.block): language.pick("block the card", "блокировка карты")
        case .cardAction(.unblock): language.pick("unblock the card", "разблокировка карты")
        case .cardActionHeading(.block, let card): language.pick("Block the card \(card)", "Блокировка карты \(card)")
        case .cardActionHeading(.unblock, let card): language.pick("Unblock the card \(card)", "Разблокировка карты \(card)")
        case .signedWith: language.pick("Signed with", "Способ подписи")
        case .signingMethod(let method):
            switch method {
            case .totp: language.pick(method.label, "одноразовый код TOTP — НЕ привязан к операции (подтверждает только присутствие; без динамической привязки)")
            case .ocra: language.pick(method.label, "запрос–ответ OCRA — привязан к сумме и получателю этого документа (динамическая привязка)")
            case .passkey: language.pick(method.label, "ключ доступа (passkey) — устройство клиента подписало хеш этого документа (динамическая привязка)")
            }
        case .basketTotal(let documents):
            language.pick("Total of \(documents) document\(documents == 1 ? "" : "s")", "Итого по документам (\(documents))")
        case .basketId: language.pick("Basket", "Пакет")
        case .basketEmpty:
            // The core's words (what `basket sign --file` and the API say), then where the REPL's documents come from.
            language.pick(BasketError.empty.description + " (basket add OP, or basket add after filling a form)",
                          "пакет пуст: сначала добавьте документы, которые подписываются вместе (basket add ОПЕРАЦИЯ или basket add после заполнения формы)")
        case .basketAdded(let position, let count):
            language.pick("added to the basket as document \(position) (\(count) in the basket; basket sign signs them with one code)",
                          "добавлено в пакет как документ \(position) (в пакете: \(count); basket sign подписывает их одним кодом)")
        case .basketRemoved(let position, let left):
            language.pick("document \(position) removed (\(left) left in the basket)", "документ \(position) удалён (в пакете: \(left))")
        case .basketCleared(let count):
            language.pick("the basket is empty now (\(count) document\(count == 1 ? "" : "s") removed, nothing was signed)",
                          "пакет очищен (удалено документов: \(count), ничего не подписано)")
        case .basketNoSuchDocument(let position, let count):
            language.pick("there is no document \(position) in the basket: it holds \(count) (basket show lists them)",
                          "в пакете нет документа \(position): в нём \(count) (basket show покажет их)")
        case .basketWouldRefuse(let reason):
            language.pick("the bank would refuse it now: \(reason) — it will be journaled as rejected unless that changes",
                          "банк сейчас откажет: \(reason) — документ будет отклонён, если ничего не изменится")
        case .keyName: language.pick("Name", "Имя")
        case .keyIdLabel: language.pick("Key id", "Ключ")
        case .publicKeyLabel: language.pick("Public key", "Открытый ключ")
        case .methodLabel: language.pick("Method", "Способ")
        case .suiteLabel: language.pick("Suite", "Параметры")
        case .addToAuthenticator:
            language.pick("Add this to your authenticator app (TOTP, SHA1, 6 digits, 30 s):",
                          "Добавьте это в приложение-аутентификатор (TOTP, SHA1, 6 цифр, 30 с):")
        case .loadIntoOCRA: language.pick("Load this into your OCRA authenticator (RFC 6287):", "Загрузите это в аутентификатор OCRA (RFC 6287):")
        case .ocraSuiteLabel: language.pick("suite", "набор")
        case .ocraSecretLabel: language.pick("secret", "секрет")
        case .challengeIssued(let grouped):
            language.pick("Challenge \(grouped) — nothing is posted yet", "Запрос \(grouped) — ещё ничего не проведено")
        case .challengeHowTo(let challenge):
            language.pick("Type the challenge into your authenticator (or `rbs-host keys respond \(challenge)`), then within 5 minutes:",
                          "Введите запрос в аутентификатор (или `rbs-host keys respond \(challenge)`), затем в течение 5 минут:")
        case .basketHeader(let count):
            language.pick("\(count) document\(count == 1 ? "" : "s") signed together with one code:", "документов, подписываемых одним кодом: \(count)")
        case .basketUsage:
            language.pick("usage: basket [show | add [OP|NUMBER|@TEMPLATE [ID=VALUE ...]] | remove N | clear | sign]",
                          "использование: basket [show | add [ОПЕРАЦИЯ|НОМЕР|@ШАБЛОН [ID=ЗНАЧЕНИЕ ...]] | remove N | clear | sign]")
        case .basketNothingFilled:
            language.pick("no form was filled yet: basket add OP opens one and puts it in the basket",
                          "ни одна форма ещё не заполнена: basket add ОПЕРАЦИЯ откроет форму и добавит её в пакет")
        case .basketCodePrompt:
            language.pick("One-time code for the whole basket (6 digits, cancel keeps the basket unsigned)> ",
                          "Одноразовый код для всего пакета (6 цифр, cancel — оставить пакет неподписанным)> ")
        case .basketResponsePrompt(let challenge):
            language.pick("Response to the basket's challenge \(challenge) (cancel keeps the basket unsigned)> ",
                          "Ответ на запрос пакета \(challenge) (cancel — оставить пакет неподписанным)> ")
        case .basketSigningMethod(let method):
            switch method {
            case .ocra: language.pick("OCRA challenge–response — bound to every amount and payee of this basket and to its total (dynamic linking)",
                                      "запрос–ответ OCRA — привязан ко всем суммам и получателям пакета и к его итогу (динамическая привязка)")
            case .totp, .passkey: Self.signingMethod(method).text(language)
            }
        case .basketAllRefused:
            language.pick("the bank would refuse every document of the basket: nothing is offered for signing",
                          "банк откажет по всем документам пакета: подписывать нечего")
        case .yes: language.pick("yes", "да")
        case .no: language.pick("no", "нет")

        case .formKeys: language.pick("Enter keeps a value · back returns · ? helps · cancel leaves",
                                      "Enter — оставить значение · back — назад · ? — справка · cancel — выйти")
        case .optional: language.pick("optional", "необязательно")
        case .blocked: language.pick("blocked", "заблокирован")
        case .form: language.pick("form", "форма")
        case .needsAttention: language.pick("Needs attention:", "Требует внимания:")
        case .noAccountHere: language.pick("no account can be chosen here", "здесь нельзя выбрать ни один счёт")
        case .accountsUnavailable(let reason):
            language.pick("the accounts cannot be read now: \(reason)", "счета сейчас не прочитать: \(reason)")
        case .tryAgain: language.pick(" — try again, ? for help", " — введите ещё раз, ? — справка")
        case .fixOrGoOn: language.pick(" — fix it, or Enter to go on", " — исправьте или нажмите Enter, чтобы продолжить")
        case .backToThatField: language.pick(" — back to that field", " — возврат к этому полю")
        case .enterSubmits: language.pick("Enter submits", "Enter — отправить")
        case .enterPresses: language.pick("Enter presses", "Enter — нажать")
        case .submitHelp: language.pick("Submits the form: it is checked, then you review and sign it.",
                                        "Отправляет форму: она проверяется, затем вы проверяете и подписываете документ.")
        case .actionHelp: language.pick("Runs the operation's action.", "Выполняет действие операции.")
        case .pressEnterOrWord(let text): language.pick("'\(text)': press Enter, or type back or cancel",
                                                        "«\(text)»: нажмите Enter или введите back или cancel")
        case .optionalHelp: language.pick("Optional: Enter leaves it empty.", "Необязательное поле: Enter оставляет его пустым.")
        case .formHelpKeys: language.pick("back: previous field · cancel: leave the form · Ctrl-C: leave the form",
                                          "back — предыдущее поле · cancel или Ctrl-C — выйти из формы")
        case .cleared(let id): language.pick("(\(id) cleared)", "(\(id): очищено)")
        case .kindText(let length): language.pick("text", "текст") + length
        case .kindDigits(let length): language.pick("digits", "цифры") + length
        case .kindNumber: language.pick("number", "число")
        case .kindAmount(let currency): language.pick("amount, \(currency)", "сумма, \(currency)")
        case .kindDate: language.pick("date ДД.ММ.ГГГГ", "дата ДД.ММ.ГГГГ")
        case .kindChoice(let count): language.pick("1–\(count) or a title", "1–\(count) или название")
        case .kindToggle: language.pick("yes/no", "да/нет")
        case .kindAccount: language.pick("# or account number", "№ или номер счёта")
        case .accountsHeader: language.pick("#", "№")
        case .accountColumn: language.pick("ACCOUNT", "СЧЁТ")
        case .balance: language.pick("BALANCE", "ОСТАТОК")
        case .title: language.pick("TITLE", "НАЗВАНИЕ")

        case .noAccounts: language.pick("There are no accounts.", "Счетов нет.")
        case .currencyColumn: language.pick("CURRENCY", "ВАЛЮТА")
        case .stateColumn: language.pick("STATE", "СОСТОЯНИЕ")
        case .accountOpen: language.pick("open", "открыт")
        case .accountBlocked: language.pick("blocked", "заблокирован")
        case .accountClosed: language.pick("closed", "закрыт")
        case .statementOf(let account, let title, let currency):
            language.pick("Statement of account \(account) (\(title)), \(currency)", "Выписка по счёту \(account) (\(title)), \(currency)")
        case .period(let from, let to):
            language.pick("Period: \(from ?? "the opening") – \(to ?? "now")", "Период: \(from ?? "с открытия") – \(to ?? "по сей день")")
        case .openingBalance(let amount): language.pick("Opening balance: \(amount)", "Входящий остаток: \(amount)")
        case .accountHolder(let name): language.pick("Account holder: \(name)", "Владелец счёта: \(name)")
        case .statementIssued(let time): language.pick("Issued: \(time)", "Дата формирования: \(time)")
        case .closingBalance(let amount): language.pick("Closing balance: \(amount)", "Исходящий остаток: \(amount)")
        case .noPostings: language.pick("No postings in the period.", "За период проводок нет.")
        case .dateColumn: language.pick("DATE", "ДАТА")
        case .counterpartyColumn: language.pick("COUNTERPARTY", "КОНТРАГЕНТ")
        case .purposeColumn: language.pick("PURPOSE", "НАЗНАЧЕНИЕ")
        case .amountColumn: language.pick("AMOUNT", "СУММА")
        case .totals(let debits, let debitCount, let credits, let creditCount):
            language.pick("Debits: \(debits) (\(debitCount)) · Credits: \(credits) (\(creditCount))",
                          "Списания: \(debits) (\(debitCount)) · Зачисления: \(credits) (\(creditCount))")

        case .sign: language.pick("Sign", "Подпись")
        case .codePrompt: language.pick("One-time code (6 digits, cancel returns to the form)> ",
                                        "Одноразовый код (6 цифр, cancel — вернуться к форме)> ")
        case .responsePrompt(let challenge): language.pick("Response to challenge \(challenge) (cancel returns to the form)> ",
                                                           "Ответ на запрос \(challenge) (cancel — вернуться к форме)> ")
        case .signingCancelled: language.pick("Signing cancelled: back to the form, values kept.",
                                              "Подписание отменено: возврат к форме, значения сохранены.")
        case .notOffered: language.pick("Not offered for signing: back to the form, values kept.",
                                        "Документ не предложен к подписи: возврат к форме, значения сохранены.")
        case .cancelledNothingPosted: language.pick("cancelled: nothing was signed or posted",
                                                    "отменено: ничего не подписано и не отправлено")
        case .posted: Self.statusWord(.posted, language)
        case .rejected: Self.statusWord(.rejected, language)
        case .notSubmitted: language.pick("not submitted", "не отправлено")
        case .unknown: language.pick("unknown", "неизвестно")
        case .awaitingSecondSignature: Self.statusWord(.awaiting, language)
        case .journalEntry(let sequence): language.pick(" — journal entry \(sequence)", " — запись журнала \(sequence)")
        case .balanceNow: language.pick("balance now", "остаток")
        case .errorLabel: language.pick("error:", "ошибка:")

        case .controlCharacter(let scalar):
            language.pick("control character \(UnicodeText.codePoint(scalar)) is not allowed",
                          "управляющий символ \(UnicodeText.codePoint(scalar)) недопустим")
        case .invisibleCharacter(let caption, let found):
            language.pick("\"\(caption)\" contains \(found): it can make the text read differently from what is signed — type it without it",
                          "«\(caption)» содержит невидимый символ \(found.code) (\(found.name)) в позиции \(found.position): "
                              + "он может показать текст не таким, каким он будет подписан — введите текст без него")
        case .tooShort(let length, let minimum):
            language.pick("too short: \(length) character\(length == 1 ? "" : "s"), at least \(minimum) needed",
                          "слишком коротко: символов \(length), нужно не меньше \(minimum)")
        case .tooLong(let length, let maximum):
            language.pick("too long: \(length) characters, at most \(maximum) allowed",
                          "слишком длинно: символов \(length), допустимо не больше \(maximum)")
        case .digitsOnly(let character, let position):
            language.pick("digits only: '\(character)' at position \(position) is not allowed",
                          "только цифры: символ «\(character)» в позиции \(position) недопустим")
        case .amountNotPositive: language.pick("the amount must be more than zero", "сумма должна быть больше нуля")
        case .amountCurrencyChanged(let before, let now):
            now.isEmpty || before.isEmpty
                ? language.pick("the account changed: enter the amount again", "счёт изменился: введите сумму заново")
                : language.pick("the account chosen is in \(now), the amount was in \(before): enter it again in \(now)",
                                "выбран счёт в \(now), сумма была в \(before): введите её заново в \(now)")
        case .amountBeforeAccount(let currency):
            language.pick("the amount was entered before the account; the account chosen is in \(currency): enter the amount in \(currency)",
                          "сумма введена раньше счёта; выбран счёт в \(currency): введите сумму в \(currency)")
        case .noSuchMonth(let date, let month):
            language.pick("\(date): month \(month) does not exist", "\(date): месяца \(month) не бывает")
        case .noSuchDay(let date, let day, let month, let year):
            language.pick("\(date): day \(day) does not exist in month \(month) of \(year)",
                          "\(date): в месяце \(month) \(year) года нет дня \(day)")
        case .required(let caption): language.pick("required: \(caption)", "обязательное поле: \(caption)")
        case .notValid(let caption): language.pick("not a valid value: \(caption)", "недопустимое значение: \(caption)")
        case .notADate(let text):
            language.pick("'\(text)' is not a date: write ДД.ММ.ГГГГ (31.03.2025) or YYYY-MM-DD (2025-03-31)",
                          "«\(text)» — не дата: введите ДД.ММ.ГГГГ (31.03.2025) или ГГГГ-ММ-ДД (2025-03-31)")
        case .notOnList(let number, let count):
            language.pick("\(number) is not on the list: choose 1–\(count)", "\(number) — нет в списке: выберите 1–\(count)")
        case .startsMoreThanOne(let text, let titles):
            language.pick("'\(text)' starts more than one option: ", "«\(text)» — начало нескольких вариантов: ")
                + titles.joined(separator: ", ")
        case .notAnOptionByNumber(let text, let titles):
            language.pick("'\(text)' is not one of the options — type the list number (1–\(titles.count)) or the title: ",
                          "«\(text)» — нет такого варианта: введите номер в списке (1–\(titles.count)) или название: ")
                + titles.enumerated().map { "\($0.offset + 1)) \($0.element)" }.joined(separator: ", ")
        case .answerYesOrNo(let text): language.pick("'\(text)': answer yes or no (да/нет)", "«\(text)»: ответьте да или нет (yes/no)")
        case .accountNotHere(let number, let account, let blocked, let offered):
            (blocked ? language.pick("account \(number) (\(account)) is blocked and cannot be chosen here — choose one of: ",
                                     "счёт \(number) (\(account)) заблокирован, здесь его выбрать нельзя — выберите один из: ")
                : language.pick("account \(number) (\(account)) cannot be chosen here — choose one of: ",
                                "счёт \(number) (\(account)) здесь выбрать нельзя — выберите один из: ")) + offered.joined(separator: ", ")
        case .notAnOfferedAccount(let text, let offered):
            language.pick("'\(text)' is not one of the accounts offered: ", "«\(text)» — нет среди предложенных счетов: ")
                + offered.joined(separator: ", ")
        case .operationRefused: language.pick("the operation refused the document", "операция отказалась составить документ")

        case .greeting(let version, let operations, let plugins, let editor):
            language.pick("rbs-host \(version) — \(operations) operations from \(plugins) plugins · line editing: \(editor). Type help.",
                          "rbs-host \(version) — операций: \(operations), плагинов: \(plugins) · редактирование строки: \(editor). Введите help.")
        case .firstStart(let directory):
            language.pick("First start: \(directory) has no ledger yet. Type `keys init` to create your signing key and the "
                            + "ledger (or quit and restore the folder from a backup if it held one).",
                          "Первый запуск: в \(directory) ещё нет журнала. Введите `keys init`, чтобы создать ключ подписи и "
                            + "журнал (или выйдите и восстановите папку из резервной копии, если журнал в ней был).")
        case .unknownCommand(let command, let suggestion):
            language.pick("unknown command '\(command)'", "неизвестная команда «\(command)»")
                + (suggestion.map { language.pick(" — did you mean '\($0)'?", " — может быть, «\($0)»?") }
                    ?? language.pick(" — type help for the commands", " — введите help, чтобы увидеть команды"))
        case .noSuchCommand(let command):
            language.pick("No command '\(command)'. Type help for the list.", "Команды «\(command)» нет. Введите help, чтобы увидеть список.")
        case .runNeedsOperation:
            language.pick("run needs an operation: run OP or run NUMBER (see list)",
                          "для run нужна операция: run ОПЕРАЦИЯ или run НОМЕР (см. list)")
        case .giveIDValue(let argument):
            language.pick("'\(argument)': give values as ID=VALUE, e.g. destBic=044525225",
                          "«\(argument)»: значения задаются как ID=ЗНАЧЕНИЕ, например destBic=044525225")
        case .qrUsage:
            language.pick("usage: qr TEXT (a payment QR code's text, ST0001…) or qr --image FILE (a picture of one)",
                          "использование: qr ТЕКСТ (текст платёжного QR-кода, ST0001…) или qr --image ФАЙЛ (его картинка)")
        case .qrSource: language.pick("the QR code", "QR-код")
        case .nothingChanged: language.pick("nothing changed", "ничего не изменилось")
        case .verified(let entries):
            language.pick("ok \(entries) \(entries == 1 ? "entry" : "entries")", "ok: записей журнала — \(entries), все верны")
        case .badEntry(let sequence, let reason):
            language.pick("bad entry \(sequence): \(reason)", "запись \(sequence) повреждена: \(reason)")
        case .unreconciled(let reason): language.pick("does not reconcile: \(reason)", "не сходится: \(reason)")
        case .helpHeaderCommand: language.pick("COMMAND", "КОМАНДА")
        case .helpHeaderWhat: language.pick("WHAT IT DOES", "ЧТО ДЕЛАЕТ")
        case .helpInsideForm:
            language.pick("Inside a form: Enter keeps a value, back returns, ? helps, cancel or Ctrl-C leaves.",
                          "В форме: Enter оставляет значение, back — назад, ? — справка, cancel или Ctrl-C — выход.")
        case .commandSummary(let command): Self.summary(of: command, language)
        case .report(let report): report.text(language)
        case .status(let kind): Self.statusWord(kind, language)
        }
    }

    /// What a REPL command does, for `help`; the command's own name when it has no entry.
    private static func summary(of command: String, _ language: HostLanguage) -> String {
        switch command {
        case "list": language.pick("list the operations, numbered", "список операций с номерами")
        case "run": language.pick("open an operation's form; values given here (or a template's) prefill it",
                                  "открыть форму операции; значения, данные здесь (или из шаблона), заполняют её")
        case "qr": language.pick("open the payment a QR code describes (its text, or --image FILE), prefilled; every value is checked and reviewed",
                                 "открыть платёж по QR-коду (его текст или --image ФАЙЛ) заполненным; каждое значение проверяется и показывается перед подписью")
        case "repeat": language.pick("open the operation of journal entry N prefilled with the values entered then (ID=VALUE overrides)",
                                     "открыть операцию записи журнала N, заполненную введёнными тогда значениями (ID=VALUE заменяет)")
        case "basket": language.pick("collect filled forms and sign them together with one code: show, add, remove N, clear, sign",
                                     "собрать заполненные формы и подписать их вместе одним кодом: show, add, remove N, clear, sign")
        case "template": language.pick("list the templates, keep the form filled last as template NAME (run @NAME), or show a payment template as a QR code's text (qr NAME)",
                                       "список шаблонов, сохранить последнюю заполненную форму как шаблон NAME (run @NAME) или показать платёжный шаблон текстом QR-кода (qr NAME)")
        case "plugins": language.pick("list the plugin files, loaded or failed, and why", "файлы плагинов: загружены или нет, и почему")
        case "reload": language.pick("pick up new, changed and removed plugins (or just plugin ID)",
                                     "подхватить новые, изменённые и удалённые плагины (или только плагин ID)")
        case "accounts": language.pick("list the accounts: number, title, balance, blocked or closed",
                                       "счета: номер, название, остаток, заблокирован или закрыт")
        case "statement": language.pick("an account's statement: opening and closing balance, every posting",
                                        "выписка по счёту: входящий и исходящий остаток, все проводки")
        case "journal": language.pick("list the journal's entries (filtered), show one in full, or write a posted entry's receipt (--format pdf|html|text|qr --output FILE)",
                                      "записи журнала (с отбором), одна запись целиком или квитанция проведённой записи (--format pdf|html|text|qr --output FILE)")
        case "pending": language.pick("the customer's documents awaiting a second signature",
                                      "документы клиента, ожидающие второй подписи")
        case "approve": language.pick("sign awaiting entry N as USER, the second signer (asks for USER's one-time code)",
                                      "подписать ожидающую запись N вторым подписантом USER (спросит его одноразовый код)")
        case "reject": language.pick("decline awaiting entry N as USER, with the reason (asks for USER's one-time code)",
                                     "отклонить ожидающую запись N как USER, с причиной (спросит его одноразовый код)")
        case "verify": language.pick("check every signature and the journal's hash chain", "проверить все подписи и цепочку хешей журнала")
        case "keys": language.pick("show the signing key and method, the current one-time code (keys code), or create them (TOTP, or OCRA for dynamic linking)",
                                   "показать ключ и способ подписи, текущий одноразовый код (keys code) или создать их (TOTP или OCRA с динамической привязкой)")
        case "help": language.pick("show the commands, or one command's help", "список команд или справка по одной команде")
        case "quit": language.pick("leave rbs-host (Ctrl-D does too)", "выйти из rbs-host (Ctrl-D тоже)")
        default: command
        }
    }

    /// An ISO date `YYYY-MM-DD` as Russian readers write it, `ДД.ММ.ГГГГ`; anything else unchanged.
    public static func date(iso: String) -> String {
        guard let fields = CalendarDay.fields(of: iso, .iso) else { return iso }
        return String(format: "%02d.%02d.%04d", fields.day, fields.month, fields.year)
    }
}
