import RBSMoney

/// Characters that change how text looks without being seen: the bidirectional controls (embeddings, overrides,
/// isolates, the directional marks, U+061C) and every other invisible format character (Unicode category Cf: zero
/// width space and joiners, word joiner, the byte order mark, the soft hyphen, …), and the line and paragraph
/// separators U+2028 and U+2029 (a line break inside a name, which a review shows as one line or two). A payee name or purpose holding one
/// can read differently on the screen from the bytes that are signed (Trojan Source, CVE-2021-42574), so no text
/// atom and no document field may hold one — refused by the form when typed, and by the core bank whatever path a
/// document comes by.
public enum InvisibleText {
    /// The first such character of `text`, with its position, or nil.
    public static func first(in text: String) -> InvisibleCharacter? {
        // Most text is ASCII (account numbers, amounts, codes): no byte below U+00AD can be one, so such text is
        // passed by its bytes without asking Unicode's tables about each character (the core checks every field of
        // every document it journals, on group commit's one committing thread).
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return nil }
        for (offset, scalar) in text.unicodeScalars.enumerated() where isInvisible(scalar) {
            return InvisibleCharacter(scalar: scalar, position: offset + 1)
        }
        return nil
    }

    /// Whether `scalar` is a bidirectional control, another format character (Cf), or a line or paragraph separator
    /// (Zl, Zp). U+061C, U+200E and U+200F are Cf too; they are named for the reader. The first format character is
    /// U+00AD (the soft hyphen), and the Cyrillic block (U+0400…U+04FF) holds none, so those are answered without the
    /// tables.
    public static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.value < 0xAD || (0x0400...0x04FF).contains(scalar.value) { return false }
        switch scalar.properties.generalCategory {
        case .format, .lineSeparator, .paragraphSeparator: return true
        default: return false
        }
    }
}

/// One invisible character found in a text: what it is and where.
public struct InvisibleCharacter: Sendable, Hashable, CustomStringConvertible {
    public let scalar: Unicode.Scalar
    /// Its position in the text, counting characters (Unicode scalars) from 1.
    public let position: Int

    /// "U+202E".
    public var code: String { UnicodeText.codePoint(scalar.value) }

    /// Its Unicode name in small letters: "right-to-left override", "zero width space".
    public var name: String { (scalar.properties.name ?? "format character").lowercased() }

    /// Whether it is one of the bidirectional controls (the ones that reorder what is shown).
    public var isBidirectionalControl: Bool {
        switch scalar.value {
        case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: true
        default: false
        }
    }

    /// "an invisible right-to-left override (U+202E) at position 5".
    public var description: String { "an invisible \(name) (\(code)) at position \(position)" }
}
