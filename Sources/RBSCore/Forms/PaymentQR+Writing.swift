import Foundation
import RBSLedger
import RBSMoney

/// Writing a payment QR code (ГОСТ Р 56042-2014, UTF-8) for a payment: a posted document's receipt, or a template,
/// so another payer's app fills the same payment. The bank's name and correspondent account come from the BIC
/// directory, since neither the document nor the form keeps them.
extension PaymentQR {
    /// The standard's field for each document key of the payment orders (`pay.pp.quick`, `pay.pp.tax`).
    static let documentFields: [(key: String, field: String)] = [
        (PaymentField.payeeName.key, "Name"), (PaymentField.creditAccount.key, "PersonalAcc"), (PaymentField.payeeBank.key, "BIC"),
        (PaymentField.purpose.key, "Purpose"), (PaymentField.payeeTaxID.key, "PayeeINN"), (PaymentField.payeeKPP.key, "KPP"), ("payerInn", "PayerINN"), ("payerStatus", "DrawerStatus"), ("kbk", "CBC"), ("oktmo", "OKTMO"),
        ("basis", "PaytReason"), ("period", "TaxPeriod"), ("docNumber", "DocNo"), ("docDate", "DocDate"), ("uin", "UIN"),
    ]

    /// The code of a document's fields (its keys as ``documentFields`` names them; `amount` and `currency`).
    public static func written(document: [String: String], directory: BankDirectory?) throws(PaymentQRWriteError) -> PaymentQR {
        // The money fields by their contract keys (``PaymentField``): a template's values are no signed document yet.
        func value(_ field: PaymentField) -> String? { document[field.key].flatMap { $0.isEmpty ? nil : $0 } }
        guard let account = value(.creditAccount), let bic = value(.payeeBank), let name = value(.payeeName) else {
            throw .notAPayment
        }
        guard let bank = directory?.bank(bic: bic) else { throw .unknownBank(bic) }
        var values: [String: String] = [:]
        for (key, field) in documentFields { if let value = document[key], !value.isEmpty { values[field] = value } }
        values["Name"] = name
        values["PersonalAcc"] = account
        if let amount = value(.amount) {
            let currency = value(.currency) ?? "RUB"
            guard currency == "RUB" else { throw .notRubles(currency) }
            guard let money = try? Money(plain: amount, currency: .rub) else { throw .notAPayment }
            values["Sum"] = String(money.minorUnits)
        }
        return try code(values, bank: bank)
    }

    /// The code of a template's values (atom ids of the payment forms, as ``PaymentQRPrefill`` fills them).
    public static func written(template: FormTemplate, directory: BankDirectory?) throws(PaymentQRWriteError) -> PaymentQR {
        var document: [String: String] = [:]
        let atomKeys = ["destName": PaymentField.payeeName.key, "destInn": PaymentField.payeeTaxID.key, "destKpp": PaymentField.payeeKPP.key,
                        "destAccount": PaymentField.creditAccount.key, "destBic": PaymentField.payeeBank.key,
                        "destDesc": PaymentField.purpose.key, "amount": PaymentField.amount.key, "payerStatus": "payerStatus", "payerInn": "payerInn",
                        "uin": "uin", "kbk": "kbk", "oktmo": "oktmo", "basis": "basis", "period": "period",
                        "docNumber": "docNumber", "docDate": "docDate"]
        for value in template.values { if let key = atomKeys[value.id] { document[key] = value.value } }
        return try written(document: document, directory: directory)
    }

    /// The required fields first in the standard's order, then the optional ones in ``PaymentQR/optionalKeys``' order.
    static func code(_ values: [String: String], bank: Bank) throws(PaymentQRWriteError) -> PaymentQR {
        var fields: [Field] = [
            Field("Name", values["Name"] ?? ""), Field("PersonalAcc", values["PersonalAcc"] ?? ""),
            Field("BankName", bank.name), Field("BIC", bank.bic),
            Field("CorrespAcc", bank.correspondentAccount.isEmpty ? "0" : bank.correspondentAccount),
        ]
        for key in optionalKeys { if let value = values[key] { fields.append(Field(key, value)) } }
        // The separator is one character no value holds: | unless a value has one.
        let separator = ["|", "#", ";", "^", "~"].first { candidate in !fields.contains { $0.value.contains(candidate) } }
        guard let separator else { throw .noSeparator }
        let code = PaymentQR(encoding: .utf8, separator: Character(separator), fields: fields)
        do throws(PaymentQRError) { try code.checkStandardFields() } catch { throw .invalid(error) }
        return code
    }
}

/// Why a payment QR code cannot be written for a document or template.
public enum PaymentQRWriteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not a payment to an account at a bank (a card block, a transfer without a payee's name).
    case notAPayment
    case unknownBank(String)
    case notRubles(String)
    case noSeparator
    case invalid(PaymentQRError)

    public var description: String {
        switch self {
        case .notAPayment: "not a payment to a payee's account: a payment QR code needs the payee's name, account and BIC"
        case .unknownBank(let bic): "BIC \(bic) is not in the bank directory: the code needs the bank's name and correspondent account"
        case .notRubles(let currency): "a payment QR code is for rubles, not \(currency)"
        case .noSeparator: "every separator character (| # ; ^ ~) occurs in a value"
        case .invalid(let error): "the payment's values do not make a valid code: \(error.description)"
        }
    }
}
