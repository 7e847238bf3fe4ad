/// The result of checking the whole journal.
public enum VerifyResult: Sendable, Hashable, CustomStringConvertible {
    /// Every entry checked out; the number of entries.
    case ok(Int)
    /// The first bad entry (or the first missing sequence number) and what is wrong with it.
    case bad(sequence: Int64, reason: String)
    /// The chain is intact but the core does not add up: a balance that is not its opening balance plus its
    /// postings, a posting without its journal entry, or a posted entry without its posting.
    case unreconciled(reason: String)

    public var description: String {
        switch self {
        case .ok(let count): "journal verified: \(count) entr\(count == 1 ? "y" : "ies"), chain and signatures intact"
        case .bad(let sequence, let reason): "journal entry \(sequence) is bad: \(reason)"
        case .unreconciled(let reason): "the core does not reconcile with the journal: \(reason)"
        }
    }
}
