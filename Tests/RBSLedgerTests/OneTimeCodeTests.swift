import Foundation
import Testing
@testable import RBSLedger

@Suite("HOTP and TOTP")
struct OneTimeCodeTests {
    static let seed20 = Data("12345678901234567890".utf8)
    static let seed32 = Data("12345678901234567890123456789012".utf8)
    static let seed64 = Data("1234567890123456789012345678901234567890123456789012345678901234".utf8)

    @Test("HOTP gives the ten values of RFC 4226 appendix D")
    func rfc4226AppendixD() {
        let expected = ["755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871", "520489"]
        for (counter, code) in expected.enumerated() {
            #expect(HOTP.code(secret: Self.seed20, counter: UInt64(counter)) == code)
        }
    }

    @Test("TOTP gives RFC 6238 appendix B for SHA1, SHA256 and SHA512", arguments: [
        (59.0, "94287082", "46119246", "90693936"),
        (1_111_111_109, "07081804", "68084774", "25091201"),
        (1_111_111_111, "14050471", "67062674", "99943326"),
        (1_234_567_890, "89005924", "91819424", "93441116"),
        (2_000_000_000, "69279037", "90698825", "38618901"),
        (20_000_000_000, "65353130", "77737706", "47863826"),
    ])
    func rfc6238AppendixB(time: Double, sha1: String, sha256: String, sha512: String) {
        let date = Date(timeIntervalSince1970: time)
        #expect(TOTP.code(secret: Self.seed20, at: date, digits: 8, algorithm: .sha1) == sha1)
        #expect(TOTP.code(secret: Self.seed32, at: date, digits: 8, algorithm: .sha256) == sha256)
        #expect(TOTP.code(secret: Self.seed64, at: date, digits: 8, algorithm: .sha512) == sha512)
    }

    @Test("a time step is 30 seconds")
    func stepIsThirtySeconds() {
        #expect(TOTP.step(at: Date(timeIntervalSince1970: 59)) == 1)
        #expect(TOTP.step(at: Date(timeIntervalSince1970: 60)) == 2)
        #expect(TOTP.code(secret: Self.seed20, at: Date(timeIntervalSince1970: 59)) == "287082")
    }
}
