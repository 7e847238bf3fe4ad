import Foundation

/// What the customer is shown after a posting.
public struct Receipt: Sendable, Hashable {
    public let documentId: String
    public let posting: Posting
    /// The debit account's balance after the posting.
    public let debitBalance: Decimal
    /// The journal sequence number of the entry that recorded it.
    public let sequence: Int64
}
