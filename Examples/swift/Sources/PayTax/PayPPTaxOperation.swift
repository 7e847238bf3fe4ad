import RBSPluginKit

/// A budget payment (a payment order to the treasury): taxes, the single tax payment, duties, customs payments.
///
/// Fields 101, 104–109, 60 and 22 follow the Ministry of Finance order No. 107n as amended by order No. 199n (in force
/// since 11.02.2023, the single tax payment, ЕНП): where a field has no value it is "0", not empty. One line per atom;
/// the form shows them in the order of `atoms`. Every text, hint and error is declared in Russian, so a Russian form
/// never carries an English message; `translations` gives the English form all of them in English.
final class PayPPTaxOperation: Operation, OperationDefinition {
    static let id = "pay.pp.tax"
    static let title = "Budget payment"
    static let category = "Payments"
    static let functions: [ExportedFunction] = [
        .function("isBasisDate", symbol: "pay_pp_tax_isBasisDate", signature: "bool(string)"),
    ]
    /// The review before signing: each document field under the caption of the atom it came from (fields 101, 60,
    /// 22 and 104–109 with their numbers), the payment type as its title.
    static let documentLabels = [
        DocumentFieldLabel("from", role: .debitAccount, atom: "srcAccount"),
        DocumentFieldLabel("type", atom: "type"),
        DocumentFieldLabel("payerStatus", atom: "payerStatus"),
        DocumentFieldLabel("payerInn", atom: "payerInn"),
        DocumentFieldLabel("uin", atom: "uin"),
        DocumentFieldLabel("kbk", atom: "kbk"),
        DocumentFieldLabel("oktmo", atom: "oktmo"),
        DocumentFieldLabel("basis", atom: "basis"),
        DocumentFieldLabel("period", atom: "period"),
        DocumentFieldLabel("docNumber", atom: "docNumber"),
        DocumentFieldLabel("docDate", atom: "docDate"),
        DocumentFieldLabel("name", "Получатель", role: .payee, atom: "destName"),
        DocumentFieldLabel("inn", role: .payeeTaxID, atom: "destInn"),
        DocumentFieldLabel("kpp", atom: "destKpp"),
        DocumentFieldLabel("account", role: .payeeAccount, atom: "destAccount"),
        DocumentFieldLabel("bic", role: .payeeBank, atom: "destBic"),
        DocumentFieldLabel("purpose", role: .purpose, atom: "destDesc"),
        DocumentFieldLabel("amount", "Сумма", role: .amount, atom: "amount"),
        DocumentFieldLabel("currency", "Валюта", role: .currency),
    ]
    /// The title in Russian, and the form's captions, hints, error texts, choices and labels in English
    /// (`rbs.texts/1`): an English form carries no Russian sentence. The codes of order 107n (ТП, МС.01.2026) stay
    /// as the order writes them: they are what the field holds.
    static let translations = [
        Translation("ru", title: "Платёж в бюджет", category: "Платежи"),
        Translation("en", captions: [
            "srcAccount": "Debit account", "requisites": "Payee's details", "type": "Payment type",
            "payerStatus": "Payer's status (101)", "payerInn": "Payer's INN (60)", "uin": "UIN (22)",
            "kbk": "Budget classification code (104)", "oktmo": "OKTMO (105)", "basis": "Payment basis (106)",
            "period": "Tax period or customs office code (107)", "docNumber": "Basis document number (108)",
            "docDate": "Basis document date (109)", "destName": "Payee (the treasury body)", "destInn": "Payee's INN",
            "destKpp": "Payee's KPP", "destAccount": "Payee's account", "destBic": "BIC",
            "destBicInfo": "Enter the BIC: the bank is found automatically", "destDesc": "Purpose of payment",
            "amount": "Amount, ₽", "btnSend": "Pay",
        ], hints: [
            "requisites": "The single tax payment fills in the payee, account, BIC, KBK 18201061201010000510 and \"0\" in "
                + "fields 105–109; for another payment enter the details from the document",
            "type": "1 — a tax, levy or contribution to the Federal Tax Service (the single tax payment included); "
                + "2 — a customs payment; 0 — any other payment",
            "payerStatus": "Two digits by appendix 5 to order 107n: 01 — taxpayer (an organisation, an entrepreneur, a person "
                + "paying the single tax payment), 02 — tax agent, 13 — a person, 06 — a party to foreign trade …",
            "payerInn": "10 digits for an organisation, 12 for a person or an entrepreneur; a person without an INN (status 13 "
                + "or 24) writes 0 and gives the UIN",
            "uin": "The unique accrual identifier from a demand, a ruling or a receipt: 20 or 25 digits; 0 if there is none",
            "kbk": "Budget classification code: 20 digits; for the single tax payment 18201061201010000510",
            "oktmo": "Municipal territory code: 8 or 11 digits; 0 for the single tax payment",
            "basis": "Two capital Russian letters by order 107n (ТП — this year's payments, ЗД — voluntary payment of a "
                + "debt, ТР — on a demand …) or 0 when there is no basis (the single tax payment)",
            "period": "A tax: МС.01.2026, КВ.02.2026, ПЛ.01.2026, ГД.00.2026, a due date set by law (12.03.2026) or 0 (the single tax payment); a customs "
                + "payment: the customs office's code, 8 digits",
            "docNumber": "The number of the demand, decision or declaration, up to 15 characters; 0 if there is no document",
            "docDate": "DD.MM.YYYY (31.03.2026); 0 if there is no document",
            "destBic": "9 digits; the bank's name appears below",
        ], errors: [
            "payerStatus": "Statuses 09–12 and 14 were withdrawn on 11.02.2023 (order 199n): an entrepreneur, a notary, a "
                + "lawyer or the head of a farm writes 01; 00 is not a status",
            "payerInn": "The payer's INN has 10 digits for an organisation or 12 for a person, the first two (the region's "
                + "code) not 00, with correct check digits; only a person without an INN (status 13 or 24) may write 0, "
                + "and then gives the UIN",
            "uin": "The UIN has 20 or 25 digits, the last a check digit (check the number against the document), or is 0 "
                + "if there is none; without the payer's INN (0 in field 60) the UIN is required",
            "kbk": "The KBK has 20 digits, not all zeros: take it from the notice or the receipt",
            "oktmo": "The OKTMO has 8 or 11 digits, not all zeros; 0 is allowed only in the single tax payment (KBK 18201061201010000510)",
            "basis": "The payment basis is a code of order 107n in capital Russian letters (ТП, ЗД, ТР, РС, ОТ, РТ, ВУ, ПР, "
                + "АП, АР …) or 0 for a tax payment without a basis (the single tax payment)",
            "period": "For a tax payment the period is МС.01.2026, КВ.02.2026, ПЛ.01.2026, ГД.00.2026, a due date "
                + "DD.MM.YYYY or 0; for a customs payment, the customs office's code of 8 digits",
            "docDate": "The basis document's date is DD.MM.YYYY, a date that exists (31.03.2026), or 0 if there is no document",
            "destInn": "The payee's INN is wrong: its first two digits (the region's code) are never 00 and its check digits "
                + "must match; a budget payment needs the exact INN",
            "destKpp": "The KPP is 9 characters: 4 digits (the tax office's code, not 0000), 2 digits or capital Latin "
                + "letters (A–Z), 3 digits",
            "destAccount": "The account number does not match the BIC (control key): check both; a treasury account starts "
                + "with 03 and is in roubles (643 in characters 6–8)",
            "amount": "Enter an amount greater than zero",
        ], options: [
            "requisites": ["enp": "Single tax payment (Treasury of Russia (Federal Tax Service))",
                           "other": "Another payee: details from a notice, a demand or a receipt"],
            "type": ["0": "Ordinary", "1": "Tax payment", "2": "Customs payment"],
        ], labels: ["name": "Payee", "amount": "Amount", "currency": "Currency"]),
    ]

    /// The single tax payment's requisites as the Federal Tax Service publishes them (since 2023): one payee, one
    /// treasury account at the Tula treasury office, one KBK; fields 105–109 are "0" (the tax office sorts the money
    /// by the payer's notices, not by the payment).
    enum SingleTaxPayment {
        static let name = "Казначейство России (ФНС России)"
        static let inn = "7727406020"
        static let kpp = "770801001"
        static let account = "03100643000000018500"
        static let bic = "017003983"
        static let kbk = "18201061201010000510"
        static let purpose = "Единый налоговый платёж"
    }

    /// Field 106: the payment bases of order 107n for tax payments (type 1) and for customs payments (type 2).
    static let paymentBases = [
        // tax payments
        "ТП", "ЗД", "БФ", "ТР", "РС", "ОТ", "РТ", "ПБ", "ПР", "АП", "АР", "ИН", "ТЛ", "ЗТ", "ВУ",
        // customs payments
        "ДЕ", "ПО", "КТ", "ИД", "ИП", "ТУ", "БД", "КП", "ДК", "ПК", "КК", "ТК", "ПД", "КВ", "ТГ", "ПЛ",
    ]

    /// The tax period of field 107 (type 1): МС.01…12, КВ.01…04, ПЛ.01…02 or ГД.00, then the year (19xx or 20xx:
    /// МС.03.0000 is no period).
    /// Written with bracket classes instead of backslashes so it reads the same whatever the string escapes.
    static let taxPeriod = "(МС[.](0[1-9]|1[0-2])|КВ[.]0[1-4]|ПЛ[.]0[12]|ГД[.]00)[.](19|20)[0-9]{2}"

    /// Field 101 statuses that name a natural person: only such a payer may write "0" for an INN they do not
    /// have (field 60), and then the УИН (field 22) identifies the payment (107n, appendices 2 and 4).
    static let personStatuses = ["13", "24"]

    /// Statuses order 199n withdrew on 11.02.2023: individual entrepreneurs, notaries, lawyers and heads of farms pay
    /// as "01" now, and insurance contributions go into the single tax payment.
    static let withdrawnStatuses = ["09", "10", "11", "12", "14"]

    /// An expression's set of string literals: `{'13', '24'}`.
    static func literals(_ values: [String]) -> String { "{" + values.map { "'\($0)'" }.joined(separator: ", ") + "}" }

    /// The dependency of fields 106–109 on the payment type.
    static let budgetFieldsShown = "($type == 1) || ($type == 2)"

    let srcAccount = AccountPickerAtom(title: "Списать со счёта", filter: "currency == 'RUB' AND NOT blocked")
    let requisites = EnumAtom(caption: "Реквизиты получателя", options: [
        (value: "enp", title: "Единый налоговый платёж (Казначейство России (ФНС России))"),
        (value: "other", title: "Другой получатель: реквизиты из уведомления, требования или квитанции"),
    ])
    let type = EnumAtom(caption: "Вид платежа", options: [
        (value: "0", title: "Обычный"),
        (value: "1", title: "Налоговый платёж"),
        (value: "2", title: "Таможенный платёж"),
    ])
    let payerStatus = TextInputAtom(caption: "Статус плательщика (101)", type: .digitsOnly, length: 2...2)
    let payerInn = TextInputAtom(caption: "ИНН плательщика (60)", type: .digitsOnly, length: 1...12)
    let uin = TextInputAtom(caption: "УИН (22)", type: .digitsOnly, length: 1...25)
    let kbk = TextInputAtom(caption: "КБК (104)", type: .digitsOnly, length: 20...20)
    let oktmo = TextInputAtom(caption: "ОКТМО (105)", type: .digitsOnly, length: 1...11)
    let basis = TextInputAtom(caption: "Основание платежа (106)", length: 1...2)
    let period = TextInputAtom(caption: "Налоговый период или код таможенного органа (107)", length: 1...10)
    let docNumber = TextInputAtom(caption: "Номер документа-основания (108)", length: 1...15)
    let docDate = TextInputAtom(caption: "Дата документа-основания (109)", length: 1...10)
    let destName = TextInputAtom(caption: "Получатель (наименование органа казначейства)")
    let destInn = TextInputAtom(caption: "ИНН получателя", type: .digitsOnly, length: 10...12)
    let destKpp = TextInputAtom(caption: "КПП получателя", length: 9...9)
    let destAccount = TextInputAtom(caption: "Счет получателя", type: .digitsOnly, length: 20...20)
    let destBic = TextInputAtom(caption: "БИК", type: .digitsOnly, length: 9...9)
    let destBicInfo = TextAtom(caption: "Введите БИК, банк будет определен автоматически")
    let destDesc = TextInputAtom(caption: "Назначение платежа")
    let amount = TextInputAtom(caption: "Сумма, ₽", type: .amount(currency: "RUB"))
    let btnSend = ButtonAtom(caption: "Заплатить")

    required init() {
        super.init()
        requisites.optional = true
        requisites.hint = "ЕНП заполнит получателя, счёт, БИК, КБК 18201061201010000510 и «0» в полях 105–109; "
            + "для другого платежа введите реквизиты из документа"
        type.hint = "1 — налог, сбор, взнос в ФНС (в том числе ЕНП); 2 — таможенный платёж; 0 — иной платёж"

        payerStatus.hint = "Две цифры по приложению 5 к приказу 107н: 01 — налогоплательщик (организация, ИП, "
            + "физическое лицо, платящее ЕНП), 02 — налоговый агент, 13 — физическое лицо, 06 — участник ВЭД …"
        payerStatus.validIf("payerStatus != '00' AND NOT (payerStatus IN \(Self.literals(Self.withdrawnStatuses)))",
                            "Статусы 09–12 и 14 отменены с 11.02.2023 (приказ 199н): ИП, нотариус, адвокат, глава КФХ "
                            + "указывают 01; 00 — не статус")

        payerInn.hint = "10 цифр у организации, 12 у физического лица и ИП; физическое лицо без ИНН (статус 13 или 24) "
            + "пишет 0 и указывает УИН"
        payerInn.validIf("isInn(payerInn) OR (payerInn == '0' AND payerStatus IN \(Self.literals(Self.personStatuses)))",
                         "ИНН плательщика — 10 цифр у организации или 12 у физического лица, первые две (код региона) не 00, "
                         + "с верными контрольными цифрами; 0 можно указать только физическому лицу без ИНН (статус 13 или 24) вместе с УИН")
        uin.defaultValue = "0"
        uin.hint = "Уникальный идентификатор начисления из требования, постановления или квитанции: 20 или 25 цифр; "
            + "0, если его нет"
        uin.validIf("(uin == '0' OR isUin(uin)) AND NOT (uin == '0' AND payerInn == '0')",
                    "УИН — 20 или 25 цифр, последняя контрольная (проверьте номер по документу), или 0, если его нет; "
                    + "без ИНН плательщика (0 в поле 60) УИН обязателен")

        kbk.hint = "Код бюджетной классификации: 20 цифр; для ЕНП — 18201061201010000510"
        kbk.validIf("kbk != '00000000000000000000'", "КБК — 20 цифр, не все нули: возьмите его из уведомления или квитанции")
        oktmo.hint = "Код муниципального образования: 8 или 11 цифр; для ЕНП — 0"
        // All zeros names no territory: only the single tax payment's one 0 stands for "none".
        oktmo.validIf("((len(oktmo) == 8 OR len(oktmo) == 11) AND NOT (oktmo MATCHES '0+')) "
                      + "OR (oktmo == '0' AND kbk == '\(SingleTaxPayment.kbk)')",
                      "ОКТМО — 8 или 11 цифр, не все нули; 0 допустим только в платеже ЕНП (КБК 18201061201010000510)")

        basis.hint = "Две заглавные буквы по приказу 107н (ТП — платежи текущего года, ЗД — добровольное погашение "
            + "задолженности, ТР — по требованию …) или 0, когда основания нет (ЕНП)"
        basis.validIf("($type == 1 AND basis == '0') OR basis IN \(Self.literals(Self.paymentBases))",
                      "Основание платежа — код из приказа 107н заглавными русскими буквами (ТП, ЗД, ТР, РС, ОТ, РТ, ВУ, "
                      + "ПР, АП, АР …) или 0 для налогового платежа без основания (ЕНП)")
        period.hint = "Налог: МС.01.2026, КВ.02.2026, ПЛ.01.2026, ГД.00.2026, срок уплаты по закону (12.03.2026) или 0 (ЕНП); таможенный платёж: "
            + "код таможенного органа, 8 цифр"
        // A tax whose law sets a due date gives that date in field 107 (107n, appendix 2): ДД.ММ.ГГГГ.
        period.validIf("($type == 1 AND (period == '0' OR period MATCHES '\(Self.taxPeriod)' "
                       + "OR (period != '0' AND isBasisDate(period)))) "
                       + "OR ($type == 2 AND period MATCHES '[0-9]{8}')",
                       "Для налогового платежа период — МС.01.2026, КВ.02.2026, ПЛ.01.2026, ГД.00.2026, дата уплаты "
                       + "ДД.ММ.ГГГГ или 0; для таможенного — код таможенного органа из 8 цифр")
        docNumber.hint = "Номер требования, решения или декларации, до 15 знаков; 0, если документа нет"
        docDate.hint = "ДД.ММ.ГГГГ (31.03.2026); 0, если документа нет"
        docDate.validIf("isBasisDate(docDate)",
                        "Дата документа-основания — ДД.ММ.ГГГГ, существующая дата (31.03.2026), или 0, если документа нет")
        for atom in [basis, period, docNumber, docDate] as [Atom] { atom.showIf(Self.budgetFieldsShown) }

        destName.wideInput = true
        destName.capitalizeSentences = true
        destInn.validIf("isInn(destInn)", "ИНН получателя неверен: первые две цифры (код региона) не бывают 00, а контрольные "
                        + "цифры должны сходиться; бюджетному платежу нужен точный ИНН")
        // Positions 5–6 of a KPP may be capital Latin letters (Federal Tax Service, since 2019): not a digits-only field.
        destKpp.validIf("isKpp(destKpp)",
                        "КПП — 9 знаков: 4 цифры (код налогового органа, не 0000), 2 цифры или заглавные латинские буквы (A–Z), 3 цифры")
        // Since 2021 a budget payment goes to a treasury account (03…) at a treasury office's BIC; its bank account
        // (the single treasury account 40102…) comes from the directory. Both follow AccountKey's rules.
        destAccount.wideInput = true
        destAccount.validIf("accountKeyOk(destAccount, destBic)",
                            "Номер счёта не сходится с БИК (контрольный ключ): проверьте оба; казначейский счёт "
                            + "начинается с 03 и в рублях (643 в 6–8 знаках)")
        destBic.hint = "9 цифр; название банка появится ниже"
        destDesc.wideInput = true
        destDesc.capitalizeSentences = true
        amount.validIf("amount > 0", "Введите сумму больше нуля")
    }

    override var atoms: [Atom] {
        [
            srcAccount,
            type,
            requisites,
            payerStatus,
            payerInn,
            uin,
            kbk,
            oktmo,
            basis,
            period,
            docNumber,
            docDate,
            destName,
            destInn,
            destKpp,
            destAccount,
            destBic,
            destBicInfo,
            destDesc,
            amount,
            btnSend,
        ]
    }

    override func onAtomValueChanged(_ sender: Atom, commit: Bool) {
        if sender === destBic && commit {
            showTreasuryBank()
        }
        if sender === requisites && commit && requisites.stringValue == "enp" {
            fillSingleTaxPayment()
        }
        // Fields 108 and 109 are "0" when no document is named (107n): offered as their value when they appear. A
        // default would not do: the host keeps no value for an atom hidden at the form's start.
        if sender === type && commit && type.stringValue != "0" {
            for atom in [docNumber, docDate] where atom.stringValue.isEmpty { atom.set(.text("0")) }
        }
    }

    /// The single tax payment's requisites into the form. Each value is set through the host and so checked like a
    /// typed one; what the person typed in the payer's fields (status, INN) is kept, "01" only fills an empty status.
    func fillSingleTaxPayment() {
        type.set(.text("1"))
        if payerStatus.stringValue.isEmpty { payerStatus.set(.text("01")) }
        kbk.set(.text(SingleTaxPayment.kbk))
        oktmo.set(.text("0"))
        for atom in [basis, period, docNumber, docDate] { atom.set(.text("0")) }
        destName.set(.text(SingleTaxPayment.name))
        destInn.set(.text(SingleTaxPayment.inn))
        destKpp.set(.text(SingleTaxPayment.kpp))
        destAccount.set(.text(SingleTaxPayment.account))
        destBic.set(.text(SingleTaxPayment.bic))
        if destDesc.stringValue.isEmpty { destDesc.set(.text(SingleTaxPayment.purpose)) }
        showTreasuryBank()
    }

    /// The bank's name under the BIC, or a mark on the BIC (in Russian and English) when the directory does not know it.
    func showTreasuryBank() {
        if let bank = host.bank(bic: destBic.stringValue) {
            destBicInfo.caption = bank.name
            destBic.setError(nil)
        } else {
            destBicInfo.caption = ""
            destBic.setError(["ru": "БИК \(destBic.stringValue) нет в справочнике банков: сверьте его с реквизитами получателя",
                              "en": "BIC \(destBic.stringValue) is not in the bank directory: check it against the payee's details"])
        }
    }

    override func document() throws(DocumentRefusal) -> [(key: String, value: String)] {
        guard host.bank(bic: destBic.stringValue) != nil else {
            throw DocumentRefusal(atom: "destBic", ["ru": "БИК \(destBic.stringValue) нет в справочнике банков",
                                                    "en": "BIC \(destBic.stringValue) is not in the bank directory"])
        }
        var fields: [(key: String, value: String)] = [
            ("from", srcAccount.account),
            ("type", type.stringValue),
            ("payerStatus", payerStatus.stringValue),
            ("payerInn", payerInn.stringValue),
            ("uin", uin.stringValue),
            ("kbk", kbk.stringValue),
            ("oktmo", oktmo.stringValue),
        ]
        // Fields 106–109: values were refreshed from the host, so hidden ones read as empty and are left out.
        for (key, atom) in [("basis", basis), ("period", period), ("docNumber", docNumber), ("docDate", docDate)]
        where !atom.stringValue.isEmpty {
            fields.append((key, atom.stringValue))
        }
        fields += [
            ("name", destName.stringValue),
            ("inn", destInn.stringValue),
            ("kpp", destKpp.stringValue),
            ("account", destAccount.stringValue),
            ("bic", destBic.stringValue),
            ("purpose", destDesc.stringValue),
            ("amount", amount.stringValue),
            ("currency", "RUB"),
        ]
        return fields
    }
}

/// Field 109: "0", or a date that exists written ДД.ММ.ГГГГ (107n: the basis document's date in that form), in
/// 1900–2099 (a document of 31.12.9999 is a slip of the keyboard, not a demand).
enum BasisDate {
    static func isValid(_ text: String) -> Bool {
        if text == "0" { return true }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 2, parts[1].count == 2, parts[2].count == 4,
              parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let day = Int(parts[0]), let month = Int(parts[1]), let year = Int(parts[2]),
              (1900...2099).contains(year), (1...12).contains(month) else { return false }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        return (1...days).contains(day)
    }
}

@_cdecl("pay_pp_tax_isBasisDate")
public func isBasisDate(_ text: UnsafePointer<CChar>?) -> Bool {
    guard let text else { return false }
    return BasisDate.isValid(String(cString: text))
}

@_cdecl("rbs_plugin_entry")
public func rbsPluginEntry() -> UnsafeRawPointer? {
    Plugin.entry(id: "ru.example.payments.tax", name: "Budget payment", version: "1.1.0", vendor: "Example Bank",
                 description: "Payments to the budget by order 107n as amended for the single tax payment (ЕНП): "
                     + "taxes, the single tax payment, customs payments (fields 101, 104–109, 60 and 22).",
                 operations: [PayPPTaxOperation.self])
}
