import Crypto
import Foundation
@testable import RBSLedger

/// A software passkey: what a browser's authenticator does, with a P-256 (or Ed25519) key in memory, so the
/// ledger's WebAuthn checks can be driven element by element.
struct SoftwarePasskey {
    enum Key { case p256(P256.Signing.PrivateKey), ed25519(Curve25519.Signing.PrivateKey) }
    let key: Key
    let credentialId = Data((0..<16).map { UInt8($0 * 7 & 0xFF) })
    var counter: UInt32 = 0

    init(ed25519: Bool = false) { key = ed25519 ? .ed25519(.init()) : .p256(.init()) }

    /// The COSE_Key of the public key.
    var cose: [UInt8] {
        switch key {
        case .p256(let k):
            let point = Array(k.publicKey.x963Representation)
            return CBOR.map([(CBOR.int(1), CBOR.int(2)), (CBOR.int(3), CBOR.int(-7)), (CBOR.int(-1), CBOR.int(1)),
                             (CBOR.int(-2), CBOR.bytes(Array(point[1..<33]))), (CBOR.int(-3), CBOR.bytes(Array(point[33..<65])))])
        case .ed25519(let k):
            return CBOR.map([(CBOR.int(1), CBOR.int(1)), (CBOR.int(3), CBOR.int(-8)), (CBOR.int(-1), CBOR.int(6)),
                             (CBOR.int(-2), CBOR.bytes(Array(k.publicKey.rawRepresentation)))])
        }
    }

    static func authenticatorData(rpId: String, flags: UInt8, counter: UInt32) -> Data {
        var data = Data(SHA256.hash(data: Data(rpId.utf8)))
        data.append(flags)
        data.append(contentsOf: [UInt8(counter >> 24), UInt8(counter >> 16 & 0xFF), UInt8(counter >> 8 & 0xFF), UInt8(counter & 0xFF)])
        return data
    }

    static func clientData(type: String, challenge: String, origin: String) -> Data {
        Data("{\"type\":\"\(type)\",\"challenge\":\"\(challenge)\",\"origin\":\"\(origin)\",\"crossOrigin\":false}".utf8)
    }

    /// `navigator.credentials.create`: the attestation object ("none") and clientDataJSON.
    func registration(challenge: Data, origin: String = "http://localhost:8080", rpId: String = "localhost",
                      flags: UInt8 = 0x45) -> (attestation: Data, clientData: Data) {
        var authData = Self.authenticatorData(rpId: rpId, flags: flags, counter: 0)
        authData.append(Data(repeating: 0, count: 16))  // AAGUID
        authData.append(contentsOf: [0, UInt8(credentialId.count)])
        authData.append(credentialId)
        authData.append(contentsOf: cose)
        let attestation = CBOR.map([(CBOR.text("fmt"), CBOR.text("none")), (CBOR.text("attStmt"), CBOR.map([])),
                                    (CBOR.text("authData"), CBOR.bytes(Array(authData)))])
        return (Data(attestation), Self.clientData(type: "webauthn.create", challenge: Base64URL.encode(challenge), origin: origin))
    }

    /// `navigator.credentials.get` for `challenge` (base64url); the counter advances unless told otherwise.
    mutating func assertion(challenge: String, origin: String = "http://localhost:8080", rpId: String = "localhost",
                            type: String = "webauthn.get", flags: UInt8 = 0x05, counter: UInt32? = nil) -> PasskeyAssertion {
        if counter == nil { self.counter += 1 }
        let authData = Self.authenticatorData(rpId: rpId, flags: flags, counter: counter ?? self.counter)
        let clientData = Self.clientData(type: type, challenge: challenge, origin: origin)
        var signed = authData
        signed.append(Data(SHA256.hash(data: clientData)))
        let signature: Data
        switch key {
        case .p256(let k): signature = try! k.signature(for: signed).derRepresentation
        case .ed25519(let k): signature = try! k.signature(for: signed)
        }
        return PasskeyAssertion(credentialId: credentialId, authenticatorData: authData, clientDataJSON: clientData, signature: signature)
    }
}

/// Just enough CBOR writing for the tests' attestation objects.
enum CBOR {
    static func head(_ major: UInt8, _ n: UInt64) -> [UInt8] {
        switch n {
        case 0..<24: [major << 5 | UInt8(n)]
        case 24..<256: [major << 5 | 24, UInt8(n)]
        default: [major << 5 | 25, UInt8(n >> 8), UInt8(n & 0xFF)]
        }
    }
    static func int(_ n: Int) -> [UInt8] { n >= 0 ? head(0, UInt64(n)) : head(1, UInt64(-1 - n)) }
    static func bytes(_ b: [UInt8]) -> [UInt8] { head(2, UInt64(b.count)) + b }
    static func text(_ t: String) -> [UInt8] { head(3, UInt64(t.utf8.count)) + Array(t.utf8) }
    static func map(_ pairs: [([UInt8], [UInt8])]) -> [UInt8] { head(5, UInt64(pairs.count)) + pairs.flatMap { $0.0 + $0.1 } }
}
