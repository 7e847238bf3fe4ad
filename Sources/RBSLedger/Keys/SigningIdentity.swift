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

    /// Signs every document on all cores (Ed25519 signing with one key is a pure function of the key bytes
    /// and the message, safe to run concurrently), each with its document id; result `i` belongs to `batch[i]`.
    func signAll(_ batch: [Document]) -> [Result<(signed: SignedDocument, id: String), KeyStoreError>] {
        Parallel.map(batch) { document in
            Result { () throws(KeyStoreError) in
                let signed = try sign(document)
                return (signed, signed.id)
            }
        }
    }
}
