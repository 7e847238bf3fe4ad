import RBSPluginKit

/// Mobile top-up with a commission (issue #32 item 4): the plugin computes the fee and writes it in the document's
/// `fee` field; the core checks the balance against the amount plus the fee and posts both in one transaction, the
/// fee to the bank's own income account (which no plugin names). The form shows the fee and the total as they are
/// typed, so "к списанию 2 525,00 ₽" is what the review shows and what leaves the account.
final class TopUpMobileOperation: Operation, OperationDefinition {
    static let id = "topup.mobile"
    static let title = "Mobile top-up"
    static let category = "Payments"
    static let functions: [ExportedFunction] = []
    static let documentLabels = [
        DocumentFieldLabel("from", role: .debitAccount, atom: "srcAccount"),
        DocumentFieldLabel("name", "Оператор", role: .payee),
        DocumentFieldLabel("account", role: .payeeAccount),
        DocumentFieldLabel("bic", role: .payeeBank),
        DocumentFieldLabel("phone", "Номер телефона", atom: "phone"),
        DocumentFieldLabel("purpose", role: .purpose),
        DocumentFieldLabel("amount", "Сумма", role: .amount, atom: "amount"),
        DocumentFieldLabel("currency", "Валюта", role: .currency),
        DocumentFieldLabel("fee", "Комиссия"),
    ]
    static let translations = [
        Translation("ru", title: "Пополнение мобильного", category: "Платежи",
                    hints: ["phone": "10 цифр без +7, например 9161234567",
                            "amount": "от 10 ₽; комиссия 1%, не меньше 1 ₽"],
                    errors: ["amount": "Сумма пополнения — не меньше 10 ₽"]),
        Translation("en", captions: ["srcAccount": "Debit account",
                                     "operatorCode": "Operator",
                                     "phone": "Phone number",
                                     "amount": "Amount, ₽",
                                     "feeInfo": "Fee 1% (at least 1 ₽)",
                                     "btnSend": "Top up"],
                    options: ["operatorCode": ["mts": "MTS", "beeline": "Beeline (VimpelCom)", "megafon": "MegaFon", "t2": "T2 Mobile"]],
                    labels: ["name": "Operator", "phone": "Phone number", "amount": "Amount", "currency": "Currency", "fee": "Fee"]),
    ]

    /// The operators, each with its settlement account and bank (the account's control key is right for the BIC).
    static let operators: [(code: String, name: String, account: String, bic: String)] = [
        ("mts", "ПАО «МТС»", "40702810100000001234", "044525232"),
        ("beeline", "ПАО «ВымпелКом» (Билайн)", "40702810500000005678", "044525593"),
        ("megafon", "ПАО «МегаФон»", "40702810300000009012", "044525225"),
        ("t2", "ООО «Т2 Мобайл»", "40702810000000003456", "044525974"),
    ]

    let srcAccount = AccountPickerAtom(title: "Списать со счёта", filter: "currency == 'RUB' AND NOT blocked")
    let operatorCode = EnumAtom(caption: "Оператор", options: TopUpMobileOperation.operators.map { ($0.code, $0.name) })
    let phone = TextInputAtom(caption: "Номер телефона", type: .digitsOnly, length: 10...10)
    let amount = TextInputAtom(caption: "Сумма, ₽", type: .amount(currency: "RUB"))
    let feeInfo = TextAtom(caption: "Комиссия 1% (не меньше 1 ₽)")
    let btnSend = ButtonAtom(caption: "Пополнить")

    required init() {
        super.init()
        phone.hint = "10 digits without +7, e.g. 9161234567"
        amount.hint = "at least 10 ₽; fee 1%, at least 1 ₽"
        amount.validIf("amount >= 10", "A top-up is at least 10 ₽")
    }

    override var atoms: [Atom] { [srcAccount, operatorCode, phone, amount, feeInfo, btnSend] }

    /// The fee in kopecks for an amount in kopecks: 1%, rounded up to the kopeck, at least 100 (1 ₽). Integers only:
    /// money is never a floating-point number.
    static func feeMinor(_ amountMinor: Int64) -> Int64 { max(100, (amountMinor + 99) / 100) }

    /// Plain decimal text ("2500", "2500.5", "2500.00") in kopecks, or nil when it is not one.
    static func minorUnits(_ text: String) -> Int64? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        func digits(_ text: Substring) -> Bool { text.allSatisfy { $0.isASCII && $0.isNumber } }
        guard parts.count <= 2, let whole = parts.first, !whole.isEmpty, whole.count <= 15, digits(whole),
              let rubles = Int64(whole) else { return nil }
        let fraction = parts.count == 2 ? parts[1] : ""
        guard fraction.count <= 2, digits(fraction) else { return nil }
        return rubles * 100 + (Int64(fraction + String(repeating: "0", count: 2 - fraction.count)) ?? 0)
    }

    /// Kopecks as plain decimal text with two decimals ("2525.00"); with `separator` "," as the form's Russian
    /// caption writes it.
    static func plain(_ minor: Int64, separator: String = ".") -> String {
        let kopecks = minor % 100
        return "\(minor / 100)" + separator + (kopecks < 10 ? "0" : "") + "\(kopecks)"
    }

    override func onAtomValueChanged(_ sender: Atom, commit: Bool) {
        guard sender === amount else { return }
        if let minor = Self.minorUnits(amount.stringValue), minor > 0 {
            let fee = Self.feeMinor(minor)
            // In both languages the form is read in (rbs.run-texts/1): the host shows the person's.
            feeInfo.setCaption([
                "ru": "Комиссия 1%: \(Self.plain(fee, separator: ",")) ₽, к списанию \(Self.plain(minor + fee, separator: ",")) ₽",
                "en": "Fee 1%: \(Self.plain(fee)) ₽, total debited \(Self.plain(minor + fee)) ₽",
            ])
        } else {
            feeInfo.setCaption(["ru": "Комиссия 1% (не меньше 1 ₽)", "en": "Fee 1% (at least 1 ₽)"])
        }
    }

    override func document() throws(DocumentRefusal) -> [(key: String, value: String)] {
        guard let chosen = Self.operators.first(where: { $0.code == operatorCode.stringValue }) else {
            throw DocumentRefusal(atom: "operatorCode", ["ru": "Выберите оператора", "en": "Choose the operator"])
        }
        guard let minor = Self.minorUnits(amount.stringValue) else {
            throw DocumentRefusal(atom: "amount", ["ru": "\(amount.stringValue) — не сумма в рублях",
                                                   "en": "The amount \(amount.stringValue) is not an amount in rubles"])
        }
        let number = phone.stringValue
        return [
            ("from", srcAccount.account),
            ("name", chosen.name),
            ("account", chosen.account),
            ("bic", chosen.bic),
            ("phone", "+7" + number),
            ("purpose", "Пополнение счёта телефона +7 \(number)"),
            ("amount", Self.plain(minor)),
            ("currency", "RUB"),
            ("fee", Self.plain(Self.feeMinor(minor))),
        ]
    }
}
