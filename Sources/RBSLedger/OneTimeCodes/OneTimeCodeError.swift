import Foundation

/// Why a one-time code was not accepted.
public enum OneTimeCodeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The code is not six digits; it counts as a wrong code.
    case malformed(attemptsLeft: Int)
    /// The code matches none of the previous, current and next time steps.
    case wrong(attemptsLeft: Int)
    /// The code (its time step) was already used once.
    case replayed
    /// Too many wrong codes in a row: signing is locked until `until`.
    case locked(until: Date, remainingSeconds: Int, failures: Int)
    /// The OCRA response is not `digits` digits; it counts as a wrong response.
    case malformedResponse(digits: Int, attemptsLeft: Int)
    /// The response does not answer the challenge of the document being signed — because it is wrong, or because
    /// the document is not the one the challenge was shown with. Deliberately one case (Art. 4: a failure does not
    /// say which element was wrong).
    case wrongResponse(attemptsLeft: Int)
    /// The passkey's assertion does not sign this document — whatever element failed (challenge, origin, relying
    /// party, flags, counter, signature, credential): deliberately one case, as for OCRA (Art. 4). The element is in
    /// the ``PasskeyError`` the ledger reports to the operator, never to the customer.
    case wrongPasskey(attemptsLeft: Int)
    /// The challenge was already answered once.
    case challengeUsed
    /// No challenge is waiting for this document (`run --response` without an earlier `run --challenge`).
    case noPendingChallenge(String)
    /// The challenge was issued too long ago.
    case challengeExpired(issuedAt: Date, lifetimeSeconds: Int)
    /// The command is for the other method than the enrolled one; what to do instead.
    case wrongMethod(enrolled: SigningMethod, detail: String)
    /// The state of the verifier could not be read or written.
    case storage(String)

    public var description: String {
        switch self {
        case .malformed(let left):
            "a one-time code is 6 digits from your authenticator app; \(Self.attempts(left))"
        case .wrong(let left):
            "the one-time code is wrong; check the clock of the device with the authenticator app; \(Self.attempts(left))"
        case .replayed:
            "this one-time code was already used; wait for the next code (a new one appears every 30 seconds)"
        case .locked(let until, let remaining, let failures):
            "signing is locked for \(Self.minutes(remaining)) more after \(failures) wrong codes (until \(Timestamp.format(milliseconds: Timestamp.milliseconds(until))))"
        case .malformedResponse(let digits, let left):
            "a response is \(digits) digits from your authenticator; \(Self.attempts(left))"
        case .wrongResponse(let left):
            "the response does not answer this document's challenge: type the challenge shown with this amount and payee into the authenticator, then its response; \(Self.attempts(left))"
        case .wrongPasskey(let left):
            "the passkey did not sign this document: confirm the payment shown on the review with this customer's passkey again; \(Self.attempts(left))"
        case .challengeUsed:
            "this challenge was already answered once; start the signing again for a new challenge"
        case .noPendingChallenge(let what):
            "no challenge is waiting for \(what); ask for one with `run … --challenge` first"
        case .challengeExpired(let issuedAt, let lifetime):
            "the challenge issued at \(Timestamp.format(milliseconds: Timestamp.milliseconds(issuedAt))) expired after \(lifetime / 60) minutes; ask for a new one with `run … --challenge`"
        case .wrongMethod(let enrolled, let detail):
            "the enrolled signing method is \(enrolled.rawValue.uppercased()): \(detail)"
        case .storage(let detail):
            "the one-time code state could not be stored: \(detail)"
        }
    }

    private static func attempts(_ left: Int) -> String {
        left == 0 ? "signing is now locked for 5 minutes" : "\(left) attempt\(left == 1 ? "" : "s") left before signing is locked for 5 minutes"
    }

    private static func minutes(_ seconds: Int) -> String {
        if seconds <= 60 { return "\(seconds) second\(seconds == 1 ? "" : "s")" }
        let minutes = (seconds + 59) / 60
        return "\(minutes) minutes"
    }
}
