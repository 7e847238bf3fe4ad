import Foundation
import RBSMoney

/// One movement of money: debit one account, credit another (own or at another bank).
public struct Posting: Sendable, Hashable {
    public let debit: String
    public let credit: String
    /// What the debit account pays, in its currency.
    public let amount: Money
    /// Whether the credit account is one of the customer's own (otherwise the money left to another bank).
    public let internalTransfer: Bool
    /// For a transfer between own accounts in different currencies: the conversion (the credit account receives
    /// its credited amount, in its currency; `amount` is what the debit account pays).
    public var conversion: Conversion? = nil
    /// The fee the document carries, posted in the same transaction from the debit account to the bank's fee income
    /// account (``FeeIncome``); nil when the document carries none.
    public var fee: FeeLeg? = nil

    /// What left the debit account: the amount plus the fee (in the amount's currency: the core posts no other fee).
    /// The core posted only a sum that fits (``Payment/totalDebited``), so the sum is always an amount.
    public var totalDebited: Money {
        guard let fee else { return amount }
        let (sum, overflow) = amount.minorUnits.addingReportingOverflow(fee.amount.minorUnits)
        return overflow ? amount : Money(minorUnits: sum, currency: amount.currency) ?? amount
    }
}
