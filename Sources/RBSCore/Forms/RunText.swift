import CRBSPlugin
import Foundation

/// One language's version of a caption or mark a plugin sets while its form runs (`rbs.run-texts/1`).
public struct TextVariant: Sendable, Hashable {
    /// An ISO 639-1 code in lowercase.
    public let language: String
    public let text: String

    public init(language: String, text: String) {
        self.language = language
        self.text = text
    }
}

/// A caption or mark a plugin set with a variant per language: the form shows the variant of the person's
/// language, and the plugin's first one to a reader of a language the plugin does not write. Kept whole, so a person
/// who switches language while the form is open reads it in the new one.
struct RunText: Equatable {
    let variants: [TextVariant]

    /// Checks variants that arrived from a plugin (through the C table or a worker's frame, which is not trusted
    /// either): 1...`RBS_RUN_TEXT_MAX_VARIANTS` of them, each language an ISO 639-1 code once, each text one a
    /// translation may be (not empty, not too long, no control or invisible format character).
    init(checking variants: [TextVariant]) throws(RunTextRefusal) {
        guard (1...Self.maxVariants).contains(variants.count) else { throw .count(variants.count) }
        var seen = Set<String>()
        for variant in variants {
            guard TranslationRules.isLanguageTag(variant.language) else { throw .language(variant.language) }
            guard seen.insert(variant.language).inserted else { throw .repeatedLanguage(variant.language) }
            if let problem = TranslationRules.problem(variant.text) { throw .text(language: variant.language, problem) }
        }
        self.variants = variants
    }

    /// The host's own `message` in every language the host speaks.
    init(_ message: HostMessage) {
        variants = HostLanguage.allCases.map { TextVariant(language: $0.rawValue, text: message.text($0)) }
    }

    /// `RBS_RUN_TEXT_MAX_VARIANTS`.
    static let maxVariants = Int(RBS_RUN_TEXT_MAX_VARIANTS)

    /// The text a reader of `language` reads.
    func text(for language: HostLanguage) -> String {
        (variants.first { $0.language == language.rawValue } ?? variants[0]).text
    }

    /// Reads the variants a plugin passed through the C table, without trusting the count, the pointers or the
    /// bytes: at most the text limit plus one byte of each string is looked at.
    static func read(count: UInt32, _ array: UnsafePointer<rbs_text_variant_t>?) throws(RunTextRefusal) -> RunText {
        guard (1...maxVariants).contains(Int(count)) else { throw .count(Int(count)) }
        guard let array else { throw .noArray }
        var variants: [TextVariant] = []
        for index in 0..<Int(count) {
            let raw = array[index]
            guard let language = raw.language.flatMap({ bounded($0, limit: 8) }) else { throw .missingLanguage(index: index + 1) }
            guard let pointer = raw.text else { throw .missingText(language: language) }
            guard let text = bounded(pointer, limit: TranslationRules.maxBytes) else {
                throw .text(language: language, strnlen(pointer, TranslationRules.maxBytes + 1) > TranslationRules.maxBytes
                            ? "the text is more than \(TranslationRules.maxBytes) bytes" : "the text is not valid UTF-8")
            }
            variants.append(TextVariant(language: language, text: text))
        }
        return try RunText(checking: variants)
    }

    /// The NUL-terminated UTF-8 string at `pointer`, or nil when it is longer than `limit` bytes or not UTF-8.
    private static func bounded(_ pointer: UnsafePointer<CChar>, limit: Int) -> String? {
        let length = strnlen(pointer, limit + 1)
        guard length <= limit else { return nil }
        let bytes = UnsafeRawBufferPointer(start: pointer, count: length).bindMemory(to: UInt8.self)
        return String(validating: bytes, as: UTF8.self)
    }
}

/// Why a plugin's `rbs.run-texts/1` call was refused: said in the log, for the plugin's author, naming the call.
enum RunTextRefusal: Error, Equatable, CustomStringConvertible {
    case count(Int)
    case noArray
    case missingLanguage(index: Int)
    case language(String)
    case repeatedLanguage(String)
    case missingText(language: String)
    case text(language: String, String)

    /// The log line for the plugin's author: the call, the atom (or the form) and why, the same from a worker.
    func logLine(_ call: String, atom: String?) -> String {
        "\(RBS_SERVICE_RUN_TEXTS) \(call)(\(atom ?? "the form")) refused: \(self)"
    }

    var description: String {
        switch self {
        case .count(let count):
            return "\(count) variants: give 1 to \(RunText.maxVariants), one per language"
        case .noArray:
            return "the variants are NULL"
        case .missingLanguage(let index):
            return "variant #\(index) has no language, or one longer than a language code"
        case .language(let language):
            return "language '\(language)' is not an ISO 639-1 code in lowercase (ru, en)"
        case .repeatedLanguage(let language):
            return "language '\(language)' is given twice"
        case .missingText(let language):
            return "the '\(language)' variant has no text"
        case .text(let language, let problem):
            return "the '\(language)' variant: \(problem)"
        }
    }
}
