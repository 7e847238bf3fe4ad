import Crypto
import Foundation
import Testing
@testable import RBSLedger

@Suite("Canonical encoding")
struct CanonicalEncodingTests {
    static let golden: String = """
        RBSDOC1
        operation=payment.domestic
        plugin=ru.example.payments
        plugin_version=1.2.0
        created_at=2025-03-01T09:30:00.250Z
        nonce=000102030405060708090a0b0c0d0e0f
        key_id=0123456789abcdef
        fields=4
        account=40702810900000012345
        amount=1500.00
        currency=RUB
        purpose=Invoice 7\\nline 2 a\\=b

        """

    static func replacing(_ old: String, _ new: String) -> String { golden.replacingOccurrences(of: old, with: new) }

    static let deviations: [(String, Int)] = [
        ("RBSDOC2\n", 1),
        (replacing("plugin=", "plugin ="), 3),
        (replacing(".250Z", ".25Z"), 5),
        (replacing("T09:30", "T25:30"), 5),
        (replacing("0e0f", "0E0F"), 6),
        (replacing("fields=4", "fields=04"), 8),
        (replacing("fields=4", "fields=5"), 13),
        (replacing("account=", "Account="), 9),
        (replacing("amount=1500.00", "amount=1 500,00"), 10),
        (replacing("amount=1500.00", "amount=01500"), 10),
        (replacing("a\\=b", "a=b"), 12),
        (replacing("\\nline", "\\xline"), 12),
        (String(golden.dropLast()), 12),
        (golden + "extra=1\n", 13),
    ]

    static func goldenDocument() throws -> Document {
        try Document(
            operation: "payment.domestic", plugin: "ru.example.payments", pluginVersion: "1.2.0",
            fields: [DocumentField("purpose", "Invoice 7\nline 2 a=b"), DocumentField("amount", "1500.00"),
                     DocumentField("currency", "RUB"), DocumentField("account", "40702810900000012345")],
            createdAt: Date(timeIntervalSince1970: 1_740_821_400.25), nonce: Data(0..<16), keyId: "0123456789abcdef")
    }

    @Test("a fixed document encodes to the golden bytes, and its id is their SHA-256")
    func goldenBytes() throws {
        let document = try Self.goldenDocument()
        #expect(String(decoding: document.canonicalBytes, as: UTF8.self) == Self.golden)
        #expect(document.id == "130eb4d784f6968d2d96fd430a6fc4d62438d230984fe9e04a6302b86ec107bf")
    }

    @Test("decoding the encoding gives the same document, with every escape and non-ASCII text")
    func roundTrip() throws {
        let document = try Document(
            operation: "op", plugin: "p=q\\r", pluginVersion: "1", fields: [
                DocumentField("name", "Иванов\tИван\r\n"), DocumentField("amount", "-0.5"), DocumentField("x_Y9", ""),
            ], createdAt: Date(timeIntervalSince1970: 0.001), nonce: Document.randomNonce(), keyId: "ffffffffffffffff")
        let decoded = try CanonicalEncoding.decode(document.canonicalBytes)
        #expect(decoded == document)
        #expect(decoded.canonicalBytes == document.canonicalBytes)
        #expect(decoded["name"] == "Иванов\tИван\r\n")
    }

    @Test("the same fields in another order give the same bytes")
    func orderDoesNotMatter() throws {
        let a = try Self.goldenDocument()
        let b = try Document(operation: a.operation, plugin: a.plugin, pluginVersion: a.pluginVersion,
                             fields: a.fields.reversed(), createdAt: a.createdAt, nonce: a.nonce, keyId: a.keyId)
        #expect(a.canonicalBytes == b.canonicalBytes)
    }

    @Test("strict decoding names the line of each deviation", arguments: deviations)
    func strictDecoding(text: String, line: Int) {
        #expect {
            _ = try CanonicalEncoding.decode(Data(text.utf8))
        } throws: { error in
            guard case .malformed(let found, _) = error as? DocumentError else { return false }
            return found == line
        }
    }

    /// Found while writing the fuzz target (Fuzz/Sources/FuzzCanonicalDocument): the count was added to the header's 8 lines, which
    /// trapped on overflow for a count near Int.max — a crash on hostile bytes.
    @Test("a field count as large as Int.max is refused with its line, not an overflow")
    func hugeFieldCount() {
        for count in [Int.max, Int.max - 7, Int.max - 8] {
            #expect(throws: DocumentError.malformed(line: 13, reason: "expected \(count) field lines, found 4")) {
                try CanonicalEncoding.decode(Data(Self.replacing("fields=4", "fields=\(count)").utf8))
            }
        }
    }

    @Test("invalid UTF-8 is refused with its line")
    func invalidUTF8() {
        var bytes = Data(Self.golden.utf8)
        bytes.append(contentsOf: [0xFF, 0x0A])
        #expect(throws: DocumentError.self) { try CanonicalEncoding.decode(bytes) }
    }

    @Test("documents refuse bad keys, duplicate keys, control characters and non-decimal amounts")
    func documentValidation() throws {
        func make(_ fields: [DocumentField]) throws(DocumentError) -> Document {
            try Document(operation: "o", plugin: "p", pluginVersion: "1", fields: fields, createdAt: Date(),
                         nonce: Data(count: 16), keyId: "0123456789abcdef")
        }
        #expect(throws: DocumentError.invalidFieldKey("Amount")) { try make([DocumentField("Amount", "1")]) }
        #expect(throws: DocumentError.invalidFieldKey("a-b")) { try make([DocumentField("a-b", "1")]) }
        #expect(throws: DocumentError.duplicateFieldKey("a")) { try make([DocumentField("a", "1"), DocumentField("a", "2")]) }
        #expect(throws: DocumentError.controlCharacter(field: "a")) { try make([DocumentField("a", "x\u{0}")]) }
        #expect(throws: DocumentError.invalidAmount("1e3")) { try make([DocumentField("amount", "1e3")]) }
        #expect(throws: DocumentError.invalidNonce(byteCount: 3)) {
            try Document(operation: "o", plugin: "p", pluginVersion: "1", fields: [], createdAt: Date(),
                         nonce: Data(count: 3), keyId: "0123456789abcdef")
        }
    }

    @Test("a changed amount or payee account fails verification")
    func dynamicLinking() throws {
        let key = Curve25519.Signing.PrivateKey()
        let keyId = SigningIdentity.keyId(of: key.publicKey)
        let fields = [DocumentField("account", "40702810900000012345"), DocumentField("amount", "1500.00")]
        let original = try Document(operation: "pay", plugin: "p", pluginVersion: "1", fields: fields,
                                    createdAt: Date(), nonce: Data(count: 16), keyId: keyId)
        let signature = try key.signature(for: original.canonicalBytes)
        #expect(SignedDocument(document: original, signature: signature).isValid(publicKey: key.publicKey))

        for changed in [[fields[0], DocumentField("amount", "15000.00")],
                        [DocumentField("account", "40702810900000099999"), fields[1]]] {
            let altered = try Document(operation: "pay", plugin: "p", pluginVersion: "1", fields: changed,
                                       createdAt: original.createdAt, nonce: original.nonce, keyId: keyId)
            #expect(!SignedDocument(document: altered, signature: signature).isValid(publicKey: key.publicKey))
        }
    }
}
