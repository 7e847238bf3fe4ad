import Foundation

/// The authenticator data of a WebAuthn ceremony (WebAuthn §6.1): rpIdHash (32 bytes), flags (1), signCount
/// (4, big-endian), then at registration the attested credential: AAGUID (16), credential id length (2),
/// credential id, COSE public key.
struct AuthenticatorData: Sendable {
    let rpIdHash: Data
    let flags: UInt8
    let signCount: UInt32
    /// The credential id and public key, present at registration (flag AT).
    let credential: (id: Data, key: PasskeyKey)?

    var userPresent: Bool { flags & 0x01 != 0 }
    var userVerified: Bool { flags & 0x04 != 0 }

    init(_ data: Data) throws(PasskeyError) {
        let bytes = Array(data)
        guard bytes.count >= 37 else {
            throw .malformed("authenticatorData is \(bytes.count) bytes; it has at least 37 (rpIdHash, flags, signCount)")
        }
        rpIdHash = Data(bytes[0..<32])
        flags = bytes[32]
        signCount = bytes[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        let attested = flags & 0x40 != 0, extensions = flags & 0x80 != 0
        guard attested else {
            guard extensions || bytes.count == 37 else {
                throw .malformed("authenticatorData has \(bytes.count - 37) bytes after signCount but no flag says what they are")
            }
            credential = nil
            return
        }
        guard bytes.count >= 55 else { throw .malformed("authenticatorData says a credential follows (flag AT) but ends at byte \(bytes.count)") }
        let length = Int(bytes[53]) << 8 | Int(bytes[54])
        guard bytes.count >= 55 + length else {
            throw .malformed("authenticatorData's credential id of \(length) bytes runs past its end")
        }
        let id = Data(bytes[55..<(55 + length)])
        var reader = CBORReader(data, what: "the credential public key in authenticatorData", offset: 55 + length)
        let key = try PasskeyKey(cose: try reader.read())
        guard extensions || reader.offset == bytes.count else {
            throw .malformed("authenticatorData has \(bytes.count - reader.offset) bytes after the credential public key")
        }
        credential = (id, key)
    }
}

/// The fields of clientDataJSON (WebAuthn §5.8.1) the server checks.
struct ClientData: Sendable {
    let type: String
    let challenge: String
    let origin: String

    init(_ json: Data) throws(PasskeyError) {
        guard let object = (try? JSONSerialization.jsonObject(with: json)) as? [String: Any] else {
            throw .malformed("clientDataJSON is not a JSON object")
        }
        func string(_ key: String) throws(PasskeyError) -> String {
            guard let value = object[key] as? String else { throw .malformed("clientDataJSON has no string \"\(key)\"") }
            return value
        }
        type = try string("type")
        challenge = try string("challenge")
        origin = try string("origin")
    }
}
