/// What became of a signed document. Every outcome has a journal entry.
public enum Outcome: Sendable, Hashable {
    /// Money moved.
    case posted(Receipt)
    /// Refused with a reason; journaled, nothing moved.
    case rejected(documentId: String, sequence: Int64, reason: Rejection)
    /// A document without an amount (a card block, a request): journaled, no postings.
    case acknowledged(documentId: String, sequence: Int64)

    public var sequence: Int64 {
        switch self {
        case .posted(let receipt): receipt.sequence
        case .rejected(_, let sequence, _), .acknowledged(_, let sequence): sequence
        }
    }

    public var documentId: String {
        switch self {
        case .posted(let receipt): receipt.documentId
        case .rejected(let id, _, _), .acknowledged(let id, _): id
        }
    }
}
