import Foundation

/// One movement of money: debit one account, credit another (own or at another bank).
public struct Posting: Sendable, Hashable, Codable {
    public let debit: String
    public let credit: String
    public let amount: Decimal
    public let currency: String
    /// Whether the credit account is one of the customer's own (otherwise the money left to another bank).
    public let internalTransfer: Bool
    /// For a transfer between own accounts in different currencies: the conversion (the credit account receives
    /// its credited amount, in its currency; `amount` and `currency` are what the debit account pays).
    public var conversion: Conversion? = nil
}
