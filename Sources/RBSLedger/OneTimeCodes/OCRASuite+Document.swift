import Foundation

extension OCRASuite {
    /// Shortest challenge the host enrols: fewer digits would let a changed document share a challenge too often.
    public static let minimumSigningChallengeLength = 8

    /// Refuses suites the host cannot sign with: the host derives the whole challenge from the document, so a
    /// counter, a PIN, session information or a time step (which the host cannot know or keep in step with the
    /// person's authenticator) are not enrolled, nor challenges shorter than
    /// ``minimumSigningChallengeLength`` characters.
    public func checkSigningUse() throws(OCRAError) {
        func refuse(_ reason: String) -> OCRAError { .unsupportedForSigning(text, reason) }
        if usesCounter { throw refuse("a counter (C) is not used: the challenge alone makes each response unique") }
        if pinHash != nil { throw refuse("a PIN (P) is not used: the host never learns the PIN") }
        if sessionLength != nil { throw refuse("session information (S) is not used") }
        if timeStep != nil { throw refuse("a time step (T) is not used: the challenge expires instead") }
        guard challengeLength >= Self.minimumSigningChallengeLength else {
            throw refuse("the challenge must have at least \(Self.minimumSigningChallengeLength) characters (QN\(Self.minimumSigningChallengeLength) or longer)")
        }
    }

    /// The challenge for the document with this id (lowercase hex SHA-256 of its canonical bytes), as long as
    /// the suite allows: for a numeric suite the digest's value modulo 10^length as zero-padded decimal digits,
    /// otherwise the digest's first `length` hexadecimal digits in upper case. Every byte of the document (amount,
    /// payee account, payee name, nonce, time…) goes into the digest, so any change gives another challenge
    /// (except with probability 10^-length or 16^-length).
    public func challenge(forDocumentId id: String) -> String {
        let digest = Hex.decode(id) ?? Data()
        switch challengeFormat {
        case .numeric:
            // Long division of the big-endian digest by 10, `challengeLength` times: the last decimal digits.
            var value = Array(digest)
            var digits: [UInt8] = []
            for _ in 0..<challengeLength {
                var remainder = 0
                for i in value.indices {
                    let current = remainder << 8 | Int(value[i])
                    value[i] = UInt8(current / 10)
                    remainder = current % 10
                }
                digits.append(UInt8(remainder) + UInt8(ascii: "0"))
            }
            return String(decoding: digits.reversed(), as: UTF8.self)
        case .alphanumeric, .hexadecimal:
            return String(Hex.encode(digest).uppercased().prefix(challengeLength))
        }
    }

    /// The challenge in groups of four, as the review shows it ("4821 0937 5512").
    public static func grouped(_ challenge: String) -> String {
        var out = ""
        for (index, character) in challenge.enumerated() {
            if index > 0, index % 4 == 0 { out.append(" ") }
            out.append(character)
        }
        return out
    }
}
