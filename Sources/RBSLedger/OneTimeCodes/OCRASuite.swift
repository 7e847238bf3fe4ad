import Foundation

/// An OCRA suite, RFC 6287 §6: `OCRA-1:HOTP-SHA<x>-<t>:<data input>`, e.g. `OCRA-1:HOTP-SHA256-8:QN12`.
///
/// The data input is `[C-]QFxx[-PH|-Snnn|-TG]…`: an optional counter, the challenge (format N numeric, A
/// alphanumeric, H hexadecimal; 4–64 characters), then optionally a hashed PIN, session information and a time
/// step, in that order.
public struct OCRASuite: Sendable, Hashable, CustomStringConvertible {
    /// How the challenge is written.
    public enum ChallengeFormat: String, Sendable, Hashable {
        case numeric = "N", alphanumeric = "A", hexadecimal = "H"
    }

    /// The suite as given (it is part of the HMAC input, so it is kept byte for byte).
    public let text: String
    public let algorithm: OTPAlgorithm
    /// Digits of the response, 4–10.
    public let digits: Int
    /// Whether the data input has the 8-byte counter `C`.
    public let usesCounter: Bool
    public let challengeFormat: ChallengeFormat
    /// The maximum challenge length, 4–64.
    public let challengeLength: Int
    /// The hash of the PIN (`PSHA1`, `PSHA256`, `PSHA512`), if the suite has one.
    public let pinHash: OTPAlgorithm?
    /// Bytes of session information (`Snnn`), if the suite has it.
    public let sessionLength: Int?
    /// The time step in seconds (`T1M` → 60), if the suite has one.
    public let timeStep: Int64?

    /// The suite the host enrols by default: HMAC-SHA256, 8-digit responses, a 12-digit numeric challenge and no
    /// other input — the challenge is the whole binding to the document (see README "Dynamic linking").
    public static let hostDefault = "OCRA-1:HOTP-SHA256-8:QN12"

    public var description: String { text }

    /// Parses `text`, naming what is wrong with it.
    public init(_ text: String) throws(OCRAError) {
        func bad(_ reason: String) -> OCRAError { .invalidSuite(text, reason) }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw bad("a suite has three parts separated by ':' (OCRA-1:HOTP-SHA1-6:QN08)") }
        guard parts[0] == "OCRA-1" else { throw bad("the version must be OCRA-1") }

        let function = parts[1].split(separator: "-", omittingEmptySubsequences: false)
        guard function.count == 3, function[0] == "HOTP" else {
            throw bad("the crypto function must be HOTP-SHA1-t, HOTP-SHA256-t or HOTP-SHA512-t")
        }
        guard let algorithm = OTPAlgorithm(rawValue: String(function[1])) else {
            throw bad("the hash must be SHA1, SHA256 or SHA512, not \(function[1])")
        }
        guard let digits = Self.number(function[2]), (4...10).contains(digits) else {
            throw bad("the response length must be 4 to 10 digits, not \(function[2])")
        }

        var inputs = parts[2].split(separator: "-", omittingEmptySubsequences: false)[...]
        var usesCounter = false
        if inputs.first == "C" {
            usesCounter = true
            inputs = inputs.dropFirst()
        }
        guard let question = inputs.first, question.count == 4, question.hasPrefix("Q"),
              let format = ChallengeFormat(rawValue: String(question.dropFirst().prefix(1))),
              let length = Self.number(question.dropFirst(2)), (4...64).contains(length)
        else {
            throw bad("the data input needs a challenge QFxx (F is N, A or H; xx is 04 to 64), after the optional C")
        }
        inputs = inputs.dropFirst()

        var pinHash: OTPAlgorithm?
        var sessionLength: Int?
        var timeStep: Int64?
        // Each optional part at most once, in the order P, S, T.
        var rank = 0
        for input in inputs {
            if input.hasPrefix("P"), rank < 1, let hash = OTPAlgorithm(rawValue: String(input.dropFirst())) {
                pinHash = hash
                rank = 1
            } else if input.hasPrefix("S"), rank < 2, input.count == 4, let length = Self.number(input.dropFirst()), length > 0 {
                sessionLength = length
                rank = 2
            } else if input.hasPrefix("T"), rank < 3, let step = Self.timeStep(input.dropFirst()) {
                timeStep = step
                rank = 3
            } else {
                throw bad("\"\(input)\" is not PSHA1/PSHA256/PSHA512, Snnn or a time step T<1-59>S, T<1-59>M, T<1-48>H (in that order, each once)")
            }
        }
        self.text = text
        self.algorithm = algorithm
        self.digits = digits
        self.usesCounter = usesCounter
        challengeFormat = format
        challengeLength = length
        self.pinHash = pinHash
        self.sessionLength = sessionLength
        self.timeStep = timeStep
    }

    /// The length of a secret the suite's HMAC is meant for (RFC 6287 uses 20, 32 and 64 bytes).
    public var secretLength: Int {
        switch algorithm {
        case .sha1: 20
        case .sha256: 32
        case .sha512: 64
        }
    }

    private static func number(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text)
    }

    private static func timeStep(_ text: Substring) -> Int64? {
        guard let unit = text.last, let value = number(text.dropLast()) else { return nil }
        switch unit {
        case "S" where (1...59).contains(value): return Int64(value)
        case "M" where (1...59).contains(value): return Int64(value) * 60
        case "H" where (1...48).contains(value): return Int64(value) * 3600
        default: return nil
        }
    }
}
