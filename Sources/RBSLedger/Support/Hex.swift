import Foundation

/// Lowercase hexadecimal text for bytes, and back: the one codec of the package (document ids, key ids, nonces,
/// the journal's hashes, the trust files' keys and signatures, plugin content hashes).
package enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    /// Lowercase hex, two characters a byte.
    package static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * 2)
        append(bytes, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// The lowercase hex digits of `bytes` appended to `out`.
    package static func append<Bytes: Sequence>(_ bytes: Bytes, to out: inout [UInt8]) where Bytes.Element == UInt8 {
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
    }

    /// Bytes from hex text; `nil` unless every character is a hex digit and the length is even.
    /// Upper- and lowercase digits are accepted unless `lowercaseOnly` is set.
    package static func decode(_ text: String, lowercaseOnly: Bool = false) -> Data? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        var out = Data(capacity: utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = value(utf8[index], lowercaseOnly), let low = value(utf8[index + 1], lowercaseOnly) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    private static func value(_ c: UInt8, _ lowercaseOnly: Bool) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F") where !lowercaseOnly: return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
