/// Values `plugin check` feeds to atoms: random ones (deterministic per seed), plausible ones and invalid UTF-8.
struct CheckValues {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    /// Byte strings that are not UTF-8: a lone continuation byte, a truncated sequence, an overlong encoding,
    /// a surrogate, bytes that never occur.
    static let invalidUTF8: [[UInt8]] = [
        [0x80], [0xC3, 0x28], [0xE2, 0x82], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xFF, 0xFE, 0xFD],
        [0x61, 0x62, 0xF0, 0x28, 0x8C, 0x28, 0x63],
    ]

    /// A value a person could plausibly have entered for the atom.
    static func plausible(for atom: AtomDescriptor) -> String {
        switch atom.kind {
        case .input:
            switch atom.inputType {
            case .text: return String(repeating: "Test ", count: max(1, atom.minLength / 5 + 1)).trimmingTrailingSpace
            case .digits: return String(repeating: "1", count: max(atom.minLength, min(atom.maxLength == 0 ? 10 : atom.maxLength, 10)))
            case .number: return "42"
            case .amount: return "100.00"
            case .date: return "2026-01-15"
            }
        case .enumeration: return atom.options.first?.value ?? "1"
        case .toggle: return "yes"
        case .account: return "1"
        case .text, .button: return ""
        }
    }

    /// Values to try in turn until the atom's own checks (valid-if, the plugin's marks) accept one: the plausible
    /// value, then well-formed Russian banking identifiers (INN of 10 and 12 digits, BIC, a 20-digit account with a
    /// right control key for that BIC, KPP, an OKTMO, a card number, "0"), every enum option, the other accounts.
    static func candidates(for atom: AtomDescriptor) -> [String] {
        var list = [plausible(for: atom)]
        switch atom.kind {
        case .input where atom.inputType == .digits || atom.inputType == .text:
            // "0": the value a budget payment's fields 22 and 106–109 take when there is nothing to say (order 107n);
            // "01": a two-digit code written with its zero (the payer's status of field 101).
            list += ["7707083893", "500100732259", "044525225", "40702810938000000001", "770701001", "45000000", "4111111111111111",
                     "0", "01"]
        case .enumeration: list += atom.options.map(\.value)
        case .account: list += ["2", "3", "4"]
        default: break
        }
        return list
    }

    /// A random value: half shaped like the atom's type, half anything at all.
    mutating func random(for atom: AtomDescriptor) -> String {
        let shaped = next() % 2 == 0
        guard shaped else { return garbage(length: Int(next() % 64)) }
        switch atom.kind {
        case .input:
            switch atom.inputType {
            case .text: return garbage(length: Int(next() % 40))
            case .digits: return digits(Int(next() % 30))
            case .number, .amount:
                let sign = next() % 4 == 0 ? "-" : ""
                return sign + digits(Int(next() % 12) + 1) + (next() % 2 == 0 ? "." + digits(Int(next() % 4)) : "")
            case .date:
                return "\(1900 + next() % 300)-\(String(format2: Int(next() % 14)))-\(String(format2: Int(next() % 33)))"
            }
        case .enumeration:
            let options = atom.options
            return options.isEmpty ? digits(1) : options[Int(next() % UInt64(options.count))].value
        case .toggle: return ["yes", "no", "1", "0", "maybe"][Int(next() % 5)]
        case .account: return next() % 2 == 0 ? String(next() % 6) : digits(20)
        case .text, .button: return ""
        }
    }

    private mutating func digits(_ count: Int) -> String {
        String((0..<count).map { _ in Character(String(next() % 10)) })
    }

    private mutating func garbage(length: Int) -> String {
        let pool: [Character] = Array("abcXYZ019 .,;:'\"\\%$@!?-_/\t") + ["ж", "Я", "€", "₽", "😀", "\u{0301}", "\u{200B}", "\u{FEFF}", "\0"]
        return String((0..<length).map { _ in pool[Int(next() % UInt64(pool.count))] })
    }

    /// SplitMix64.
    private mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

private extension String {
    init(format2 value: Int) { self = value < 10 ? "0\(value)" : "\(value)" }
    var trimmingTrailingSpace: String {
        var text = self
        while text.hasSuffix(" ") { text.removeLast() }
        return text
    }
}
