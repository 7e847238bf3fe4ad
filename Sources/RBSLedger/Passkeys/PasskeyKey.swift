import Crypto
import Foundation

/// A passkey's public key, read from its COSE form (RFC 9053) at registration: ES256 (ECDSA P-256 with SHA-256)
/// or EdDSA (Ed25519). Kept as its algorithm and bytes (checked to be a valid key when made).
public struct PasskeyKey: Sendable, Hashable {
    public enum Algorithm: String, Sendable, Hashable {
        case es256 = "WEBAUTHN-ES256"
        case ed25519 = "WEBAUTHN-EdDSA"
    }

    public let algorithm: Algorithm
    /// The key's bytes as stored: the uncompressed point (65 bytes, X9.63) for P-256, the 32 raw bytes for Ed25519.
    public let raw: Data

    /// How the journal names the algorithm (the authorization's suite).
    public var suite: String { algorithm.rawValue }

    /// The key id documents signed with this passkey name: first 16 hex digits of SHA-256 of ``raw``.
    public var keyId: String { SigningIdentity.keyId(ofRaw: raw) }

    /// Reads a stored key back from its suite and bytes.
    public init(suite: String, raw: Data) throws(PasskeyError) {
        guard let algorithm = Algorithm(rawValue: suite) else { throw .unsupportedAlgorithm(suite) }
        try self.init(algorithm, raw: raw)
    }

    private init(_ algorithm: Algorithm, raw: Data) throws(PasskeyError) {
        let valid = switch algorithm {
        case .es256: (try? P256.Signing.PublicKey(x963Representation: raw)) != nil
        case .ed25519: (try? Curve25519.Signing.PublicKey(rawRepresentation: raw)) != nil
        }
        guard valid else { throw .malformed("the \(algorithm.rawValue) public key is not a valid key (\(raw.count) bytes)") }
        self.algorithm = algorithm
        self.raw = raw
    }

    /// Reads a COSE_Key: kty 2 (EC2) with alg -7 and crv 1 (P-256), or kty 1 (OKP) with alg -8 and crv 6 (Ed25519).
    init(cose: CBORValue) throws(PasskeyError) {
        guard case .map = cose else { throw .malformed("the credential public key is not a CBOR map (COSE_Key)") }
        func integer(_ label: Int64, _ name: String) throws(PasskeyError) -> Int64 {
            let key: CBORValue = label >= 0 ? .unsigned(UInt64(label)) : .negative(UInt64(-1 - label))
            guard let value = cose[key]?.integer else { throw .malformed("the COSE key has no integer \(name) (label \(label))") }
            return value
        }
        func bytes(_ label: Int64, _ name: String, count: Int) throws(PasskeyError) -> Data {
            guard case .bytes(let data) = cose[.negative(UInt64(-1 - label))] else {
                throw .malformed("the COSE key has no byte string \(name) (label \(label))")
            }
            guard data.count == count else { throw .malformed("the COSE key's \(name) is \(data.count) bytes, not \(count)") }
            return data
        }
        let kty = try integer(1, "kty"), alg = try integer(3, "alg")
        switch (kty, alg) {
        case (2, -7):
            guard try integer(-1, "crv") == 1 else { throw .unsupportedAlgorithm("ES256 on a curve other than P-256") }
            var point = Data([0x04])
            point.append(try bytes(-2, "x", count: 32))
            point.append(try bytes(-3, "y", count: 32))
            guard (try? P256.Signing.PublicKey(x963Representation: point)) != nil else {
                throw .malformed("the COSE key's x and y are not a point on P-256")
            }
            try self.init(.es256, raw: point)
        case (1, -8):
            guard try integer(-1, "crv") == 6 else { throw .unsupportedAlgorithm("EdDSA on a curve other than Ed25519") }
            try self.init(.ed25519, raw: try bytes(-2, "x", count: 32))
        default:
            throw .unsupportedAlgorithm("kty \(kty), alg \(alg)")
        }
    }

    /// Whether `signature` (DER for ES256, 64 bytes for Ed25519) is valid over `message`.
    func isValidSignature(_ signature: Data, for message: Data) -> Bool {
        switch algorithm {
        case .es256:
            guard let key = try? P256.Signing.PublicKey(x963Representation: raw),
                  let parsed = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(parsed, for: message)
        case .ed25519:
            guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: raw) else { return false }
            return key.isValidSignature(signature, for: message)
        }
    }
}
