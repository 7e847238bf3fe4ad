import Foundation

/// Why a passkey registration or assertion (WebAuthn) was not accepted. The cases name the element that failed,
/// for tests and for the operator; what a customer is told does not (Delegated Regulation 2018/389 Art. 4: a
/// failure must not reveal which element was wrong) — see ``OneTimeCodeError/wrongPasskey(attemptsLeft:)``.
public enum PasskeyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The bytes or JSON the authenticator or browser produced do not parse; what and where.
    case malformed(String)
    /// clientDataJSON's `type` is not the expected ceremony (`webauthn.get` to sign, `webauthn.create` to register).
    case wrongType(expected: String, found: String)
    /// clientDataJSON's `challenge` is not the one expected (the document's hash, or the registration challenge).
    case wrongChallenge
    /// clientDataJSON's `origin` is not the server's origin.
    case wrongOrigin(expected: String, found: String)
    /// authenticatorData's rpIdHash is not SHA-256 of the server's relying-party id.
    case wrongRelyingParty(expected: String)
    /// The authenticator did not report the user present (flag UP).
    case userNotPresent
    /// The authenticator did not report the user verified (flag UV), which signing requires.
    case userNotVerified
    /// The signature counter did not advance past the stored one: a cloned authenticator or a replayed assertion.
    case replayedCounter(stored: UInt32, found: UInt32)
    /// The signature does not verify with the registered public key.
    case badSignature
    /// The assertion names a credential that is not the customer's registered passkey.
    case unknownCredential
    /// The COSE key's algorithm is not one the server accepts (ES256 = -7, EdDSA = -8).
    case unsupportedAlgorithm(String)
    /// No registration challenge is waiting (none was asked for, or it expired or was used).
    case noRegistrationChallenge

    public var description: String {
        switch self {
        case .malformed(let detail): detail
        case .wrongType(let expected, let found): "clientDataJSON's type is \"\(found)\", not \"\(expected)\""
        case .wrongChallenge: "clientDataJSON's challenge is not the expected one (the document's hash when signing)"
        case .wrongOrigin(let expected, let found): "clientDataJSON's origin is \"\(found)\", not the server's \"\(expected)\""
        case .wrongRelyingParty(let expected): "authenticatorData's rpIdHash is not SHA-256 of the relying party id \"\(expected)\""
        case .userNotPresent: "the authenticator did not report the user present (flag UP)"
        case .userNotVerified: "the authenticator did not report the user verified (flag UV)"
        case .replayedCounter(let stored, let found):
            "the signature counter \(found) does not advance past \(stored): a replayed assertion or a cloned authenticator"
        case .badSignature: "the signature does not verify with the registered passkey"
        case .unknownCredential: "the credential is not the customer's registered passkey"
        case .unsupportedAlgorithm(let what): "the passkey's algorithm \(what) is not supported: use ES256 (-7) or Ed25519 (-8)"
        case .noRegistrationChallenge:
            "no passkey registration is waiting: ask for a registration challenge first (it lasts five minutes and is used once)"
        }
    }
}
