/// Why an OCRA suite, challenge or input was refused (RFC 6287).
public enum OCRAError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The suite text does not follow the grammar; the suite and what is wrong.
    case invalidSuite(String, String)
    /// The challenge does not fit the suite's format or length.
    case invalidChallenge(String, String)
    /// The suite names an input (counter, PIN hash, session, time step) that was not given or does not fit.
    case missingInput(String)
    /// The host cannot sign with this suite (it derives the whole challenge from the document).
    case unsupportedForSigning(String, String)

    public var description: String {
        switch self {
        case .invalidSuite(let suite, let reason): "\"\(suite)\" is not an OCRA suite: \(reason)"
        case .invalidChallenge(let challenge, let reason): "\"\(challenge)\" is not a challenge for this suite: \(reason)"
        case .missingInput(let detail): detail
        case .unsupportedForSigning(let suite, let reason): "the suite \(suite) cannot be enrolled for signing: \(reason)"
        }
    }
}
