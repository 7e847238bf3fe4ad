import RBSLedger
import RBSMoney

/// What a payment QR code (ГОСТ Р 56042-2014) opens: the budget payment when the code carries a budget field (КБК,
/// ОКТМО, payer status, УИН …), else the payment order; its fields as the values of that form's atoms, which the form
/// then checks as it checks typed ones and the person reviews before signing. Fields no atom takes (the bank's name,
/// its correspondent account, the standard's utility fields) are `shownOnly`: said to the person, never dropped.
public struct PaymentQRPrefill: Sendable, Equatable {
    /// The budget payment and the payment order of the example plugins.
    public static let budgetOperation = "pay.pp.tax"
    public static let paymentOperation = "pay.pp.quick"

    /// The form to open and its first values, in the order they are committed (the payment type before the fields it
    /// shows).
    public var form: FormTemplate
    /// The code's fields that are no atom's value, in the code's order.
    public var shownOnly: [PaymentQR.Field]

    /// The atom each standard field fills in both forms.
    static let payeeAtoms: [(field: String, atom: String)] = [
        ("Name", "destName"), ("PayeeINN", "destInn"), ("KPP", "destKpp"), ("PersonalAcc", "destAccount"),
        ("BIC", "destBic"), ("Purpose", "destDesc"),
    ]
    /// The budget form's atoms for fields 101, 60, 22 and 104–109.
    static let budgetAtoms: [(field: String, atom: String)] = [
        ("DrawerStatus", "payerStatus"), ("PayerINN", "payerInn"), ("UIN", "uin"), ("CBC", "kbk"), ("OKTMO", "oktmo"),
        ("PaytReason", "basis"), ("TaxPeriod", "period"), ("DocNo", "docNumber"), ("DocDate", "docDate"),
    ]

    public init(_ code: PaymentQR) {
        let budget = code.isBudgetPayment
        var values: [FormTemplate.Value] = []
        if budget {
            // Customs payments' KBKs start with the Federal Customs Service's administrator code 153.
            values.append(.init(id: "type", value: code["CBC"]?.hasPrefix("153") == true ? "2" : "1"))
        }
        let mapping = (budget ? Self.budgetAtoms : []) + Self.payeeAtoms
        var used: Set<String> = []
        for (field, atom) in mapping {
            guard let value = code[field], !value.isEmpty else { continue }
            // An invoice's "0" for the payee's INN or KPP means "none": the payment order leaves those fields empty.
            if !budget, value == "0", field == "PayeeINN" || field == "KPP" { continue }
            values.append(.init(id: atom, value: value))
            used.insert(field)
        }
        // Sum=0 is how some issuers say "the payer enters the amount": no value then, the field is shown.
        if let sum = code.sum, !sum.isZero {
            values.append(.init(id: "amount", value: sum.plain))
            used.insert("Sum")
        }
        shownOnly = code.fields.filter { !used.contains($0.key) }
        form = FormTemplate(operation: budget ? Self.budgetOperation : Self.paymentOperation, pluginVersion: "", values: values)
    }
}
