import Foundation
import RBSMoney

/// The bank's own position in one currency (table `exchange_positions`, schema step `v13-exchange`): the account a
/// conversion passes through, so each currency's postings balance. A conversion from RUB to USD credits the RUB
/// position with the rubles debited and debits the USD position with the dollars credited; the bank's currency
/// position is their balances. Not a customer's account (not in `accounts`): no picker offers it, no key debits it.
enum ExchangePosition {
    /// The balance account of conversion settlements (47407, "Расчёты по конверсионным операциям").
    static let balanceAccount = "47407"

    /// The position account of `currency`: 47407, the currency's code as an account writes it (810 for the ruble),
    /// the control key for the bank's BIC, branch 0000, personal number 0000001.
    static func number(of currency: String) -> String? {
        guard let numeric = currency == "RUB" ? 810 : Currency(code: currency)?.number else { return nil }
        let code = String(numeric)
        let raw = balanceAccount + String(repeating: "0", count: max(0, 3 - code.count)) + code + "0" + "0000" + "0000001"
        return AccountKey.withKey(account: raw, bic: DemoBank.bic)
    }

    /// Posts both legs of `conversion` inside the caller's transaction: the debit account pays `amountText` (the
    /// debited amount as journaled) to the position in its currency, the position in the credited currency pays the
    /// credit account; the positions' balances move by as much, and `exchanges` records the conversion of journal
    /// entry `sequence`. The customers' balances are moved by the caller (``EmbeddedBank``'s batch state).
    static func post(_ conversion: Conversion, debit: String, amountText: String, credit: String, documentId: String,
                     sequence: Int64, time: Int64, in db: any SQLTransaction) throws {
        let creditText = conversion.creditText
        let source = try move(conversion.debitCurrency, by: conversion.debitAmount, in: db)
        let target = try move(conversion.creditCurrency, by: -conversion.creditAmount, in: db)
        let insert = "INSERT INTO postings (document_id, debit, credit, amount, currency, time_ms, journal_seq) VALUES (?, ?, ?, ?, ?, ?, ?)"
        try db.execute(insert, arguments: [.text(documentId), .text(debit), .text(source), .text(amountText),
                                           .text(conversion.debitCurrency), .integer(time), .integer(sequence)])
        try db.execute(insert, arguments: [.text(documentId), .text(target), .text(credit), .text(creditText),
                                           .text(conversion.creditCurrency), .integer(time), .integer(sequence)])
        try db.execute("""
            INSERT INTO exchanges (journal_seq, document_id, debit_amount, debit_currency, credit_amount, credit_currency,
                                   rate, pair, rate_ms)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [.integer(sequence), .text(documentId), .text(amountText), .text(conversion.debitCurrency),
                             .text(creditText), .text(conversion.creditCurrency),
                             .text(conversion.rateText),
                             .text(conversion.pair), .integer(conversion.rateTimeMilliseconds)])
    }

    /// Adds `delta` to the position of `currency` (opened at zero on its first conversion) and answers its number.
    private static func move(_ currency: String, by delta: Decimal, in db: any SQLTransaction) throws -> String {
        guard let number = number(of: currency), let scale = Currency(code: currency)?.minorUnits else {
            throw LedgerError.corruptDatabase(path: "", detail: "no position account can be made for currency \(currency)")
        }
        try add(delta, to: "exchange_positions", currency: currency, number: number, scale: scale, named: "position", in: db)
        return number
    }

    /// Adds `delta` to the balance of the bank's own account of `currency` in `table` (`exchange_positions`,
    /// `fee_income`: currency, number, balance), opening it at zero with `number` first; `named` is what a damaged
    /// balance's message calls the account.
    static func add(_ delta: Decimal, to table: String, currency: String, number: String, scale: Int, named: String,
                    in db: any SQLTransaction) throws {
        let stored = try db.value(String.self, "SELECT balance FROM \(table) WHERE currency = ?", currency)
        if stored == nil {
            try db.execute("INSERT INTO \(table) (currency, number, balance) VALUES (?, ?, ?)",
                           arguments: [.text(currency), .text(number), .text(DecimalText.format(0, scale: scale) ?? "0")])
        }
        guard let balance = DecimalText.parse(stored ?? "0") else {
            throw LedgerError.corruptDatabase(path: "", detail: "the \(currency) \(named) has balance \"\(stored ?? "")\", not a decimal")
        }
        let sum = balance + delta
        try db.execute("UPDATE \(table) SET balance = ? WHERE currency = ?",
                       arguments: [.text(DecimalText.format(sum, scale: scale) ?? sum.description), .text(currency)])
    }
}
