import Crypto
import Foundation
import RBSMoney

/// What the user signs: one operation of one plugin, with its fields, its time, a nonce and the signer's key id.
///
/// Fields are kept sorted by key (byte order), which is the order of the canonical encoding; the form's display
/// order is the plugin's business, not the document's. The money fields have the contract's keys (``PaymentField``:
/// `from`, `account`, `bic`, `name`, `inn`, `kpp`, `amount` as plain decimal with '.', `currency`, `purpose`, `fee`)
/// and are read only through the typed ``Payment``.
///
/// The document id is the lowercase hex SHA-256 of the canonical bytes (see ``CanonicalEncoding``), which do not
/// contain the signature: the id names what was signed, and the same document always has the same id.
public struct Document: Sendable, Hashable {
    /// The plugin's operation id ("payment.domestic").
    public let operation: String
    /// The plugin's id ("ru.example.payments").
    public let plugin: String
    public let pluginVersion: String
    /// Sorted by key, keys unique.
    public let fields: [DocumentField]
    /// Milliseconds since 1970-01-01T00:00:00Z (UTC).
    public let createdAtMilliseconds: Int64
    /// 16 random bytes, so two otherwise equal operations are two documents.
    public let nonce: Data
    /// The signer's key id (16 lowercase hex characters, see ``SigningIdentity/keyId``).
    public let keyId: String

    /// Validates and normalises (sorts) the fields; `createdAt` is truncated to the millisecond.
    public init(
        operation: String, plugin: String, pluginVersion: String, fields: [DocumentField],
        createdAt: Date, nonce: Data, keyId: String
    ) throws(DocumentError) {
        try self.init(
            operation: operation, plugin: plugin, pluginVersion: pluginVersion, fields: fields,
            createdAtMilliseconds: Timestamp.milliseconds(createdAt), nonce: nonce, keyId: keyId)
    }

    init(
        operation: String, plugin: String, pluginVersion: String, fields: [DocumentField],
        createdAtMilliseconds: Int64, nonce: Data, keyId: String
    ) throws(DocumentError) {
        for (name, value) in [("operation", operation), ("plugin", plugin), ("plugin version", pluginVersion)] {
            guard !value.isEmpty else { throw .emptyHeader(name: name) }
            guard Self.hasNoForbiddenControls(value) else { throw .controlCharacter(field: name) }
        }
        guard nonce.count == 16 else { throw .invalidNonce(byteCount: nonce.count) }
        guard keyId.utf8.count == 16, Hex.decode(keyId, lowercaseOnly: true) != nil else { throw .invalidKeyId(keyId) }
        guard (0...253_402_300_799_999).contains(createdAtMilliseconds) else {
            throw .malformed(line: 0, reason: "the creation time is outside the years 1970–9999")
        }
        var seen = Set<String>()
        for field in fields {
            guard DocumentField.isValidKey(field.key) else { throw .invalidFieldKey(field.key) }
            guard seen.insert(field.key).inserted else { throw .duplicateFieldKey(field.key) }
            guard Self.hasNoForbiddenControls(field.value) else { throw .controlCharacter(field: field.key) }
            if field.key == PaymentField.amount.key, DecimalText.scale(of: field.value) == nil { throw .invalidAmount(field.value) }
        }
        self.operation = operation
        self.plugin = plugin
        self.pluginVersion = pluginVersion
        self.fields = fields.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        self.createdAtMilliseconds = createdAtMilliseconds
        self.nonce = nonce
        self.keyId = keyId
    }

    /// 16 bytes from the system's secure random generator.
    public static func randomNonce() -> Data {
        var generator = SystemRandomNumberGenerator()
        var bytes = Data(count: 16)
        for half in 0..<2 {
            let word = generator.next()
            for i in 0..<8 { bytes[half * 8 + i] = UInt8(truncatingIfNeeded: word >> UInt64(8 * i)) }
        }
        return bytes
    }

    /// When the document was made (UTC, millisecond precision).
    public var createdAt: Date { Timestamp.date(milliseconds: createdAtMilliseconds) }

    /// The value of a field, or `nil`.
    public subscript(key: String) -> String? { fields.first { $0.key == key }?.value }

    /// The canonical bytes: what is signed and hashed.
    public var canonicalBytes: Data { CanonicalEncoding.encode(self) }

    /// Lowercase hex SHA-256 of the canonical bytes.
    public var id: String { Self.id(ofCanonical: canonicalBytes) }

    static func id(ofCanonical bytes: Data) -> String { Hex.encode(SHA256.hash(data: bytes)) }

    private static func hasNoForbiddenControls(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { s in
            s == "\n" || s == "\r" || s == "\t" || !(s.value < 0x20 || s.value == 0x7F)
        }
    }
}
