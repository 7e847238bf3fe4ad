import Foundation

/// One posting on an account's statement, seen from that account.
public struct StatementLine: Sendable, Hashable {
    /// Whether money left the account (debit) or came in (credit).
    public enum Direction: String, Sendable, Hashable, Codable {
        case debit, credit
    }

    /// The journal entry that posted it.
    public var sequence: Int64
    /// When it was posted (milliseconds since 1970, UTC).
    public var postedAtMilliseconds: Int64
    /// The signed document's id (lowercase hex SHA-256 of its canonical bytes).
    public var documentId: String
    /// The operation of the document ("pay.pp.quick").
    public var operation: String
    public var direction: Direction
    /// The other account of the posting.
    public var counterpartyAccount: String
    /// The other side's name: the payee the document names for a debit, the paying account's holder for a credit
    /// (empty when neither is known).
    public var counterpartyName: String
    /// The document's purpose of payment (empty when it has none).
    public var purpose: String
    /// Signed: negative for a debit, positive for a credit.
    public var amount: Decimal
    /// The account's balance after this posting.
    public var balanceAfter: Decimal
    /// Whether the posting is the fee leg of its entry (to the bank's fee income account, ``FeeIncome``), shown as
    /// the bank's fee beside the payment's own line of the same entry.
    public var isFee: Bool = false

    public init(sequence: Int64, postedAtMilliseconds: Int64, documentId: String, operation: String, direction: Direction,
                counterpartyAccount: String, counterpartyName: String, purpose: String, amount: Decimal, balanceAfter: Decimal) {
        self.sequence = sequence
        self.postedAtMilliseconds = postedAtMilliseconds
        self.documentId = documentId
        self.operation = operation
        self.direction = direction
        self.counterpartyAccount = counterpartyAccount
        self.counterpartyName = counterpartyName
        self.purpose = purpose
        self.amount = amount
        self.balanceAfter = balanceAfter
    }
}
