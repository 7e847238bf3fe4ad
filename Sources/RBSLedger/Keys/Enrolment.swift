import Foundation

/// What `rbs-host keys init` shows once: the public key id and the secret for the authenticator (TOTP or OCRA).
public struct Enrolment: Sendable, Hashable {
    public let name: String
    /// 16 hex characters (see ``SigningIdentity/keyId``).
    public let keyId: String
    /// The raw 32-byte Ed25519 public key.
    public let publicKey: Data
    /// The method and its secret.
    public let authenticator: Authenticator

    /// A TOTP enrolment.
    public init(name: String, keyId: String, publicKey: Data, totpSecret: Data) {
        self.init(name: name, keyId: keyId, publicKey: publicKey, authenticator: .totp(secret: totpSecret))
    }

    init(name: String, keyId: String, publicKey: Data, authenticator: Authenticator) {
        self.name = name
        self.keyId = keyId
        self.publicKey = publicKey
        self.authenticator = authenticator
    }

    /// The raw 20-byte TOTP secret, or `nil` for an OCRA enrolment.
    public var totpSecret: Data? {
        if case .totp(let secret) = authenticator { return secret }
        return nil
    }

    /// The TOTP secret as authenticator apps type it: Base32 without padding (`nil` for OCRA).
    public var secretBase32: String? { totpSecret.map { Base32.encode($0, padding: false) } }

    /// The OCRA secret as lowercase hex, as RFC 6287's examples write keys (`nil` for TOTP).
    public var ocraSecretHex: String? {
        if case .ocra(_, let secret) = authenticator { return Hex.encode(secret) }
        return nil
    }

    /// `otpauth://totp/rbs-host:NAME?secret=BASE32&issuer=rbs-host&algorithm=SHA1&digits=6&period=30`,
    /// NAME percent-encoded (everything but RFC 3986 unreserved characters), for a QR code; `nil` for OCRA
    /// (there is no standard URI for OCRA suites).
    public var uri: String? {
        guard let secretBase32 else { return nil }
        return "otpauth://totp/rbs-host:\(Self.percentEncode(name))?secret=\(secretBase32)&issuer=rbs-host&algorithm=SHA1&digits=6&period=30"
    }

    static func percentEncode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + Hex.encode([byte]).uppercased()
            }
        }
        return out
    }
}
