import Crypto
import Foundation

/// A document with its Ed25519 signature over the canonical bytes.
///
/// The signature binds every field, so changing the amount or the payee after signing breaks verification
/// (the dynamic linking PSD2 asks for).
public struct SignedDocument: Sendable, Hashable {
    public let document: Document
    /// The canonical bytes that were signed.
    public let canonicalBytes: Data
    /// 64-byte Ed25519 signature over ``canonicalBytes``.
    public let signature: Data

    /// Pairs a document with a signature over its canonical bytes (checked by ``isValid(publicKey:)``, not here).
    public init(document: Document, signature: Data) {
        self.document = document
        self.canonicalBytes = document.canonicalBytes
        self.signature = signature
    }

    /// Pairs a document with its already computed canonical bytes and a signature over them.
    init(document: Document, canonicalBytes: Data, signature: Data) {
        self.document = document
        self.canonicalBytes = canonicalBytes
        self.signature = signature
    }

    /// Parses stored canonical bytes and pairs them with their signature.
    public init(canonicalBytes: Data, signature: Data) throws(DocumentError) {
        self.document = try CanonicalEncoding.decode(canonicalBytes)
        self.canonicalBytes = canonicalBytes
        self.signature = signature
    }

    /// Lowercase hex SHA-256 of the canonical bytes.
    public var id: String { Document.id(ofCanonical: canonicalBytes) }

    /// Whether the signature is valid for these canonical bytes under `publicKey`.
    public func isValid(publicKey: Curve25519.Signing.PublicKey) -> Bool {
        publicKey.isValidSignature(signature, for: canonicalBytes)
    }
}
