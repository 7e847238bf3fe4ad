import Foundation

/// Base32 per RFC 4648 §6 (alphabet A–Z, 2–7), as authenticator apps expect it for TOTP secrets.
public enum Base32 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// The Base32 text of `data`; with `padding` the length is a multiple of 8 ('=' fills it).
    public static func encode(_ data: Data, padding: Bool = true) -> String {
        var out: [UInt8] = []
        var buffer: UInt64 = 0
        var bits = 0
        for byte in data {
            buffer = buffer << 8 | UInt64(byte)
            bits += 8
            while bits >= 5 {
                out.append(alphabet[Int(buffer >> UInt64(bits - 5) & 0x1F)])
                bits -= 5
            }
        }
        if bits > 0 { out.append(alphabet[Int(buffer << UInt64(5 - bits) & 0x1F)]) }
        if padding { while out.count % 8 != 0 { out.append(UInt8(ascii: "=")) } }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of Base32 text, or `nil` when it is not Base32. Lowercase letters are accepted (apps show
    /// secrets either way); padding may be left out, but when present it must be the right amount; leftover
    /// bits must be zero.
    public static func decode(_ text: String) -> Data? {
        var symbols = Array(text.utf8)
        if let firstPad = symbols.firstIndex(of: UInt8(ascii: "=")) {
            guard symbols.count % 8 == 0, symbols[firstPad...].allSatisfy({ $0 == UInt8(ascii: "=") }) else { return nil }
            symbols.removeSubrange(firstPad...)
        }
        // Only these remainders of a final group are possible (1, 2, 3, 4 bytes).
        guard [0, 2, 4, 5, 7].contains(symbols.count % 8) else { return nil }
        var out = Data()
        var buffer: UInt64 = 0
        var bits = 0
        for symbol in symbols {
            let value: UInt8
            switch symbol {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = symbol - UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = symbol - UInt8(ascii: "a")
            case UInt8(ascii: "2")...UInt8(ascii: "7"): value = symbol - UInt8(ascii: "2") + 26
            default: return nil
            }
            buffer = buffer << 5 | UInt64(value)
            bits += 5
            if bits >= 8 {
                out.append(UInt8(truncatingIfNeeded: buffer >> UInt64(bits - 8)))
                bits -= 8
            }
        }
        guard buffer & ((1 << UInt64(bits)) - 1) == 0 else { return nil }
        return out
    }
}
