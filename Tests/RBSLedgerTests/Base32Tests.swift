import Foundation
import Testing
@testable import RBSLedger

@Suite("Base32")
struct Base32Tests {
    static let vectors: [(String, String)] = [
        ("", ""), ("f", "MY======"), ("fo", "MZXQ===="), ("foo", "MZXW6==="), ("foob", "MZXW6YQ="),
        ("fooba", "MZXW6YTB"), ("foobar", "MZXW6YTBOI======"),
    ]

    @Test("encodes the RFC 4648 test vectors")
    func encodesRFCVectors() {
        for (plain, encoded) in Self.vectors {
            #expect(Base32.encode(Data(plain.utf8)) == encoded)
        }
    }

    @Test("decodes the RFC 4648 test vectors, with and without padding")
    func decodesRFCVectors() {
        for (plain, encoded) in Self.vectors {
            #expect(Base32.decode(encoded) == Data(plain.utf8))
            #expect(Base32.decode(encoded.replacingOccurrences(of: "=", with: "")) == Data(plain.utf8))
            #expect(Base32.decode(encoded.lowercased()) == Data(plain.utf8))
        }
    }

    @Test("refuses text that is not Base32")
    func refusesInvalidText() {
        #expect(Base32.decode("MZXW6YT1") == nil)   // '1' is not in the alphabet
        #expect(Base32.decode("MZX") == nil)        // impossible length
        #expect(Base32.decode("MY=====") == nil)    // wrong padding
        #expect(Base32.decode("MZ") == nil)         // leftover bits not zero
        #expect(Base32.decode("MZ XW") == nil)
    }

    @Test("a 20-byte secret encodes to 32 characters without padding")
    func secretLength() {
        #expect(Base32.encode(Data(repeating: 0xAB, count: 20), padding: false).count == 32)
    }
}
