/// Check-digit validators for Russian banking identifiers, IBAN and Luhn, implementing the official algorithms.
///
/// All validators take the text exactly as entered: no trimming (except spaces in an IBAN), ASCII digits only.
public enum Validators {
    /// The ASCII digits of `text`, or nil when it has any other character or a length other than `count`.
    static func digits(_ text: String, count: Int) -> [Int]? {
        var result: [Int] = []
        result.reserveCapacity(count)
        for byte in text.utf8 {
            guard byte >= 0x30, byte <= 0x39, result.count < count else { return nil }
            result.append(Int(byte - 0x30))
        }
        return result.count == count ? result : nil
    }

    private static func innControl(_ digits: [Int], weights: [Int]) -> Int {
        var sum = 0
        for (d, w) in zip(digits, weights) { sum += d * w }
        return sum % 11 % 10
    }

    /// Whether `text` is a valid INN (taxpayer number): 10 digits for an organisation, 12 for a person,
    /// with control digits `sum(digit × weight) mod 11 mod 10`.
    public static func isInn(_ text: String) -> Bool {
        if let d = digits(text, count: 10) {
            return innControl(d, weights: [2, 4, 10, 3, 5, 9, 4, 6, 8]) == d[9]
        }
        if let d = digits(text, count: 12) {
            return innControl(d, weights: [7, 2, 4, 10, 3, 5, 9, 4, 6, 8]) == d[10]
                && innControl(d, weights: [3, 7, 2, 4, 10, 3, 5, 9, 4, 6, 8]) == d[11]
        }
        return false
    }

    /// Whether `text` is a well-formed KPP (tax registration reason code): `^\d{4}[0-9A-Z]{2}\d{3}$`.
    public static func isKpp(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 9 else { return false }
        for (i, b) in bytes.enumerated() {
            let isDigit = b >= 0x30 && b <= 0x39
            let isUpper = b >= 0x41 && b <= 0x5A
            if i == 4 || i == 5 {
                guard isDigit || isUpper else { return false }
            } else if !isDigit {
                return false
            }
        }
        return true
    }

    /// Whether `text` is a well-formed BIC of the Bank of Russia: exactly 9 digits.
    public static func isBic(_ text: String) -> Bool {
        digits(text, count: 9) != nil
    }

    /// The three digits the Bank of Russia's control-key algorithm puts before a 20-digit account:
    /// "0" + BIC digits 5–6 for a Bank of Russia office (BIC ending in 000 or 001), otherwise BIC digits 7–9.
    private static func accountPrefix(bic: [Int]) -> [Int] {
        let tail = Array(bic[6..<9])
        if tail == [0, 0, 0] || tail == [0, 0, 1] { return [0, bic[4], bic[5]] }
        return tail
    }

    private static func keySum(_ digits: [Int]) -> Int {
        let weights = [7, 1, 3]
        var sum = 0
        for (i, d) in digits.enumerated() { sum += d * weights[i % 3] % 10 }
        return sum % 10
    }

    /// Whether the control key (9th digit) of the 20-digit `account` is right for the bank with `bic`
    /// (Bank of Russia letter No. 515 of 8 September 1997: weights 7, 1, 3 over prefix + account, sum ≡ 0 mod 10).
    public static func accountKeyOk(account: String, bic: String) -> Bool {
        guard let a = digits(account, count: 20), let b = digits(bic, count: 9) else { return false }
        return keySum(accountPrefix(bic: b) + a) == 0
    }

    /// The control key that position 9 of `account` must hold for `bic`, or nil when `account` is not 20 digits
    /// (its 9th character is ignored and may be a placeholder) or `bic` is not 9 digits. Use it to generate valid demo accounts.
    public static func accountKey(for account: String, bic: String) -> Character? {
        var chars = Array(account)
        if chars.count == 20 { chars[8] = "0" }
        guard var a = digits(String(chars), count: 20), let b = digits(bic, count: 9) else { return nil }
        let prefix = accountPrefix(bic: b)
        for key in 0...9 {
            a[8] = key
            if keySum(prefix + a) == 0 { return Character(String(key)) }
        }
        return nil
    }

    /// Whether `text` is a valid IBAN (ISO 13616): spaces ignored, 2 letters, 2 check digits, up to 30
    /// alphanumerics; moving the first four characters to the end and reading letters as 10...35 gives mod 97 == 1.
    public static func isIban(_ text: String) -> Bool {
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

    /// Whether `text` (at least 2 ASCII digits) passes the Luhn mod-10 check used by card numbers.
    public static func luhn(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count >= 2 else { return false }
        var sum = 0
        for (i, b) in bytes.reversed().enumerated() {
            guard b >= 0x30, b <= 0x39 else { return false }
            var d = Int(b - 0x30)
            if i % 2 == 1 {
                d *= 2
                if d > 9 { d -= 9 }
            }
            sum += d
        }
        return sum % 10 == 0
    }
}
