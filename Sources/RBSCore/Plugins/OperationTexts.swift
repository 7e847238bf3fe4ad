import CRBSPlugin
import RBSLedger
import RBSMoney

/// One operation's texts in one language, as its plugin translates them in `rbs.texts/1` (rbs/ext/texts.h): each
/// replaces the descriptor's own text when the person reads that language; a text not listed keeps the descriptor's.
/// Ids, option values and document keys never change with the language.
public struct OperationTexts: Codable, Hashable, Sendable {
    public var title: String?
    public var category: String?
    /// Atom captions by atom id.
    public var captions: [String: String] = [:]
    /// Atom hints by atom id.
    public var hints: [String: String] = [:]
    /// Atom error texts (shown when `valid_if` is false) by atom id.
    public var errors: [String: String] = [:]
    /// Enum option titles by atom id, then option value.
    public var options: [String: [String: String]] = [:]
    /// Document labels by document key.
    public var labels: [String: String] = [:]

    public init() {}

    public var isEmpty: Bool {
        title == nil && category == nil && captions.isEmpty && hints.isEmpty && errors.isEmpty && options.isEmpty
            && labels.isEmpty
    }
}

extension OperationDescriptor {
    /// This operation as a reader of `language` sees it: every text the plugin translates into that language
    /// replaced, the rest as declared. The same descriptor when the plugin offers no translation into it.
    public func localized(_ language: HostLanguage) -> OperationDescriptor {
        guard let texts = texts[language.rawValue] else { return self }
        var copy = self
        if let title = texts.title { copy.title = title }
        if let category = texts.category { copy.category = category }
        for index in copy.atoms.indices {
            let id = copy.atoms[index].id
            if let caption = texts.captions[id] { copy.atoms[index].caption = caption }
            if let hint = texts.hints[id] { copy.atoms[index].hint = hint }
            if let error = texts.errors[id] { copy.atoms[index].errorText = error }
            if let titles = texts.options[id] {
                for option in copy.atoms[index].options.indices {
                    if let title = titles[copy.atoms[index].options[option].value] {
                        copy.atoms[index].options[option].title = title
                    }
                }
            }
        }
        for index in copy.documentLabels.indices {
            if let label = texts.labels[copy.documentLabels[index].key] { copy.documentLabels[index].label = label }
        }
        // A key the plugin translates without an `rbs.document-labels/1` entry is still labelled in that language.
        for (key, label) in texts.labels.sorted(by: { $0.key < $1.key })
        where !copy.documentLabels.contains(where: { $0.key == key }) {
            let atom = copy.atoms.first { $0.id == key && $0.holdsValue }?.id
            copy.documentLabels.append(DocumentLabel(key: key, label: label,
                                                     role: DocumentFieldRole.ofCoreKey(key) ?? .other, atom: atom))
        }
        return copy
    }

    /// The languages this operation's plugin translates it into, sorted.
    public var languages: [String] { texts.keys.sorted() }
}

extension OperationListing {
    /// This listing with its descriptor as a reader of `language` sees it.
    public func localized(_ language: HostLanguage) -> OperationListing {
        OperationListing(descriptor: descriptor.localized(language), pluginID: pluginID, pluginVersion: pluginVersion,
                         path: path, unavailable: unavailable)
    }
}

extension RegisteredOperation {
    /// This operation with its descriptor as a reader of `language` sees it (the compiled expressions are shared).
    public func localized(_ language: HostLanguage) -> RegisteredOperation {
        RegisteredOperation(plugin: plugin, compiled: compiled.with(descriptor: descriptor.localized(language)))
    }
}

/// The checks every translated text passes, in the process that reads the plugin's C table and again in the host
/// when a worker sends its manifest (a worker runs the plugin: what it sends is untrusted).
enum TranslationRules {
    /// `RBS_TEXT_MAX_BYTES`.
    static let maxBytes = 1024
    /// The most languages and the most texts per language.
    static let maxLanguages = 32
    static let maxTexts = 16384

    /// An ISO 639-1 code in lowercase: "ru", "en".
    static func isLanguageTag(_ tag: String) -> Bool {
        tag.unicodeScalars.count == 2 && tag.unicodeScalars.allSatisfy { ("a"..."z").contains($0) }
    }

    /// Why `text` cannot be shown as a translation, or nil: empty, too long, a control character, or an invisible
    /// format character (what is shown would not be what the plugin's author reviewed).
    static func problem(_ text: String) -> String? {
        if text.isEmpty { return "the text is empty" }
        if text.utf8.count > maxBytes { return "the text is \(text.utf8.count) bytes, more than \(maxBytes)" }
        if let control = text.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
            return "the text holds the control character \(UnicodeText.codePoint(control.value))"
        }
        if let invisible = InvisibleText.first(in: text) { return "the text holds \(invisible)" }
        return nil
    }

    /// Checks every operation's translations against the operation: known languages' shape, known atoms, options
    /// and keys, and each text. Throws naming the first problem.
    static func validate(_ operations: [OperationDescriptor]) throws(PluginProblem) {
        var languages = Set<String>()
        for operation in operations {
            languages.formUnion(operation.texts.keys)
            for (language, texts) in operation.texts.sorted(by: { $0.key < $1.key }) {
                let here = "extension \(RBS_EXT_TEXTS) language '\(language)' operation '\(operation.id)'"
                guard isLanguageTag(language) else {
                    throw .descriptor(location: "extension \(RBS_EXT_TEXTS)", issue: "language '\(language)' is not an ISO 639-1 code in lowercase (ru, en)")
                }
                var count = 0
                func check(_ text: String, _ what: String) throws(PluginProblem) {
                    count += 1
                    if let problem = problem(text) { throw .descriptor(location: here, issue: "\(what): \(problem)") }
                }
                func atom(_ id: String, _ what: String) throws(PluginProblem) -> AtomDescriptor {
                    guard let atom = operation.atoms.first(where: { $0.id == id }) else {
                        throw .descriptor(location: here, issue: "\(what) names atom '\(id)', which the operation does not have")
                    }
                    return atom
                }
                if let title = texts.title { try check(title, "title") }
                if let category = texts.category { try check(category, "category") }
                for (id, caption) in texts.captions.sorted(by: { $0.key < $1.key }) {
                    _ = try atom(id, "a caption")
                    try check(caption, "the caption of '\(id)'")
                }
                for (id, hint) in texts.hints.sorted(by: { $0.key < $1.key }) {
                    guard try atom(id, "a hint").hint != nil else {
                        throw .descriptor(location: here, issue: "a hint for '\(id)', which has no hint to translate")
                    }
                    try check(hint, "the hint of '\(id)'")
                }
                for (id, error) in texts.errors.sorted(by: { $0.key < $1.key }) {
                    guard try atom(id, "an error text").errorText != nil else {
                        throw .descriptor(location: here, issue: "an error text for '\(id)', which has no error_text to translate")
                    }
                    try check(error, "the error text of '\(id)'")
                }
                for (id, titles) in texts.options.sorted(by: { $0.key < $1.key }) {
                    let enumeration = try atom(id, "an option title")
                    for (value, title) in titles.sorted(by: { $0.key < $1.key }) {
                        guard enumeration.options.contains(where: { $0.value == value }) else {
                            throw .descriptor(location: here, issue: "an option title for '\(id)' value '\(value)', which is not one of its options")
                        }
                        try check(title, "the title of option '\(value)' of '\(id)'")
                    }
                }
                for (key, label) in texts.labels.sorted(by: { $0.key < $1.key }) {
                    guard DocumentCollector.isKey(key) else {
                        throw .descriptor(location: here, issue: "a label for '\(key)', which is not a document key ([a-z][A-Za-z0-9_]*)")
                    }
                    try check(label, "the label of '\(key)'")
                }
                guard count <= maxTexts else {
                    throw .descriptor(location: here, issue: "\(count) texts, more than \(maxTexts)")
                }
            }
        }
        guard languages.count <= maxLanguages else {
            throw .descriptor(location: "extension \(RBS_EXT_TEXTS)", issue: "\(languages.count) languages, more than \(maxLanguages)")
        }
    }
}
