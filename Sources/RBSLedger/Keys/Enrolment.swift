import Foundation

/// What `rbs-host keys init` shows once: the public key id and the TOTP secret for the authenticator app.
public struct Enrolment: Sendable, Hashable {
    public let name: String
    /// 16 hex characters (see ``SigningIdentity/keyId``).
    public let keyId: String
    /// The raw 32-byte Ed25519 public key.
    public let publicKey: Data
    /// The raw 20-byte TOTP secret.
    public let totpSecret: Data

    /// The secret as authenticator apps type it: Base32 without padding.
    public var secretBase32: String { Base32.encode(totpSecret, padding: false) }

    /// `otpauth://totp/rbs-host:NAME?secret=BASE32&issuer=rbs-host&algorithm=SHA1&digits=6&period=30`,
    /// NAME percent-encoded (everything but RFC 3986 unreserved characters), for a QR code.
    public var uri: String {
        "otpauth://totp/rbs-host:\(Self.percentEncode(name))?secret=\(secretBase32)&issuer=rbs-host&algorithm=SHA1&digits=6&period=30"
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
