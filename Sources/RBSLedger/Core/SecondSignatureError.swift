/// Why a second signature (maker–checker) was refused.
public enum SecondSignatureError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No document awaits a second signature under this number for the signer's customer.
    case notAwaiting(Int64)
    /// The document was approved or declined already (by entry `by`).
    case alreadyDecided(Int64, by: Int64)
    /// The user who signed first cannot be the second signer.
    case sameSigner(user: String)
    /// A decline needs a reason.
    case noReason
    /// The threshold is not an amount the currency can hold.
    case invalidThreshold(String)

    public var description: String {
        switch self {
        case .notAwaiting(let sequence):
            "no document awaits a second signature as journal entry \(sequence) for this customer (see the pending list)"
        case .alreadyDecided(let sequence, let by):
            "journal entry \(sequence) was already decided by the second signer: see journal entry \(by)"
        case .sameSigner(let user):
            "\(user) signed this document first and cannot be its second signer: another user of the customer signs or declines it"
        case .noReason: "give the reason for declining (it is journaled and shown to the first signer)"
        case .invalidThreshold(let detail): "the second-signer threshold is not accepted: \(detail)"
        }
    }
}
