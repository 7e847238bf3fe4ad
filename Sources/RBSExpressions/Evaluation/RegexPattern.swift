import Foundation

/// A MATCHES pattern compiled once: the whole string must match.
///
/// `@unchecked Sendable`: NSRegularExpression is immutable after creation and documented as thread-safe.
final class RegexPattern: @unchecked Sendable {
    private let regex: NSRegularExpression
    private let options: StringOptions

    /// Compiles `pattern`; throws NSRegularExpression's error text for a bad pattern.
    init(_ pattern: String, options: StringOptions) throws {
        self.options = options
        var regexOptions: NSRegularExpression.Options = []
        if options.contains(.caseInsensitive) { regexOptions.insert(.caseInsensitive) }
        let source = options.contains(.diacriticInsensitive)
            ? StringOptions.diacriticInsensitive.fold(pattern) : pattern
        regex = try NSRegularExpression(pattern: "\\A(?:" + source + ")\\z", options: regexOptions)
    }

    /// Whether all of `text` matches.
    func matches(_ text: String) -> Bool {
        let subject = options.contains(.diacriticInsensitive) ? StringOptions.diacriticInsensitive.fold(text) : text
        let range = NSRange(subject.startIndex..<subject.endIndex, in: subject)
        return regex.firstMatch(in: subject, options: [], range: range) != nil
    }

    /// A human-readable reason why `pattern` does not compile, or nil if it does.
    static func problem(with pattern: String, options: StringOptions) -> String? {
        do {
            _ = try RegexPattern(pattern, options: options)
            return nil
        } catch {
            return (error as NSError).localizedDescription
        }
    }
}
