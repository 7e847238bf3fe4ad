import Foundation

/// Time-based one-time codes, RFC 6238: HOTP over the number of whole periods since the Unix epoch.
public enum TOTP {
    /// The step length authenticator apps use.
    public static let period: Int64 = 30

    /// The time step of `time`: whole periods since 1970-01-01T00:00:00Z (0 before the epoch).
    public static func step(at time: Date, period: Int64 = period) -> UInt64 {
        let seconds = time.timeIntervalSince1970.rounded(.down)
        guard seconds > 0 else { return 0 }
        return UInt64(Int64(seconds) / period)
    }

    /// The code shown at `time`.
    public static func code(
        secret: Data, at time: Date, digits: Int = 6, algorithm: OTPAlgorithm = .sha1, period: Int64 = period
    ) -> String {
        HOTP.code(secret: secret, counter: step(at: time, period: period), digits: digits, algorithm: algorithm)
    }
}
