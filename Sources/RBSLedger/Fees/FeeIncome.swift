import Foundation
import RBSMoney

/// The bank's fee income in one currency (table `fee_income`, schema step `v17-fees`): the account every fee a
/// document carries (``Payment/fee``) is credited to, and `fees`, each posted fee by journal entry. The core owns it
/// as it owns the exchange positions: opened at zero by the first fee in its currency, not a customer's account (not
/// in `accounts`: no picker offers it, no key debits it), and never named by a document — a plugin computes the fee,
/// the core alone decides where it goes (``Rejection/Code/feeAccountNamed``).
public enum FeeIncome {
    /// The balance account of the bank's income (70601, "Доходы").
    static let balanceAccount = "70601"

    /// A document key that would name the fee's account, refused by the core (the fee's account is the core's).
    public static let reservedKey = "feeAccount"

    /// The fee income account of `currency`: 70601, the currency's code as an account writes it (810 for the
    /// ruble), the control key for the bank's BIC, branch 0000, personal number 0000001.
    public static func number(of currency: String) -> String? {
        guard let numeric = currency == "RUB" ? 810 : Currency(code: currency)?.number else { return nil }
        let code = String(numeric)
        let raw = balanceAccount + String(repeating: "0", count: max(0, 3 - code.count)) + code + "0" + "0000" + "0000001"
        return AccountKey.withKey(account: raw, bic: DemoBank.bic)
    }

    /// Posts the fee leg inside the caller's transaction: the debit account pays `fee` to the income account of the
    /// fee's currency, whose balance grows by as much, and `fees` records the fee of journal entry `sequence`. The
    /// debit account's balance is moved by the caller (``EmbeddedBank``'s batch state), with the amount's.
    /// - Returns: the income account's number.
    @discardableResult
    static func post(_ fee: Money, debit: String, documentId: String, sequence: Int64, time: Int64,
                     in db: any SQLTransaction) throws -> String {
        let currency = fee.currency.code
        guard let number = number(of: currency) else {
            throw LedgerError.corruptDatabase(path: "", detail: "no fee income account can be made for currency \(currency)")
        }
        // The same bookkeeping as the exchange positions, the core's other own accounts.
        try ExchangePosition.add(fee.amount, to: "fee_income", currency: currency, number: number, scale: fee.currency.minorUnits,
                                 named: "fee income", in: db)
        try db.execute(
            "INSERT INTO postings (document_id, debit, credit, amount, currency, time_ms, journal_seq) VALUES (?, ?, ?, ?, ?, ?, ?)",
            arguments: [.text(documentId), .text(debit), .text(number), .text(fee.plain), .text(currency), .integer(time), .integer(sequence)])
        try db.execute("INSERT INTO fees (journal_seq, document_id, amount, currency, account) VALUES (?, ?, ?, ?, ?)",
                       arguments: [.integer(sequence), .text(documentId), .text(fee.plain), .text(currency), .text(number)])
        return number
    }

    /// The fee journal entry `sequence` posted, or nil when it posted none (for a repeated submission's receipt).
    static func posted(sequence: Int64, in db: any SQLTransaction) throws -> FeeLeg? {
        guard let row = try db.row("SELECT amount, currency, account FROM fees WHERE journal_seq = ?", sequence) else { return nil }
        let text: String = try row["amount"], code: String = try row["currency"], account: String = try row["account"]
        guard let currency = Currency(code: code), let amount = try? Money(plain: text, currency: currency) else {
            throw LedgerError.unreadableEntry(sequence: sequence, detail: "its fee \"\(text) \(code)\" is not an amount")
        }
        return FeeLeg(amount: amount, account: account)
    }
}

/// The fee leg of a posting: what the debit account pays the bank on top of the amount, and the bank's income
/// account it goes to (``FeeIncome/number(of:)``).
public struct FeeLeg: Sendable, Hashable {
    public let amount: Money
    public let account: String
}
