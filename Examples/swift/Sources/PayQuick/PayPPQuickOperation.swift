import RBSPluginKit

/// A quick payment order: one line per atom; reorder the form by moving a line in `atoms`.
final class PayPPQuickOperation: Operation, OperationDefinition {
    static let id = "pay.pp.quick"
    static let title = "Quick payment"
    static let category = "Payments"
    /// `isDestInnCorrect` reads the INN alone: the host calls it again only when the INN changed (ABI 1.3).
    static let functions: [ExportedFunction] = [.method("isDestInnCorrect", symbol: "pay_pp_quick_isDestInnCorrect",
                                                        signature: "bool()", reads: ["destInn"])]
    /// Committing any of these only keeps its value for the document (`onAtomValueChanged` reacts to the BIC alone): the
    /// host may tell the plugin with its next call into the run, so a commit of the amount is no round trip to the
    /// plugin's worker (ABI 1.5). The INN is listed too, but isDestInnCorrect reads it, so the host tells it at once.
    static let recordedAtoms = ["srcAccount", "destName", "destInn", "destKpp", "destAccount", "destDesc", "amount"]
    /// The review before signing: each document field under the caption of the atom it came from.
    static let documentLabels = [
        DocumentFieldLabel("from", role: .debitAccount, atom: "srcAccount"),
        DocumentFieldLabel("name", "Получатель", role: .payee, atom: "destName"),
        DocumentFieldLabel("inn", role: .payeeTaxID, atom: "destInn"),
        DocumentFieldLabel("kpp", atom: "destKpp"),
        DocumentFieldLabel("account", role: .payeeAccount, atom: "destAccount"),
        DocumentFieldLabel("bic", role: .payeeBank, atom: "destBic"),
        DocumentFieldLabel("purpose", role: .purpose, atom: "destDesc"),
        DocumentFieldLabel("amount", "Сумма", role: .amount, atom: "amount"),
        DocumentFieldLabel("currency", "Валюта", role: .currency),
    ]
    /// The form in both languages (`rbs.texts/1`): the title is declared in English and the captions in Russian, so
    /// each language translates what is declared in the other.
    static let translations = [
        Translation("ru", title: "Быстрый платёж", category: "Платежи",
                    hints: ["destInn": "10 цифр у организации, 12 у физического лица; можно оставить пустым",
                            "destKpp": "9 знаков: 4 цифры, 2 цифры или заглавные латинские буквы, 3 цифры; можно оставить пустым",
                            "destBic": "9 цифр; название банка появится ниже"],
                    errors: ["destInn": "ИНН неверен: первые две цифры (код региона) не бывают 00, а контрольные цифры должны сходиться; см. подсказку под полем",
                             "destAccount": "Номер счёта не соответствует БИК (контрольный ключ): проверьте оба",
                             "destKpp": "КПП — 9 знаков: 4 цифры (код налогового органа, не 0000), 2 цифры или заглавные латинские буквы (A–Z), 3 цифры"]),
        Translation("en", captions: ["srcAccount": "Debit account",
                                     "destName": "Payee's full name or organisation name",
                                     "destInn": "Payee's INN",
                                     "destInnError": "An INN has 10 digits for an organisation or 12 for a person; its first two digits are the region's code, never 00; the last digit (two for 12 digits) is a check digit (Federal Tax Service order ММВ-7-14/481@)",
                                     "destKpp": "Payee's KPP",
                                     "destAccount": "Payee's account",
                                     "destBic": "BIC",
                                     "destBicInfo": "Enter the BIC: the bank is found automatically",
                                     "destDesc": "Purpose of payment",
                                     "amount": "Amount, ₽",
                                     "btnSend": "Pay"],
                    labels: ["name": "Payee", "amount": "Amount", "currency": "Currency"]),
    ]

    let srcAccount = AccountPickerAtom(title: "Списать со счёта", filter: "currency == 'RUB' AND NOT blocked")
    let destName = TextInputAtom(caption: "ФИО или полное наименование получателя")
    let destInn = TextInputAtom(caption: "ИНН получателя", type: .digitsOnly, optional: true)
    let destInnError = TextAtom(caption: "ИНН — 10 цифр у организации или 12 у физического лица; первые две цифры — код региона, не 00; последняя цифра (у 12-значного — две) контрольная, по приказу ФНС № ММВ-7-14/481@")
    let destKpp = TextInputAtom(caption: "КПП получателя", length: 9...9, optional: true)
    let destAccount = TextInputAtom(caption: "Счет получателя", type: .digitsOnly, length: 20...20)
    let destBic = TextInputAtom(caption: "БИК", type: .digitsOnly, length: 9...9)
    let destBicInfo = TextAtom(caption: "Введите БИК, банк будет определен автоматически")
    let destDesc = TextInputAtom(caption: "Назначение платежа")
    let amount = TextInputAtom(caption: "Сумма, ₽", type: .amount(currency: "RUB"))
    let btnSend = ButtonAtom(caption: "Перевести")

    required init() {
        super.init()
        destName.wideInput = true
        destName.capitalizeSentences = true
        destAccount.wideInput = true
        destDesc.wideInput = true
        destDesc.capitalizeSentences = true
        destInnError.showIf("isDestInnCorrect == NO")
        destInn.validIf("isDestInnCorrect",
                        "The INN is wrong: its first two digits (the region's code) are never 00 and its check digits must match; see the note under the field")
        destAccount.validIf("accountKeyOk(destAccount, destBic)",
                            "The account number does not match the BIC (control key): check both")
        destInn.hint = "10 digits for an organisation, 12 for a person; may be left empty"
        // Positions 5–6 of a KPP may be capital Latin letters (Federal Tax Service, since 2019): not a digits-only field.
        destKpp.hint = "9 characters: 4 digits, 2 digits or capital Latin letters, 3 digits; may be left empty"
        destKpp.validIf("len(destKpp) == 0 OR isKpp(destKpp)",
                        "The KPP is 9 characters: 4 digits (the tax office's code, not 0000), 2 digits or capital Latin letters (A–Z), 3 digits")
        destBic.hint = "9 digits; the bank's name appears below"
    }

    override var atoms: [Atom] {
        [
            srcAccount,
            destName,
            destInn,
            destInnError,
            destKpp,
            destAccount,
            destBic,
            destBicInfo,
            destDesc,
            amount,
            btnSend,
        ]
    }

    /// An empty INN is correct (it is optional); otherwise its region (first two digits) is not 00 and its check
    /// digits match.
    func isDestInnCorrect() -> Bool {
        let inn = destInn.stringValue
        return inn.isEmpty || INN.isValid(inn)
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
        return [
            ("from", srcAccount.account),
            ("name", destName.stringValue),
            ("inn", destInn.stringValue),
            ("kpp", destKpp.stringValue),
            ("account", destAccount.stringValue),
            ("bic", destBic.stringValue),
            ("purpose", destDesc.stringValue),
            ("amount", amount.stringValue),
            ("currency", "RUB"),
        ]
    }
}

/// The INN check digits (Federal Tax Service weights), after its region: the first two digits are a region's code,
/// never 00 (an INN of zeros satisfies the check digits but names no taxpayer), as the host's `isInn` has it.
enum INN {
    static func isValid(_ inn: String) -> Bool {
        let digits = inn.compactMap { $0.wholeNumberValue }
        guard digits.count == inn.count, digits.count >= 2, digits[0] != 0 || digits[1] != 0 else { return false }
        func check(_ weights: [Int]) -> Int { zip(digits, weights).map(*).reduce(0, +) % 11 % 10 }
        switch digits.count {
        case 10: return check([2, 4, 10, 3, 5, 9, 4, 6, 8]) == digits[9]
        case 12:
            return check([7, 2, 4, 10, 3, 5, 9, 4, 6, 8]) == digits[10]
                && check([3, 7, 2, 4, 10, 3, 5, 9, 4, 6, 8]) == digits[11]
        default: return false
        }
    }
}

@_cdecl("pay_pp_quick_isDestInnCorrect")
public func isDestInnCorrect(_ instance: UnsafeMutableRawPointer?) -> Bool {
    PayPPQuickOperation.from(instance)?.isDestInnCorrect() ?? true
}

@_cdecl("rbs_plugin_entry")
public func rbsPluginEntry() -> UnsafeRawPointer? {
    // The mobile top-up (issue #32 item 4) is an operation more; pay.pp.quick is unchanged, so templates and
    // `repeat` of its entries keep their version.
    Plugin.entry(id: "ru.example.payments.quick", name: "Quick payment", version: "1.0.0", vendor: "Example Bank",
                 description: "A quick payment order to any bank, and a mobile top-up with a commission.",
                 requires: ["rbs.accounts/1", "rbs.directory/1"], operations: [PayPPQuickOperation.self, TopUpMobileOperation.self])
}
