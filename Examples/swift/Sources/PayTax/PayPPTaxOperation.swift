import RBSPluginKit

/// A budget payment (a payment order to the treasury): taxes, duties, customs payments.
///
/// Fields 101 and 104–109 of the payment order follow the Ministry of Finance order No. 107n (appendices 1–5).
/// One line per atom; the form shows them in the order of `atoms`.
final class PayPPTaxOperation: Operation, OperationDefinition {
    static let id = "pay.pp.tax"
    static let title = "Budget payment"
    static let category = "Payments"
    /// The review before signing: each document field under the caption of the atom it came from (fields 101 and
    /// 104–109 with their numbers), the payment type as its title.
    static let documentLabels = [
        DocumentFieldLabel("from", role: .debitAccount, atom: "srcAccount"),
        DocumentFieldLabel("type", atom: "type"),
        DocumentFieldLabel("payerStatus", atom: "payerStatus"),
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

    /// The dependency of fields 106–109 on the payer status (field 101), as the Bank of Russia's rules give it.
    static let budgetFieldsShown = "($type == 1) || ($type == 2)"

    let srcAccount = AccountPickerAtom(title: "Списать со счета", filter: "currency == 'RUB' AND NOT blocked")
    let type = EnumAtom(caption: "Вид платежа", options: [
        (value: "0", title: "Обычный"),
        (value: "1", title: "Налоговый платёж"),
        (value: "2", title: "Таможенный платёж"),
    ])
    let payerStatus = TextInputAtom(caption: "Статус плательщика (101)", type: .digitsOnly, length: 2...2)
    let kbk = TextInputAtom(caption: "КБК (104)", type: .digitsOnly, length: 20...20)
    let oktmo = TextInputAtom(caption: "ОКТМО (105)", type: .digitsOnly, length: 8...11)
    let basis = TextInputAtom(caption: "Основание платежа (106)", length: 2...2)
    let period = TextInputAtom(caption: "Налоговый период или код таможенного органа (107)")
    let docNumber = TextInputAtom(caption: "Номер документа-основания (108)", optional: true)
    let docDate = TextInputAtom(caption: "Дата документа-основания (109)", type: .date, optional: true)
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
        type.hint = "1 — a tax, levy or fee to the Federal Tax Service; 2 — a customs payment"
        payerStatus.hint = "Two digits by order 107n, appendix 5: 01 a legal entity, 13 a person, 06 a participant of foreign trade …"
        kbk.hint = "The budget classification code: 20 digits"
        oktmo.hint = "The municipality code: 8 or 11 digits"
        oktmo.validIf("len(oktmo) == 8 OR len(oktmo) == 11",
                      "The OKTMO code is 8 or 11 digits")

        let bases = Self.paymentBases.map { "'\($0)'" }.joined(separator: ", ")
        basis.hint = "Two capital letters by order 107n: ТП current year, ЗД voluntary payment of arrears, ТР a demand, …"
        basis.validIf("basis IN {\(bases)}",
                      "Enter a payment basis from order 107n in capital Cyrillic letters: ТП, ЗД, ТР, РС, ОТ, РТ, ВУ, ПР, АП, АР …")
        period.hint = "Tax: МС.01.2026, КВ.02.2026, ПЛ.01.2026 or ГД.00.2026; customs: the 8-digit customs office code"
        period.validIf("($type == 1 AND period MATCHES '\(Self.taxPeriod)') OR ($type == 2 AND period MATCHES '[0-9]{8}')",
                       "For a tax payment enter the period as МС.01.2026, КВ.02.2026, ПЛ.01.2026 or ГД.00.2026; for a customs payment the customs office code, 8 digits")
        for atom in [basis, period, docNumber, docDate] as [Atom] { atom.showIf(Self.budgetFieldsShown) }

        destName.wideInput = true
        destName.capitalizeSentences = true
        destInn.validIf("isInn(destInn)", "The INN's check digits are wrong: budget payments need the payee's correct INN")
        // Positions 5–6 of a KPP may be capital Latin letters (Federal Tax Service, since 2019): not a digits-only field.
        destKpp.validIf("isKpp(destKpp)",
                        "The KPP is 9 characters: 4 digits, 2 digits or capital Latin letters (A–Z), 3 digits")
        // Since 2021 a budget payment goes to a treasury account (03…) at a treasury office's BIC; its bank account
        // (the single treasury account 40102…) comes from the directory. Both follow AccountKey's rules.
        destAccount.wideInput = true
        destAccount.validIf("accountKeyOk(destAccount, destBic)",
                            "The account number does not match the BIC (control key): check both")
        destBic.hint = "9 digits; the bank's name appears below"
        destDesc.wideInput = true
        destDesc.capitalizeSentences = true
        amount.validIf("amount > 0", "Enter an amount greater than zero")
    }

    override var atoms: [Atom] {
        [
            srcAccount,
            type,
            payerStatus,
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
            showBank(for: destBic, in: destBicInfo)
        }
    }

    override func document() throws(DocumentRefusal) -> [(key: String, value: String)] {
        guard host.bank(bic: destBic.stringValue) != nil else {
            throw DocumentRefusal(atom: "destBic", "Unknown BIC \(destBic.stringValue)")
        }
        var fields: [(key: String, value: String)] = [
            ("from", srcAccount.account),
            ("type", type.stringValue),
            ("payerStatus", payerStatus.stringValue),
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

@_cdecl("rbs_plugin_entry")
public func rbsPluginEntry() -> UnsafeRawPointer? {
    Plugin.entry(id: "ru.example.payments.tax", name: "Budget payment", version: "1.0.0", vendor: "Example Bank",
                 description: "Payments to the budget: taxes and customs payments (fields 101, 104–109 of order 107n).",
                 operations: [PayPPTaxOperation.self])
}
