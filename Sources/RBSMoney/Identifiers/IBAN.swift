/// The international bank account number (ISO 13616).
public enum IBAN {
    /// Whether `text` is a valid IBAN: spaces ignored, 2 capital letters, 2 check digits, 11–30 alphanumerics
    /// (15–34 in all); moving the first four characters to the end and reading letters as 10…35 gives mod 97 == 1.
    public static func isValid(_ text: String) -> Bool {
        let bytes = text.utf8.filter { $0 != 0x20 }
        guard bytes.count >= 15, bytes.count <= 34 else { return false }
        func isUpper(_ b: UInt8) -> Bool { b >= 0x41 && b <= 0x5A }
        func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
        guard isUpper(bytes[0]), isUpper(bytes[1]), isDigit(bytes[2]), isDigit(bytes[3]) else { return false }
        var remainder = 0
        for b in bytes[4...] + bytes[0..<4] {
            if isDigit(b) {
                remainder = (remainder * 10 + Int(b - 0x30)) % 97
            } else if isUpper(b) {
                remainder = (remainder * 100 + Int(b - 0x41 + 10)) % 97
            } else {
                return false
            }
        }
        return remainder == 1
    }
}
