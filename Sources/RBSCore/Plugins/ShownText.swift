import RBSMoney

/// Control characters in what a plugin gives a person to read (titles, captions, errors, its log and standard error):
/// a terminal runs them — an escape sequence clears the screen or recolours it, a carriage return writes a line over
/// another — so such a text is refused where the plugin hands it over, or shown with each control named.
public enum ShownText {
    /// The first control character of `text` (C0, DEL, C1; a line feed only unless `allowingLineFeeds`), named as
    /// `U+001B`, or nil.
    public static func control(in text: String, allowingLineFeeds: Bool = false) -> String? {
        guard let scalar = text.unicodeScalars.first(where: {
            $0.properties.generalCategory == .control && !(allowingLineFeeds && $0 == "\n")
        }) else { return nil }
        return name(scalar)
    }

    /// `text` with every control character but a line feed and a tab written as its name (`<U+001B>`): what a
    /// message quotes of someone's input (a request id, an account typed) reaches the terminal as text, never as an
    /// escape sequence.
    public static func visible(_ text: String) -> String {
        func hidden(_ scalar: Unicode.Scalar) -> Bool {
            scalar.properties.generalCategory == .control && scalar != "\n" && scalar != "\t"
        }
        guard text.unicodeScalars.contains(where: hidden) else { return text }
        var shown = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if hidden(scalar) { shown.append(contentsOf: "<\(name(scalar))>".unicodeScalars) } else { shown.append(scalar) }
        }
        return String(shown)
    }

    static func name(_ scalar: Unicode.Scalar) -> String { UnicodeText.codePoint(scalar.value) }
}
