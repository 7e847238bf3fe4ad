import Foundation

/// HMAC-based one-time codes, RFC 4226.
public enum HOTP {
    /// The code for `counter`: dynamic truncation of HMAC(secret, counter as 8 big-endian bytes), modulo
    /// 10^digits, zero-padded to `digits` (6 to 9).
    public static func code(secret: Data, counter: UInt64, digits: Int = 6, algorithm: OTPAlgorithm = .sha1) -> String {
        let digits = min(max(digits, 6), 9)
        var message = Data(count: 8)
        for i in 0..<8 { message[i] = UInt8(truncatingIfNeeded: counter >> UInt64(56 - 8 * i)) }
        let mac = algorithm.mac(key: secret, message: message)
        let offset = Int(mac[mac.count - 1] & 0x0F)
        let binary = UInt32(mac[offset] & 0x7F) << 24 | UInt32(mac[offset + 1]) << 16
            | UInt32(mac[offset + 2]) << 8 | UInt32(mac[offset + 3])
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        let text = String(binary % modulus)
        return String(repeating: "0", count: digits - text.count) + text
    }
}
