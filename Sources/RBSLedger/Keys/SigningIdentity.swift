import Crypto
import Foundation

/// The user's signing key and one-time code secret, loaded from the data directory by ``KeyStore/load()``.
public struct SigningIdentity {
    public let name: String
    public let privateKey: Curve25519.Signing.PrivateKey
    public var publicKey: Curve25519.Signing.PublicKey { privateKey.publicKey }
    /// First 16 hex characters of SHA-256 of the raw public key.
    public let keyId: String
    /// The raw 20-byte TOTP secret.
    public let totpSecret: Data

    init(name: String, privateKey: Curve25519.Signing.PrivateKey, totpSecret: Data) {
        self.name = name
        self.privateKey = privateKey
        self.keyId = Self.keyId(of: privateKey.publicKey)
        self.totpSecret = totpSecret
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
        let bytes = document.canonicalBytes
        do {
            return SignedDocument(document: document, canonicalBytes: bytes, signature: try privateKey.signature(for: bytes))
        } catch {
            throw .signingFailed(String(describing: error))
        }
    }

}
