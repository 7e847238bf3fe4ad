import Foundation
import RBSExpressions
import RBSLedger
import RBSMoney

/// The errors a person meets in a form and at the sign step, in their language: English is each error's own
/// `description`; Russian is written here from the error's typed facts, never from its English text.
extension HostMessage {
    /// A signing failure: a code's, or the core's refusal found before any code; other failures (a damaged
    /// database, a missing key) in English, as `rbs-host` prints them everywhere.
    public static func describe(_ error: LedgerError, _ language: HostLanguage) -> String {
        guard language == .ru else { return error.description }
        switch error {
        case .code(let code): return describe(code, language)
        case .wouldBeRejected(let rejection): return wouldRefuse(rejection, language)
        case .secondSignature(let refusal): return describe(refusal, language)
        case .unconfirmedDuplicate(let duplicate):
            return SignModule.repeatNotice(duplicate.of, language) + "; ничего не подписано — подтвердите повтор, чтобы отправить его всё же"
        case .repeatAltered(let sequence, _, let signed, let now):
            return "сохранённая форма записи журнала \(sequence) даёт другой платёж, чем подписанный ею (\(now) там, где запись "
                + "\(sequence) подписала \(signed)): сохранённые значения изменены после записи в журнал — ничего не подписано; "
                + "запустите `rbs-host verify`, восстановите папку данных из резервной копии и заполните форму заново"
        default: return error.description
        }
    }

    /// Why a second signature was refused, in `language` (`--lang ru customers approve` said it in English).
    public static func describe(_ error: SecondSignatureError, _ language: HostLanguage) -> String {
        guard language == .ru else { return error.description }
        switch error {
        case .notAwaiting(let sequence):
            return "под номером \(sequence) журнала нет документа этого клиента, ждущего второй подписи (см. список ожидающих)"
        case .alreadyDecided(let sequence, let by):
            return "запись журнала \(sequence) уже решена вторым подписантом: см. запись \(by)"
        case .sameSigner(let user):
            return "\(user) подписал этот документ первым и не может быть вторым подписантом: его подписывает или отклоняет другой пользователь клиента"
        case .noReason: return "укажите причину отказа (она записывается в журнал и видна первому подписанту)"
        case .invalidThreshold(let detail): return "порог второй подписи не принят: \(detail)"
        }
    }

    /// Why the core would refuse a document, said before any code is asked for.
    public static func wouldRefuse(_ rejection: Rejection, _ language: HostLanguage) -> String {
        language.pick(LedgerError.wouldBeRejected(rejection).description,
                      "банк отклонит этот документ: \(describe(rejection, language)) — ничего не подписано, одноразовый код не использован")
    }

    /// ``LedgerError/reviewChanged(reviewed:current:)`` in `language`.
    public static func reviewChanged(reviewed: String, current: String, _ language: HostLanguage) -> String {
        language.pick(LedgerError.reviewChanged(reviewed: reviewed, current: current).description,
                      "документ изменён после проверки, которую вы подписываете (проверен \(reviewed.prefix(12))…, теперь "
                          + "\(current.prefix(12))…, проверен заново в другом окне): проверьте новый документ и подпишите "
                          + "его — ничего не подписано, одноразовый код не использован")
    }

    /// A journal entry's reason (a rejection's, a decline's) in `language`: from the code and facts journaled with it;
    /// the journaled English message for an entry from before the facts were kept. Nil when the entry has none.
    public static func reason(of entry: JournalEntry, _ language: HostLanguage) -> String? {
        guard let reason = entry.reason else { return nil }
        guard let code = entry.reasonCode.flatMap(Rejection.Code.init(rawValue:)) else { return reason }
        return describe(Rejection(code: code, message: reason, facts: entry.reasonFacts), language)
    }

    /// The core's reason, from its code and facts (the message as journaled when the facts are not known).
    public static func describe(_ rejection: Rejection, _ language: HostLanguage) -> String {
        guard language == .ru else { return rejection.message }
        let facts = rejection.facts
        func fact(_ key: String) -> String { facts[key] ?? "?" }
        // An amount of the document's currency as a Russian reader writes it ("150 000,00 RUB").
        func money(_ key: String) -> String { Amount.shown(fact(key), currency: fact("currency"), .ru) }
        guard !facts.isEmpty else { return rejection.message }
        switch rejection.code {
        case .insufficientFunds where facts["feeAmount"] != nil:
            return "недостаточно средств на счёте \(fact("account")): остаток \(money("balance")), сумма \(money("amount"))"
                + " плюс комиссия \(money("feeAmount")) = \(money("total"))"
        case .insufficientFunds:
            return "недостаточно средств на счёте \(fact("account")): остаток \(money("balance")), сумма \(money("amount"))"
        case .accountBlocked:
            return facts["direction"] == "credit" ? "счёт \(fact("account")) заблокирован и не принимает зачислений"
                : "счёт \(fact("account")) заблокирован и не допускает списаний"
        case .unknownDebitAccount: return "счёт списания \(fact("account")) не принадлежит клиенту"
        case .missingField:
            // The field by the caption the review gives its role ("Счёт списания"), not by its key.
            let label = DocumentFieldRole.ofCoreKey(fact("field")).map { DocumentPresentation.caption($0, .ru) } ?? fact("field")
            return "в документе есть сумма, но нет поля «\(label)»"
        case .currencyMismatch:
            return "документ в валюте \(fact("document")), а счёт \(fact("account")) — в \(fact("accountCurrency"))"
        case .unknownCurrency: return "банк не ведёт счетов в валюте «\(fact("currency"))»"
        case .amountNotPositive where facts["field"] == PaymentField.fee.key: return "комиссия \(fact("amount")) не больше нуля"
        case .amountNotPositive where facts["feeAmount"] != nil:
            return "сумма \(fact("amount")) \(fact("currency")) вместе с комиссией \(fact("feeAmount")) \(fact("currency")) больше наибольшей суммы, которую проводит банк"
        case .amountNotPositive: return "сумма \(fact("amount")) не больше нуля"
        case .tooManyDecimals:
            return "в сумме \(fact("amount")) больше знаков после запятой (\(fact("minorUnits"))), чем у \(fact("currency"))"
        case .sameAccount: return "счёт списания и счёт зачисления совпадают (\(fact("account")))"
        case .notSignersAccount:
            return "счёт списания \(fact("account")) принадлежит другому лицу, и поручения списывать с него у подписанта нет"
        case .secondSignerRequired:
            return "счёт списания \(fact("account")) — клиента, чьи платежи на \(fact("amount")) \(fact("currency")) требуют подписей двух его пользователей: поручение не позволяет другому подписанту списать столько"
        case .declined: return "второй подписант \(fact("user")) отклонил документ: \(fact("reason"))"
        case .noExchangeRate:
            return "у банка нет курса \(fact("currency")): банк должен сначала загрузить курсы дня"
        case .exchangeRateStale:
            let age = fact("maximumAge") == Conversion.maximumRateAgeText ? "24 часа" : fact("maximumAge")
            return "курс \(fact("pair")) от \(fact("rateTime")) старше допустимого для обмена (\(age)): банку нужно загрузить курсы на сегодня"
        case .exchangeRateNotCurrent:
            return "курс в документе \(fact("document")) от \(fact("documentTime")) — не текущий курс банка \(fact("bank")) от \(fact("bankTime")): "
                + "проверьте перевод заново"
        case .conversionMismatch:
            return "документ зачисляет \(fact("document")), а по его курсу сумма даёт \(fact("expected"))"
        case .conversionTooSmall:
            return "на \(fact("amount")) \(fact("currency")) по курсу банка не купить и наименьшей единицы \(fact("into"))"
        case .unknownCard: return "карта \(fact("card")) банком не выпускалась"
        case .notSignersCard: return "карта \(fact("card")) принадлежит другому клиенту: заблокировать или разблокировать её может только её владелец"
        case .cardAlreadyBlocked: return "карта \(fact("card")) уже заблокирована"
        case .cardNotBlocked: return "карта \(fact("card")) не заблокирована: разблокировать нечего"
        case .feeCurrencyMismatch:
            return "комиссия указана в \(fact("feeCurrency")), а платёж — в \(fact("currency")): банк берёт комиссию только в валюте платежа"
        case .feeNotCarried:
            return "в документе есть комиссия («\(fact("field"))»: «\(fact("feeAmount"))»), но он не переводит денег: комиссию может нести только платёж (документ с суммой)"
        case .feeAccountNamed:
            return "документ указывает счёт для комиссии («\(fact("field"))»: «\(fact("account"))»): комиссия зачисляется на счёт доходов банка, его не выбирает документ — уберите это поле"
        case .unknownCardAction: return "действие с картой должно быть «block» или «unblock», а не «\(fact("action"))»"
        case .invisibleCharacter:
            return "поле «\(fact("field"))» содержит невидимый символ \(fact("character")) (\(fact("name"))) в позиции \(fact("position")): "
                + "он может показать текст не таким, каким он будет подписан"
        }
    }

    /// A one-time code or OCRA response that was not accepted.
    public static func describe(_ error: OneTimeCodeError, _ language: HostLanguage) -> String {
        guard language == .ru else { return error.description }
        func attempts(_ left: Int) -> String {
            left == 0 ? "подпись заблокирована на 5 минут" : "осталось попыток до блокировки подписи на 5 минут: \(left)"
        }
        switch error {
        case .malformed(let left): return "одноразовый код — 6 цифр из приложения-аутентификатора; \(attempts(left))"
        case .wrong(let left):
            return "одноразовый код неверен; проверьте часы устройства с приложением-аутентификатором; \(attempts(left))"
        case .replayed: return "этот одноразовый код уже использован; дождитесь следующего (новый код каждые 30 секунд)"
        case .locked(_, let remaining, let failures):
            let wait = remaining <= 60 ? "\(remaining) с" : "\((remaining + 59) / 60) мин"
            return "подпись заблокирована ещё на \(wait) после \(failures) неверных кодов"
        case .malformedResponse(let digits, let left):
            return "ответ — \(digits) цифр из аутентификатора; \(attempts(left))"
        case .wrongResponse(let left):
            return "ответ не подходит к запросу этого документа: введите в аутентификатор запрос, показанный с этой суммой и получателем, затем его ответ; \(attempts(left))"
        case .challengeUsed: return "на этот запрос уже ответили; начните подписание заново, чтобы получить новый запрос"
        default: return error.description
        }
    }

    /// Typed text that a field does not accept (the edge's parsers).
    public static func describe(_ error: InputError, _ language: HostLanguage) -> String {
        guard language == .ru else { return error.description }
        switch error {
        case .empty: return "введите значение"
        case .invalidCharacter(let c, let position, let expected):
            return "\(expected == "digits only" ? "только цифры" : expected): символ \(UnicodeText.quoted(c, open: "«", close: "»")) в позиции \(position) недопустим"
        case .amount(let amount): return describe(amount, language)
        case .currency: return error.description
        case .tooShort(let length, let minimum): return "слишком коротко: символов \(length), нужно не меньше \(minimum)"
        case .tooLong(let length, let maximum): return "слишком длинно: символов \(length), допустимо не больше \(maximum)"
        case .invalidDate(let text, _): return "\(text): такой даты нет; введите дату как ДД.ММ.ГГГГ"
        case .invalidUTF8(let offset): return "ввод — не UTF-8 (ошибочный байт на смещении \(offset)); введите текст заново"
        case .controlCharacter(let scalar, let position):
            return "управляющий символ \(UnicodeText.codePoint(scalar)) в позиции \(position) недопустим"
        }
    }

    /// Typed amount text that is not one amount.
    public static func describe(_ error: AmountInputError, _ language: HostLanguage) -> String {
        guard language == .ru else { return error.description }
        func plain(_ value: Decimal) -> String { value.description.replacingOccurrences(of: ".", with: ",") }
        switch error {
        case .empty: return "введите сумму"
        case .invalidCharacter(let c, let position):
            return "символ \(UnicodeText.quoted(c, open: "«", close: "»")) в позиции \(position) недопустим: в сумме только цифры, пробелы, «,» и «.»"
        case .exponent(let text): return "\(text): запишите число полностью, без экспоненты"
        case .negative(let text): return "\(text): сумма должна быть положительной"
        case .multipleDecimalSeparators(let text): return "\(text): больше одного десятичного разделителя"
        case .misplacedGroupSeparator(let text):
            return "\(text): группы разрядов — по три цифры и один вид разделителя; уберите или переставьте разделитель"
        case .missingDigits(let text): return "\(text): нужны цифры с обеих сторон десятичного разделителя"
        case .ambiguous(let text, let grouped, let decimal, _):
            return "\(text) — неоднозначно: это \(plain(grouped)) (разделитель разрядов) или \(plain(decimal)) (десятичный разделитель); введите \(plain(grouped)) или \(plain(decimal))"
        case .tooManyMinorDigits(let text, let currency):
            return currency.minorUnits == 0
                ? "\(text): у \(currency.code) нет дробной части; введите целое число (суммы не округляются)"
                : "\(text): у \(currency.code) после запятой не больше \(currency.minorUnits) цифр (суммы не округляются)"
        case .zero: return "сумма должна быть больше нуля"
        case .tooLarge(let text): return "\(text): слишком много цифр: в сумме их не больше 18 вместе с копейками (центами)"
        }
    }

    /// A payment QR code's text that is not one (ГОСТ Р 56042-2014).
    public static func describe(_ error: PaymentQRError, _ language: HostLanguage) -> String {
        guard language == .ru else { return error.description }
        switch error {
        case .notPaymentQR(let prefix):
            return "это не платёжный QR-код: текст начинается с «\(PaymentQRError.visible(prefix))», а не с ST0001 (ГОСТ Р 56042-2014)"
        case .unknownEncoding(let digit):
            return "неизвестная кодировка «\(PaymentQRError.visible(String(digit)))» после ST0001: 1 (windows-1251), 2 (UTF-8) или 3 (KOI8-R)"
        case .notInEncoding(let encoding, let offset):
            return "байт \(offset + 1) — не текст в \(encoding.name), которую объявляет заголовок кода (ST0001\(encoding.rawValue))"
        case .noSeparator:
            return "нет разделителя после ST0001 и цифры кодировки: следующий символ разделяет поля (обычно |)"
        case .malformedField(let position, let text):
            return "поле \(position) («\(PaymentQRError.visible(text))») не в виде Имя=значение"
        case .duplicateField(let key):
            return "поле \(PaymentQRError.visible(key)) встречается дважды"
        case .missingField(let key):
            return "нет обязательного поля \(key) или оно пустое (обязательны: \(PaymentQR.requiredKeys.joined(separator: ", ")))"
        case .invalidValue(let field, let value, let expected):
            let what = switch expected {
            case .digits(let counts, let orZero):
                counts.map(String.init).joined(separator: " или ") + " цифр" + (orZero ? " (или 0)" : "")
            case .kopecks: "сумма в копейках: только цифры, не больше 18"
            }
            return "\(PaymentQRError.visible(field))=\(PaymentQRError.visible(value)): ожидается \(what)"
        case .unprintable(let field, let code):
            return "в поле \(PaymentQRError.visible(field)) управляющий или невидимый символ \(UnicodeText.codePoint(code)), "
                + "которого в тексте платежа не бывает: код отклонён, а не показан"
        }
    }

    /// A picture that gave no payment QR code.
    public static func describe(_ error: QRImageError, _ language: HostLanguage) -> String {
        guard language == .ru else { return error.description }
        switch error {
        case .unreadable(let path): return "\(path): файла нет или его нельзя прочитать"
        case .readerMissing(let program):
            return "\(program) не установлен: для чтения QR-кодов с картинок нужен ZBar (Debian: apt-get install zbar-tools); "
                + "или передайте текст кода"
        case .noCode(let path): return "\(path): на картинке не найден QR-код"
        case .severalCodes(let path): return "\(path): на картинке больше одного кода; обрежьте её до платёжного"
        case .undecodable(let path, _):
            return "\(path): ZBar не может прочитать эту картинку: пришлите фото или скан кода (PNG, JPEG, GIF, BMP, TIFF)"
        case .notPayment(let path, let error): return "\(path): " + describe(error, language)
        }
    }

    /// A document or template that cannot be written as a payment QR code.
    public static func describe(_ error: PaymentQRWriteError, _ language: HostLanguage) -> String {
        guard language == .ru else { return error.description }
        switch error {
        case .notAPayment:
            return "это не платёж на счёт получателя: для платёжного QR-кода нужны наименование получателя, его счёт и БИК"
        case .unknownBank(let bic):
            return "БИК \(bic) нет в справочнике банков: для кода нужны наименование банка и его корреспондентский счёт"
        case .notRubles(let currency): return "платёжный QR-код — для платежей в рублях, а не в \(currency)"
        case .noSeparator: return "каждый знак-разделитель (| # ; ^ ~) встречается в каком-то значении"
        case .invalid(let error): return "из значений платежа не получается верный код: " + describe(error, language)
        }
    }

    /// The fields of a payment QR code no atom of the form takes: shown to the person, never dropped silently.
    public static func paymentQRShownOnly(_ fields: [PaymentQR.Field], _ language: HostLanguage) -> String? {
        guard !fields.isEmpty else { return nil }
        let list = fields.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")
        return language.pick("from the QR code, not a field of the form (check them yourself): ",
                             "из QR-кода, в форме такого поля нет (сверьте сами): ") + list
    }
}

extension HostMessage {
    /// A value, button or run the form refused, naming the field by its caption (`caption(id)`, else its id) and
    /// never twice, in `language`.
    public static func describe(_ error: FormSessionError, caption: (String) -> String?, _ language: HostLanguage) -> String {
        func name(_ id: String) -> String { caption(id).flatMap { $0.isEmpty ? nil : $0 } ?? id }
        switch error {
        case .invalid(let id, let message):
            return "\(name(id)): \(fieldMessage(message, id: id, caption: name(id)))"
        case .mismatch(let id, let expected, let got):
            return language.pick("\(name(id)) takes \(expected), not \(got)", "«\(name(id))»: нужно \(expected), а не \(got)")
        case .hidden(let id):
            return language.pick("'\(name(id))' is hidden by its show-if condition — fill the fields it depends on first",
                                 "поле «\(name(id))» скрыто условием показа — сначала заполните поля, от которых оно зависит")
        case .notEditable(let id, _):
            return language.pick("'\(name(id))' takes no value", "поле «\(name(id))» не принимает значения")
        case .closed: return language.pick(error.description, "форма закрыта")
        case .pluginFault(let fault): return describe(fault, language)
        case .unknownAtom, .notAButton, .createFailed, .badPluginValue, .pluginFailed: return error.description
        }
    }
}

extension HostMessage {
    /// A message about field `id` without the name it may start with: a plugin's or a parser's message may begin
    /// with the field's id or its caption already, and the front end names the field itself.
    public static func fieldMessage(_ message: String, id: String, caption: String) -> Substring {
        var body = Substring(message)
        for prefix in ["\(id): ", "\(caption): "] where body.hasPrefix(prefix) { body = body.dropFirst(prefix.count) }
        return body
    }
}

extension FormSession {
    /// `error` as the person reads it: in this run's language, fields named by their captions.
    public func describe(_ error: FormSessionError) -> String {
        HostMessage.describe(error, caption: { [self] in atom($0)?.caption }, language)
    }

    /// A value the one-shot commands could not commit: a refusal that names its atom as the atom's id says it (the
    /// front end names the field, and `--json` keeps the id); one about the run itself (the plugin's worker ended
    /// it) in this run's language, the same words the form's verdict gives it.
    public func describeCommitRefusal(_ error: FormSessionError) -> String {
        error.atom == nil ? describe(error) : error.description
    }
}
