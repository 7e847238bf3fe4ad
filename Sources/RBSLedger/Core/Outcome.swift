/// What became of a signed document. Every outcome has a journal entry.
public enum Outcome: Sendable, Hashable {
    /// Money moved.
    case posted(Receipt)
    /// Refused with a reason; journaled, nothing moved.
    case rejected(documentId: String, sequence: Int64, reason: Rejection)
    /// A document without an amount (a card block, a request): journaled, no postings.
    case acknowledged(documentId: String, sequence: Int64)
    /// Signed by one user above their customer's second-signer threshold: journaled as awaiting a second
    /// signature, nothing posted; another user of the customer approves or declines it (``Ledger/approve(entry:code:as:)``).
    case awaiting(documentId: String, sequence: Int64)

    public var sequence: Int64 {
        switch self {
        case .posted(let receipt): receipt.sequence
        case .rejected(_, let sequence, _), .acknowledged(_, let sequence), .awaiting(_, let sequence): sequence
        }
    }

    public var documentId: String {
        switch self {
        case .posted(let receipt): receipt.documentId
        case .rejected(let id, _, _), .acknowledged(let id, _), .awaiting(let id, _): id
        }
    }
}
