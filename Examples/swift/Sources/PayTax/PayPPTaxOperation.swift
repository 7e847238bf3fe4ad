import RBSPluginKit

/// A budget payment (a payment order to the treasury): taxes, the single tax payment, duties, customs payments.
///
/// Fields 101, 104–109, 60 and 22 follow the Ministry of Finance order No. 107n as amended by order No. 199n (in force
/// since 11.02.2023, the single tax payment, ЕНП): where a field has no value it is "0", not empty. One line per atom;
/// the form shows them in the order of `atoms`. Every text, hint and error is declared in Russian, so a Russian form
/// never carries an English message; `translations` gives the English form its captions.
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
    /// The title in Russian, and the form's captions, choices and labels in English (`rbs.texts/1`); hints and error
    /// texts stay Russian in both (the budget fields are read against the Russian order 107n).
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

    /// The tax period of field 107 (type 1): МС.01…12, КВ.01…04, ПЛ.01…02 or ГД.00, then the year.
    /// Written with bracket classes instead of backslashes so it reads the same whatever the string escapes.
    static let taxPeriod = "(МС[.](0[1-9]|1[0-2])|КВ[.]0[1-4]|ПЛ[.]0[12]|ГД[.]00)[.][0-9]{4}"

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

    let srcAccount = AccountPickerAtom(title: "Списать со счета", filter: "currency == 'RUB' AND NOT blocked")
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
        oktmo.validIf("len(oktmo) == 8 OR len(oktmo) == 11 OR (oktmo == '0' AND kbk == '\(SingleTaxPayment.kbk)')",
                      "ОКТМО — 8 или 11 цифр; 0 допустим только в платеже ЕНП (КБК 18201061201010000510)")

        basis.hint = "Две заглавные буквы по приказу 107н (ТП — платежи текущего года, ЗД — добровольное погашение "
            + "задолженности, ТР — по требованию …) или 0, когда основания нет (ЕНП)"
        basis.validIf("($type == 1 AND basis == '0') OR basis IN \(Self.literals(Self.paymentBases))",
                      "Основание платежа — код из приказа 107н заглавными русскими буквами (ТП, ЗД, ТР, РС, ОТ, РТ, ВУ, "
                      + "ПР, АП, АР …) или 0 для налогового платежа без основания (ЕНП)")
        period.hint = "Налог: МС.01.2026, КВ.02.2026, ПЛ.01.2026, ГД.00.2026 или 0 (ЕНП); таможенный платёж: "
            + "код таможенного органа, 8 цифр"
        period.validIf("($type == 1 AND (period == '0' OR period MATCHES '\(Self.taxPeriod)')) "
                       + "OR ($type == 2 AND period MATCHES '[0-9]{8}')",
                       "Для налогового платежа период — МС.01.2026, КВ.02.2026, ПЛ.01.2026, ГД.00.2026 или 0; "
                       + "для таможенного — код таможенного органа из 8 цифр")
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
            throw DocumentRefusal(atom: "destBic", "БИК \(destBic.stringValue) нет в справочнике банков")
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

/// Field 109: "0", or a date that exists written ДД.ММ.ГГГГ (107n: the basis document's date in that form).
enum BasisDate {
    static func isValid(_ text: String) -> Bool {
        if text == "0" { return true }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 2, parts[1].count == 2, parts[2].count == 4,
              parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let day = Int(parts[0]), let month = Int(parts[1]), let year = Int(parts[2]),
              year >= 1900, (1...12).contains(month) else { return false }
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
