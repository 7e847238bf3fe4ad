import Foundation

/// One movement of money: debit one account, credit another (own or at another bank).
public struct Posting: Sendable, Hashable, Codable {
    public let debit: String
    public let credit: String
    public let amount: Decimal
    public let currency: String
    /// Whether the credit account is one of the customer's own (otherwise the money left to another bank).
    public let internalTransfer: Bool
}
