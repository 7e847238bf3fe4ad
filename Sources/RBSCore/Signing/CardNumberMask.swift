import RBSExpressions

/// Finds card numbers (PAN: 13–19 digits, optionally grouped by single spaces or dashes, passing Luhn) in text a
/// person is shown or that would be stored (the review, history), and masks them as PCI DSS 3.4 allows at most:
/// the first six and the last four digits (`411111******1111`).
public enum CardNumberMask {
    /// `text` with every card number in it masked.
    public static func masked(_ text: String) -> String {
        var result = ""
        for run in runs(in: text) {
            switch run {
            case .other(let other): result += other
            case .digits(let raw, let digits):
                result += isCardNumber(digits) ? mask(digits) : raw
            }
        }
        return result
    }

    /// Whether `text` holds a card number anywhere.
    public static func containsCardNumber(_ text: String) -> Bool {
        runs(in: text).contains { if case .digits(_, let digits) = $0 { isCardNumber(digits) } else { false } }
    }

    /// Whether `text` holds a run of 13–19 digits, a card number's length, whether or not its check digit is right:
    /// what the REPL keeps out of its history file. A card number mistyped by one digit (failing the check) is
    /// still nearly the card's number; a line holding one was written to the history, where the right one was not.
    public static func mayContainCardNumber(_ text: String) -> Bool {
        runs(in: text).contains { if case .digits(_, let digits) = $0 { (13...19).contains(digits.count) } else { false } }
    }

    /// The first six and last four digits, the rest as `*`.
    public static func mask(_ digits: String) -> String {
        guard digits.count > 10 else { return String(repeating: "*", count: digits.count) }
        return String(digits.prefix(6)) + String(repeating: "*", count: digits.count - 10) + String(digits.suffix(4))
    }

    static func isCardNumber(_ digits: String) -> Bool {
        (13...19).contains(digits.count) && Validators.luhn(digits)
    }

    private enum Run {
        case other(String)
        /// The text as written, and its digits alone.
        case digits(String, String)
    }

    /// Splits text into digit groups (digits joined by single spaces or dashes) and everything else.
    private static func runs(in text: String) -> [Run] {
        var runs: [Run] = []
        var other = "", raw = "", digits = ""
        var pendingSeparator: Character?
        func flushDigits() {
            guard !raw.isEmpty else { return }
            runs.append(.digits(raw, digits))
            raw = ""; digits = ""
            if let separator = pendingSeparator { other.append(separator); pendingSeparator = nil }
        }
        for character in text {
            if character.isASCII, character.isNumber {
                if raw.isEmpty, !other.isEmpty { runs.append(.other(other)); other = "" }
                if let separator = pendingSeparator { raw.append(separator); pendingSeparator = nil }
                raw.append(character)
                digits.append(character)
            } else if (character == " " || character == "-"), !raw.isEmpty, pendingSeparator == nil {
                pendingSeparator = character
            } else {
                flushDigits()
                other.append(character)
            }
        }
        flushDigits()
        if !other.isEmpty { runs.append(.other(other)) }
        return runs
    }
}
