import Foundation

/// The `[c]`, `[d]` and `[cd]` modifiers of a string operator.
struct StringOptions: OptionSet, Sendable, Hashable {
    let rawValue: UInt8
    /// `[c]`: case-insensitive.
    static let caseInsensitive = StringOptions(rawValue: 1)
    /// `[d]`: diacritic-insensitive.
    static let diacriticInsensitive = StringOptions(rawValue: 2)

    /// Folds `text` so that plain comparison of folded strings honours these options.
    func fold(_ text: String) -> String {
        if isEmpty { return text }
        var options: String.CompareOptions = []
        if contains(.caseInsensitive) { options.insert(.caseInsensitive) }
        if contains(.diacriticInsensitive) { options.insert(.diacriticInsensitive) }
        return text.folding(options: options, locale: nil)
    }
}
