import RBSLedger

/// The role of a document field in the review before signing (`RBS_FIELD_ROLE_*`, rbs/ext/document_labels.h):
/// where the field is shown and how.
public enum DocumentFieldRole: UInt32, Codable, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    case other = 0, amount, currency, debitAccount, payee, payeeAccount, payeeBank, purpose, payeeTaxID, cardNumber

    /// The money field of a payment (``Payment``) this role gives a key, or nil for the roles that move no money.
    public var paymentField: PaymentField? {
        switch self {
        case .amount: .amount
        case .currency: .currency
        case .debitAccount: .debitAccount
        case .payee: .payeeName
        case .payeeAccount: .creditAccount
        case .payeeBank: .payeeBank
        case .purpose: .purpose
        case .payeeTaxID: .payeeTaxID
        case .other, .cardNumber: nil
        }
    }

    /// The key the core reads for this role, for the roles the document contract fixes (``PaymentField/key``); nil
    /// for the roles any key may have (the payee's tax id may be under a key of the plugin's own).
    public var coreKey: String? { paymentField.flatMap { $0.hasFixedKey ? $0.key : nil } }

    /// The role the document contract gives `key` (the keys the core reads), or nil for a plugin's own key.
    public static func ofCoreKey(_ key: String) -> DocumentFieldRole? {
        allCases.first { $0.coreKey == key }
    }

    /// The C name, for messages about a plugin's table.
    public var description: String {
        switch self {
        case .other: "RBS_FIELD_ROLE_OTHER"
        case .amount: "RBS_FIELD_ROLE_AMOUNT"
        case .currency: "RBS_FIELD_ROLE_CURRENCY"
        case .debitAccount: "RBS_FIELD_ROLE_DEBIT_ACCOUNT"
        case .payee: "RBS_FIELD_ROLE_PAYEE"
        case .payeeAccount: "RBS_FIELD_ROLE_PAYEE_ACCOUNT"
        case .payeeBank: "RBS_FIELD_ROLE_PAYEE_BANK"
        case .purpose: "RBS_FIELD_ROLE_PURPOSE"
        case .payeeTaxID: "RBS_FIELD_ROLE_PAYEE_TAX_ID"
        case .cardNumber: "RBS_FIELD_ROLE_CARD_NUMBER"
        }
    }
}
