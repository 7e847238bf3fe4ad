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
}
