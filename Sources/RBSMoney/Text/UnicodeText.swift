/// What every reader of untrusted bytes and text says about them: where bytes stop being UTF-8, and how a character
/// that must not be shown as itself is named (a payment code's field, a typed payee, a request's body, an argument).
public enum UnicodeText {
    /// The offset of the first byte of `bytes` that is not part of a UTF-8 character (where the first bad sequence
    /// starts), or nil when all of them are UTF-8 text.
    public static func firstInvalidUTF8(in bytes: some Collection<UInt8>) -> Int? {
        if bytes.allSatisfy({ $0 < 0x80 }) { return nil }
        var iterator = bytes.makeIterator()
        var codec = UTF8()
        var offset = 0
        while true {
            switch codec.decode(&iterator) {
            case .scalarValue(let scalar): offset += UTF8.width(scalar)
            case .emptyInput: return nil
            case .error: return offset
            }
        }
    }

    /// `character` as a message quotes it: between `open` and `close` when it shows as itself, else named by its code
    /// points ("U+202E", "U+0035 U+0301"): a control, format (a bidi override reverses the rest of the line),
    /// combining mark, line or paragraph separator or unassigned character would not be seen as what was typed.
    public static func quoted(_ character: Character, open: String = "'", close: String = "'") -> String {
        let hidden: Set<Unicode.GeneralCategory> = [.control, .format, .nonspacingMark, .spacingMark, .enclosingMark,
                                                    .lineSeparator, .paragraphSeparator, .privateUse, .surrogate,
                                                    .unassigned, .spaceSeparator]
        guard character.unicodeScalars.contains(where: { hidden.contains($0.properties.generalCategory) && $0 != " " }) else {
            return open + String(character) + close
        }
        return character.unicodeScalars.map { codePoint($0.value) }.joined(separator: " ")
    }

    /// A character named by its code point, at least four hex digits: "U+001B", "U+202E".
    public static func codePoint(_ value: UInt32) -> String {
        let hex = String(value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
