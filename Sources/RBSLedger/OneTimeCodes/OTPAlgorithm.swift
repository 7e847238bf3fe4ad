import Crypto
import Foundation

/// The HMAC hash of a one-time code (RFC 6238 allows three; authenticator apps use SHA1).
public enum OTPAlgorithm: String, Sendable, Hashable, CaseIterable {
    case sha1 = "SHA1"
    case sha256 = "SHA256"
    case sha512 = "SHA512"

    func mac(key: Data, message: Data) -> [UInt8] {
        let symmetricKey = SymmetricKey(data: key)
        switch self {
        case .sha1: return Array(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: symmetricKey))
        case .sha256: return Array(HMAC<SHA256>.authenticationCode(for: message, using: symmetricKey))
        case .sha512: return Array(HMAC<SHA512>.authenticationCode(for: message, using: symmetricKey))
        }
    }
}
