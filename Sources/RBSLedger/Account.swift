import Foundation
import RBSMoney

/// One of the customer's accounts at the bank's core.
public struct Account: Sendable, Hashable {
    /// 20 digits; the control key is valid for the bank's BIC.
    public var number: String
    /// The balance, exact, in the account's currency (which is the balance's).
    public var balance: Money
    public var owner: String
    /// A short name for lists ("Текущий счёт").
    public var title: String
    /// A blocked account accepts no debits and no credits (the core refuses both: ``Rejection/Code/accountBlocked``).
    public var blocked: Bool

    /// Whether the core takes a posting to or from this account: what every account picker offers.
    public var acceptsPostings: Bool { !blocked }

    /// The ISO 4217 code of the account's currency ("RUB"): what documents, forms and the database write.
    public var currency: String { balance.currency.code }

    public init(number: String, balance: Money, owner: String, title: String, blocked: Bool) {
        self.number = number
        self.balance = balance
        self.owner = owner
        self.title = title
        self.blocked = blocked
    }
}
