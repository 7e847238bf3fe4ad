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
