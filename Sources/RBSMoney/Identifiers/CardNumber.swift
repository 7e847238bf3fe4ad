/// A payment card number (PAN), read as people write it, checked by its scheme's lengths and the Luhn digit.
///
/// Only ``masked`` and ``lastFour`` may be shown or stored: a full PAN never goes into a signed document, the
/// journal, the ledger, history or logs (PCI DSS 3.3/3.4: at most the first six and last four digits).
public struct CardNumber: Hashable, Sendable, CustomStringConvertible {
    /// The card scheme, from the number's leading digits (issuer identification number ranges).
    public enum Scheme: String, Sendable, CaseIterable {
        case mir, visa, mastercard, amex, unionPay, jcb, maestro

        /// The lengths the scheme issues.
        public var lengths: ClosedRange<Int> {
            switch self {
            case .visa: 13...19
            case .mastercard: 16...16
            case .amex: 15...15
            case .mir, .unionPay, .jcb: 16...19
            case .maestro: 12...19
            }
        }

        /// Visa issues 13, 16 and 19 digits only.
        func allows(_ length: Int) -> Bool {
            self == .visa ? [13, 16, 19].contains(length) : lengths.contains(length)
        }

        static func of(_ digits: [UInt8]) -> Scheme? {
            func prefix(_ n: Int) -> Int {
                digits.prefix(n).reduce(0) { $0 * 10 + Int($1) }
            }
            switch (prefix(1), prefix(2), prefix(4)) {
            case (_, _, 2200...2204): return .mir
            case (_, _, 2221...2720), (_, 51...55, _): return .mastercard
            case (4, _, _): return .visa
            case (_, 34, _), (_, 37, _): return .amex
            case (_, _, 3528...3589): return .jcb
            case (_, 62, _): return .unionPay
            case (_, 50, _), (_, 56...69, _): return .maestro
            default: return nil
            }
        }
    }

    /// Why a card number was refused.
    public enum Problem: Error, Sendable, Equatable, CustomStringConvertible {
        case notDigits
        case unknownScheme
        case wrongLength(Scheme, length: Int)
        case luhn

        public var description: String {
            switch self {
            case .notDigits: "a card number is 12–19 digits, in groups separated by single spaces"
            case .unknownScheme: "no card scheme (Mir, Visa, Mastercard, ...) issues numbers starting like this"
            case .wrongLength(let scheme, let length): "\(scheme.rawValue) cards do not have \(length) digits"
            case .luhn: "the check digit is wrong (Luhn); a digit is mistyped"
            }
        }
    }

    /// The digits, without spaces. Never print or store this; use ``masked``.
    public let digits: String
    public let scheme: Scheme

    /// The card number in `text`: digits, optionally in groups separated by single spaces (`4111 1111 1111 1111`)
    /// or no-break spaces; leading and trailing spaces are ignored.
    public init(_ text: String) throws(Problem) {
        var bytes: [UInt8] = []
        var lastWasSpace = true
        for scalar in text.trimmingSpaces.unicodeScalars {
            if scalar == " " || scalar == "\u{00A0}" {
                if lastWasSpace { throw .notDigits }
                lastWasSpace = true
            } else if scalar.isASCII, scalar.value >= 0x30, scalar.value <= 0x39 {
                bytes.append(UInt8(scalar.value - 0x30))
                lastWasSpace = false
            } else {
                throw .notDigits
            }
        }
        guard (12...19).contains(bytes.count) else { throw .notDigits }
        guard let scheme = Scheme.of(bytes) else { throw .unknownScheme }
        guard scheme.allows(bytes.count) else { throw .wrongLength(scheme, length: bytes.count) }
        guard Self.luhn(bytes) else { throw .luhn }
        self.digits = String(bytes.map { Character(String($0)) })
        self.scheme = scheme
    }

    /// Whether `text` is a card number ``init(_:)`` accepts.
    public static func isValid(_ text: String) -> Bool { (try? CardNumber(text)) != nil }

    /// The last four digits.
    public var lastFour: String { String(digits.suffix(4)) }

    /// The first six and last four digits, the rest as `*`, grouped by four: `4111 11** **** 1111`.
    public var masked: String {
        let chars = Array(digits)
        var out = ""
        for (i, c) in chars.enumerated() {
            if i > 0 && i % 4 == 0 { out.append(" ") }
            out.append(i < 6 || i >= chars.count - 4 ? c : "*")
        }
        return out
    }

    /// The masked form: a `CardNumber` never prints its digits.
    public var description: String { masked }

    /// Whether `text` (at least 2 ASCII digits, nothing else) passes the Luhn mod-10 check.
    public static func luhn(_ text: String) -> Bool {
        var bytes: [UInt8] = []
        for b in text.utf8 {
            guard b >= 0x30, b <= 0x39 else { return false }
            bytes.append(b - 0x30)
        }
        return bytes.count >= 2 && luhn(bytes)
    }

    private static func luhn(_ digits: [UInt8]) -> Bool {
        var sum = 0
        for (i, d) in digits.reversed().enumerated() {
            var v = Int(d)
            if i % 2 == 1 {
                v *= 2
                if v > 9 { v -= 9 }
            }
            sum += v
        }
        return sum % 10 == 0
    }
}

extension String {
    var trimmingSpaces: Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\u{00A0}" }
        guard let start = firstIndex(where: { !isSpace($0) }), let end = lastIndex(where: { !isSpace($0) }) else { return "" }
        return self[start...end]
    }
}
