import Crypto
import Foundation
import Testing
@testable import RBSLedger

/// OCRA, RFC 6287: the suite grammar, the Appendix C test vectors and the challenge the host derives from a document.
@Suite("OCRA")
struct OCRATests {
    static let key20 = OneTimeCodeTests.seed20
    static let key32 = OneTimeCodeTests.seed32
    static let key64 = OneTimeCodeTests.seed64
    /// SHA-1 of the PIN "1234".
    static let pin = hex("7110eda4d09e062aa5e4a390b0a572ac0d2c0220")
    /// The time step of the RFC's T1M vectors ("132d0b6", minutes since the epoch on 2012-03-25).
    static let time: UInt64 = 0x132d0b6

    static func ocra(_ suite: String, _ key: Data, _ input: OCRA.Input) throws -> String {
        try OCRA.response(suite: try OCRASuite(suite), secret: key, input: input)
    }

    @Test("C.1 one-way OCRA-1:HOTP-SHA1-6:QN08")
    func oneWaySHA1() throws {
        let expected = ["237653", "243178", "653583", "740991", "608993", "388898", "816933", "224598", "750600", "294470"]
        for (digit, response) in expected.enumerated() {
            let challenge = String(repeating: String(digit), count: 8)
            #expect(try Self.ocra("OCRA-1:HOTP-SHA1-6:QN08", Self.key20, .init(challenge: challenge)) == response, "Q=\(challenge)")
        }
    }

    @Test("C.1 one-way OCRA-1:HOTP-SHA256-8:C-QN08-PSHA1 (counter 0–9)")
    func counterAndPin() throws {
        let expected = ["65347737", "86775851", "78192410", "71565254", "10104329", "65983500", "70069104", "91771096",
                        "75011558", "08522129"]
        for (counter, response) in expected.enumerated() {
            let input = OCRA.Input(challenge: "12345678", counter: UInt64(counter), pinHash: Self.pin)
            #expect(try Self.ocra("OCRA-1:HOTP-SHA256-8:C-QN08-PSHA1", Self.key32, input) == response, "C=\(counter)")
        }
    }

    @Test("C.1 one-way OCRA-1:HOTP-SHA256-8:QN08-PSHA1")
    func pinWithoutCounter() throws {
        let expected = ["83238735", "01501458", "17957585", "86776967", "86807031"]
        for (digit, response) in expected.enumerated() {
            let input = OCRA.Input(challenge: String(repeating: String(digit), count: 8), pinHash: Self.pin)
            #expect(try Self.ocra("OCRA-1:HOTP-SHA256-8:QN08-PSHA1", Self.key32, input) == response)
        }
    }

    @Test("C.1 one-way OCRA-1:HOTP-SHA512-8:C-QN08")
    func counterSHA512() throws {
        let expected = ["07016083", "63947962", "70123924", "25341727", "33203315", "34205738", "44343969", "51946085",
                        "20403879", "31409299"]
        for (digit, response) in expected.enumerated() {
            let input = OCRA.Input(challenge: String(repeating: String(digit), count: 8), counter: UInt64(digit))
            #expect(try Self.ocra("OCRA-1:HOTP-SHA512-8:C-QN08", Self.key64, input) == response)
        }
    }

    @Test("C.1 one-way OCRA-1:HOTP-SHA512-8:QN08-T1M")
    func timeStep() throws {
        let expected = ["95209754", "55907591", "22048402", "24218844", "36209546"]
        for (digit, response) in expected.enumerated() {
            let input = OCRA.Input(challenge: String(repeating: String(digit), count: 8), timeStep: Self.time)
            #expect(try Self.ocra("OCRA-1:HOTP-SHA512-8:QN08-T1M", Self.key64, input) == response)
        }
    }

    @Test("C.2 mutual challenge–response, server and client, SHA256 and SHA512 (with PIN)")
    func mutual() throws {
        let server256 = ["28247970", "01984843", "65387857", "03351211", "83412541"]
        let client256 = ["15510767", "90175646", "33777207", "95285278", "28934924"]
        let server512 = ["79496648", "76831980", "12250499", "90856481", "12761449"]
        let client512 = ["18806276", "70020315", "01600026", "18951020", "32528969"]
        for i in 0..<5 {
            let toServer = OCRA.Input(challenge: "CLI2222\(i)SRV1111\(i)")
            let toClient = OCRA.Input(challenge: "SRV1111\(i)CLI2222\(i)")
            #expect(try Self.ocra("OCRA-1:HOTP-SHA256-8:QA08", Self.key32, toServer) == server256[i])
            #expect(try Self.ocra("OCRA-1:HOTP-SHA256-8:QA08", Self.key32, toClient) == client256[i])
            #expect(try Self.ocra("OCRA-1:HOTP-SHA512-8:QA08", Self.key64, toServer) == server512[i])
            var withPin = toClient
            withPin.pinHash = Self.pin
            #expect(try Self.ocra("OCRA-1:HOTP-SHA512-8:QA08-PSHA1", Self.key64, withPin) == client512[i])
        }
    }

    @Test("C.3 plain signature OCRA-1:HOTP-SHA256-8:QA08 and with time OCRA-1:HOTP-SHA512-8:QA10-T1M")
    func signature() throws {
        let plain = ["53095496", "04110475", "31331128", "76028668", "46554205"]
        let timed = ["77537423", "31970405", "10235557", "95213541", "65360607"]
        for i in 0..<5 {
            #expect(try Self.ocra("OCRA-1:HOTP-SHA256-8:QA08", Self.key32, .init(challenge: "SIG1\(i)000")) == plain[i])
            #expect(try Self.ocra("OCRA-1:HOTP-SHA512-8:QA10-T1M", Self.key64,
                                  .init(challenge: "SIG1\(i)00000", timeStep: Self.time)) == timed[i])
        }
    }

    @Test("The suite grammar: valid suites parse into their parts")
    func parsesSuites() throws {
        let suite = try OCRASuite("OCRA-1:HOTP-SHA512-10:C-QH64-PSHA256-S128-T48H")
        #expect(suite.algorithm == .sha512)
        #expect(suite.digits == 10)
        #expect(suite.usesCounter)
        #expect(suite.challengeFormat == .hexadecimal)
        #expect(suite.challengeLength == 64)
        #expect(suite.pinHash == .sha256)
        #expect(suite.sessionLength == 128)
        #expect(suite.timeStep == Int64(172_800))
        let host = try OCRASuite(OCRASuite.hostDefault)
        #expect(host.algorithm == .sha256 && host.digits == 8 && host.challengeFormat == .numeric && host.challengeLength == 12)
        #expect(throws: Never.self) { try host.checkSigningUse() }
    }

    @Test("The suite grammar refuses malformed suites, naming the part", arguments: [
        "", "OCRA-2:HOTP-SHA1-6:QN08", "OCRA-1:HOTP-MD5-6:QN08", "OCRA-1:HOTP-SHA1-3:QN08", "OCRA-1:HOTP-SHA1-11:QN08",
        "OCRA-1:TOTP-SHA1-6:QN08", "OCRA-1:HOTP-SHA1-6:QN03", "OCRA-1:HOTP-SHA1-6:QN65", "OCRA-1:HOTP-SHA1-6:QX08",
        "OCRA-1:HOTP-SHA1-6:QN8", "OCRA-1:HOTP-SHA1-6:QN08-PMD5", "OCRA-1:HOTP-SHA1-6:QN08-S64",
        "OCRA-1:HOTP-SHA1-6:QN08-T0S", "OCRA-1:HOTP-SHA1-6:QN08-T60M", "OCRA-1:HOTP-SHA1-6:QN08-T49H",
        "OCRA-1:HOTP-SHA1-6:QN08-T1M-S064", "OCRA-1:HOTP-SHA1-6:PSHA1-QN08", "OCRA-1:HOTP-SHA1-6:QN08-",
        "OCRA-1:HOTP-SHA1-6:C", "OCRA-1:HOTP-SHA1-6:QN08:extra", "ocra-1:hotp-sha1-6:qn08",
    ])
    func refusesMalformedSuites(text: String) {
        #expect(throws: OCRAError.self) { try OCRASuite(text) }
    }

    @Test("A challenge that does not fit the suite is refused, not truncated or padded into another one")
    func refusesBadChallenges() throws {
        let numeric = try OCRASuite("OCRA-1:HOTP-SHA1-6:QN08")
        for challenge in ["", String(repeating: "1", count: 310), "1234abcd", "１２３４"] {
            #expect(throws: OCRAError.self) { try OCRA.response(suite: numeric, secret: Self.key20, input: .init(challenge: challenge)) }
        }
        let hexSuite = try OCRASuite("OCRA-1:HOTP-SHA1-6:QH08")
        #expect(throws: OCRAError.self) { try OCRA.response(suite: hexSuite, secret: Self.key20, input: .init(challenge: "XYZ")) }
        #expect(throws: OCRAError.self) {
            try OCRA.response(suite: try OCRASuite("OCRA-1:HOTP-SHA1-6:C-QN08"), secret: Self.key20, input: .init(challenge: "1"))
        }
    }

    @Test("Suites with a counter, PIN, session, time step or a challenge under 8 characters are not enrolled for signing")
    func signingUse() throws {
        for text in ["OCRA-1:HOTP-SHA256-8:C-QN12", "OCRA-1:HOTP-SHA256-8:QN12-PSHA1", "OCRA-1:HOTP-SHA256-8:QN12-S064",
                     "OCRA-1:HOTP-SHA256-8:QN12-T1M", "OCRA-1:HOTP-SHA256-8:QN06"] {
            #expect(throws: OCRAError.self, "\(text)") { try OCRASuite(text).checkSigningUse() }
        }
    }

    @Test("The document's challenge: the last digits of the id's value (numeric), its first hex digits (QH/QA)")
    func documentChallenge() throws {
        let id = Hex.encode(SHA256.hash(data: Data("document".utf8)))
        let zero = String(repeating: "0", count: 64)
        #expect(try OCRASuite("OCRA-1:HOTP-SHA256-8:QN12").challenge(forDocumentId: zero) == "000000000000")
        // 0x...ff (255) and 0x...0100 (256): the low digits of small values.
        #expect(try OCRASuite("OCRA-1:HOTP-SHA256-8:QN12").challenge(forDocumentId: String(zero.dropLast(2)) + "ff") == "000000000255")
        // 2^256 - 1 = 115792089237316195423570985008687907853269984665640564039457584007913129639935
        #expect(try OCRASuite("OCRA-1:HOTP-SHA256-8:QN12").challenge(forDocumentId: String(repeating: "f", count: 64)) == "913129639935")
        #expect(try OCRASuite("OCRA-1:HOTP-SHA256-8:QN64").challenge(forDocumentId: String(repeating: "f", count: 64))
                == "6195423570985008687907853269984665640564039457584007913129639935")
        #expect(try OCRASuite("OCRA-1:HOTP-SHA256-8:QH10").challenge(forDocumentId: id) == String(id.uppercased().prefix(10)))
        #expect(OCRASuite.grouped("482109375512") == "4821 0937 5512")
    }

    @Test("A numeric challenge is read as a number (the reference implementation's BigInteger), not as text")
    func numericEncoding() {
        #expect(OCRA.hexDigits(ofDecimal: [0]) == [0])
        #expect(OCRA.hexDigits(ofDecimal: [1, 2, 3, 4, 5, 6, 7, 8]) == [0xB, 0xC, 0x6, 0x1, 0x4, 0xE])
        #expect(OCRA.hexDigits(ofDecimal: [0, 0, 2, 5, 5]) == [0xF, 0xF])
    }
}
