import Crypto
import Foundation

/// How the person authorises a signature: the second factor the host checks before it signs with its key.
public enum Authenticator: Sendable, Hashable {
    /// A 6-digit TOTP code (RFC 6238, SHA1, 30 s) with this secret: it proves the person holds the
    /// authenticator now, not what they approved — the same code fits every document of its 30 seconds.
    case totp(secret: Data)
    /// An OCRA response (RFC 6287) to a challenge derived from the document: it answers that document only.
    case ocra(suite: OCRASuite, secret: Data)

    /// Which method this is.
    public var method: SigningMethod {
        switch self {
        case .totp: .totp
        case .ocra: .ocra
        }
    }

    /// The suite as the journal records it (`TOTP-SHA1-6-30S` for TOTP).
    public var suiteText: String {
        switch self {
        case .totp: SigningMethod.totpSuite
        case .ocra(let suite, _): suite.text
        }
    }

    /// First 16 hex digits of SHA-256 over a label and the secret: names the secret in the journal (so `verify`
    /// knows whether the enrolled secret is the one that answered) without revealing it.
    public var secretId: String {
        let secret: Data
        switch self {
        case .totp(let bytes): secret = bytes
        case .ocra(_, let bytes): secret = bytes
        }
        var input = Data("rbs-host authenticator secret id\0".utf8)
        input.append(secret)
        return String(Hex.encode(SHA256.hash(data: input)).prefix(16))
    }
}

/// The signing method named in `keys show`, the review and the journal.
public enum SigningMethod: String, Sendable, Hashable, Codable, CaseIterable {
    case totp, ocra
    /// A passkey (WebAuthn) of the customer's own device signed the document's hash (`rbs-host serve`).
    case passkey

    /// How the journal names TOTP's parameters.
    public static let totpSuite = "TOTP-SHA1-6-30S"

    /// Whether the code depends on the document (dynamic linking, Delegated Regulation 2018/389 Art. 5).
    public var isTransactionBound: Bool { self != .totp }

    /// One line for people: the method and whether it is bound to the transaction.
    public var label: String {
        switch self {
        case .totp: "TOTP one-time code — NOT bound to the transaction (proves presence only; no dynamic linking)"
        case .ocra: "OCRA challenge–response — bound to this document's amount and payee (dynamic linking)"
        case .passkey: "Passkey — the customer's device signed this document's hash (dynamic linking)"
        }
    }
}
