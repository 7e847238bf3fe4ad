import Crypto
import Foundation
import RBSMoney

// Unchecked: swift-crypto does not mark Curve25519's private key Sendable, but it is an immutable value once made
// (BatchSigner's workers share one the same way), and the rest are Sendable values.
/// The user's signing key and one-time code secret, loaded from the data directory by ``KeyStore/load()``.
public struct SigningIdentity: @unchecked Sendable {
    public let name: String
    public let privateKey: Curve25519.Signing.PrivateKey
    public var publicKey: Curve25519.Signing.PublicKey { privateKey.publicKey }
    /// First 16 hex characters of SHA-256 of the raw public key.
    public let keyId: String
    /// The enrolled second factor (TOTP or OCRA) and its secret.
    public let authenticator: Authenticator

    /// The raw 20-byte TOTP secret, or `nil` when the enrolled method is OCRA.
    public var totpSecret: Data? {
        if case .totp(let secret) = authenticator { return secret }
        return nil
    }

    init(name: String, privateKey: Curve25519.Signing.PrivateKey, authenticator: Authenticator) {
        self.name = name
        self.privateKey = privateKey
        self.keyId = Self.keyId(of: privateKey.publicKey)
        self.authenticator = authenticator
    }

    /// First 16 lowercase hex characters of SHA-256 of the raw 32-byte public key.
    public static func keyId(of publicKey: Curve25519.Signing.PublicKey) -> String {
        keyId(ofRaw: publicKey.rawRepresentation)
    }

    static func keyId(ofRaw raw: Data) -> String {
        String(Hex.encode(SHA256.hash(data: raw)).prefix(16))
    }

    /// Signs the canonical bytes of `document` with Ed25519.
    public func sign(_ document: Document) throws(KeyStoreError) -> SignedDocument {
        guard document.keyId == keyId else {
            throw .signingFailed("the document names key \(document.keyId), but this key is \(keyId)")
        }
        // A full card number (PAN) is never signed, and so never reaches the journal or the ledger (PCI DSS 3.4):
        // a card is named by its masked form or last four digits.
        for field in document.fields where Self.holdsFullCardNumber(key: field.key, value: field.value) {
            throw .signingFailed("field \"\(field.key)\" holds a full card number; a document names a card by its masked form "
                                 + "(first six and last four digits) or its last four digits, never the whole number")
        }
        let bytes = document.canonicalBytes
        do {
            return SignedDocument(document: document, canonicalBytes: bytes, signature: try privateKey.signature(for: bytes))
        } catch {
            throw .signingFailed(String(describing: error))
        }
    }

    /// Whether a field named like a card (`card…`, `…Card…`, `pan`) holds a whole card number that passes its
    /// scheme's length and Luhn check (digits, possibly grouped by spaces). Other fields are not guessed at: an OGRN
    /// or an account number is not a card.
    static func holdsFullCardNumber(key: String, value: String) -> Bool {
        namesCard(key) && CardNumber.isValid(value)
    }

    /// Whether `key` names a card: `card` anywhere in it, or `pan` at its end, in any case. Document keys are ASCII
    /// (``DocumentField/isValidKey(_:)``) and are read byte by byte — every field of every document signed asks,
    /// and Foundation's lowercasing and substring search cost more than the rest of the encoding; other text is
    /// lowercased and searched as before.
    static func namesCard(_ key: String) -> Bool {
        guard key.utf8.allSatisfy({ $0 < 0x80 }) else {
            let lowered = key.lowercased()
            return lowered.contains("card") || lowered == "pan" || lowered.hasSuffix("pan")
        }
        // The last four bytes read, lowercased, as one big-endian number.
        var window: UInt32 = 0
        for byte in key.utf8 {
            let lower = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
            window = window << 8 | UInt32(lower)
            if window == 0x6361_7264 { return true }  // "card"
        }
        return window & 0x00FF_FFFF == 0x0070_616E  // ends in "pan"
    }

}
