import RBSMoney

/// The identifier checks the expression language offers (`isInn`, `isKpp`, `isBic`, `accountKeyOk`, `isIban`,
/// `luhn`, `isCard`, `isUin`). Each is the one implementation in `RBSMoney`; this is only the expression-facing name.
public enum Validators {
    /// Whether `text` is a valid INN: 10 or 12 digits with the right control digits.
    public static func isInn(_ text: String) -> Bool { INN.isValid(text) }

    /// Whether `text` is a well-formed KPP: `^\d{4}[0-9A-Z]{2}\d{3}$`.
    public static func isKpp(_ text: String) -> Bool { KPP.isValid(text) }

    /// Whether `text` is a BIC of the Bank of Russia's directory format: 9 digits starting with 0.
    public static func isBic(_ text: String) -> Bool { BIC.isValid(text) }

    /// Whether the 20-digit `account` is right for `bic` by letter No. 515's rules, or is a treasury account
    /// (see ``AccountKey``).
    public static func accountKeyOk(account: String, bic: String) -> Bool {
        AccountKey.isValid(account: account, bic: bic)
    }

    /// Whether `text` is a valid IBAN (ISO 13616).
    public static func isIban(_ text: String) -> Bool { IBAN.isValid(text) }

    /// Whether `text` passes the Luhn check: digits only, or groups of digits separated by single spaces.
    public static func luhn(_ text: String) -> Bool {
        CardNumber.luhn(String(text.split(separator: " ", omittingEmptySubsequences: false).joined()))
    }

    /// Whether `text` is a card number of a known scheme, with its length and Luhn digit right (spaces between
    /// groups allowed).
    public static func isCard(_ text: String) -> Bool { CardNumber.isValid(text) }

    /// Whether `text` is an УИН (field 22): 20 or 25 digits with the right check digit (see ``UIN``).
    public static func isUin(_ text: String) -> Bool { UIN.isValid(text) }
}
