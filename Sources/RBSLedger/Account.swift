import Foundation

/// One of the customer's accounts at the bank's core.
public struct Account: Sendable, Hashable, Codable {
    /// 20 digits; the control key is valid for the bank's BIC.
    public var number: String
    /// ISO 4217 alphabetic code.
    public var currency: String
    public var balance: Decimal
    public var owner: String
    /// A short name for lists ("Текущий счёт").
    public var title: String
    /// A blocked account accepts no debits and no credits (the core refuses both: ``Rejection/Code/accountBlocked``).
    public var blocked: Bool

    /// Whether the core takes a posting to or from this account: what every account picker offers.
    public var acceptsPostings: Bool { !blocked }

    public init(number: String, currency: String, balance: Decimal, owner: String, title: String, blocked: Bool) {
        self.number = number
        self.currency = currency
        self.balance = balance
        self.owner = owner
        self.title = title
        self.blocked = blocked
    }
}
