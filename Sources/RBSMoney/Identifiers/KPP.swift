/// The tax registration reason code (КПП): 9 characters `NNNNPPXXX` — tax office (4 digits), reason (2 digits or
/// capital Latin letters A–Z, allowed since 2019 by the Federal Tax Service), number (3 digits). The tax office's
/// code is never `0000`: a KPP of zeros has the right shape but names no tax office.
public enum KPP {
    public static func isValid(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 9, bytes[0..<4] != [0x30, 0x30, 0x30, 0x30] else { return false }
        for (i, b) in bytes.enumerated() {
            let isDigit = b >= 0x30 && b <= 0x39
            let isUpper = b >= 0x41 && b <= 0x5A
            guard isDigit || ((i == 4 || i == 5) && isUpper) else { return false }
        }
        return true
    }
}
