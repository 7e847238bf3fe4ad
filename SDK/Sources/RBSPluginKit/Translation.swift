import CRBSPlugin

/// An operation's texts in one more language (extension `rbs.texts/1`, rbs/ext/texts.h): the host shows them to a
/// person who reads `language`, and the texts the operation declares (its title, category, atom captions, hints,
/// error texts, option titles and document labels) to everyone else and for any text left out here. List them in
/// ``OperationDefinition/translations``.
///
/// ```swift
/// static let translations = [
///     Translation("en", title: "Tax payment", category: "Payments",
///                 captions: ["destInn": "Payee's INN"], options: ["type": ["1": "Tax payment"]],
///                 labels: ["kbk": "Budget classification code (104)"]),
/// ]
/// ```
///
/// Ids, option values and document keys stay as they are: the document signed is the same in every language. The
/// host refuses a plugin whose translation names an atom, option or key the operation does not have, or holds an
/// empty text, a control or invisible character, or more than 1024 bytes.
public struct Translation: Sendable {
    /// An ISO 639-1 code in lowercase: "ru", "en".
    public var language: String
    public var title: String?
    public var category: String?
    /// Atom captions by atom id.
    public var captions: [String: String]
    /// Atom hints by atom id.
    public var hints: [String: String]
    /// Atom error texts (shown when `validIf` is false) by atom id.
    public var errors: [String: String]
    /// Enum option titles by atom id, then option value.
    public var options: [String: [String: String]]
    /// Document labels by document key.
    public var labels: [String: String]

    public init(_ language: String, title: String? = nil, category: String? = nil, captions: [String: String] = [:],
                hints: [String: String] = [:], errors: [String: String] = [:], options: [String: [String: String]] = [:],
                labels: [String: String] = [:]) {
        self.language = language
        self.title = title
        self.category = category
        self.captions = captions
        self.hints = hints
        self.errors = errors
        self.options = options
        self.labels = labels
    }

    /// The table's entries for operation `operation`, as (kind, target, option, text), in a stable order.
    var entries: [(what: UInt32, target: String?, option: String?, text: String)] {
        var entries: [(what: UInt32, target: String?, option: String?, text: String)] = []
        if let title { entries.append((UInt32(RBS_TEXT_OPERATION_TITLE), nil, nil, title)) }
        if let category { entries.append((UInt32(RBS_TEXT_OPERATION_CATEGORY), nil, nil, category)) }
        for (kind, texts) in [(RBS_TEXT_ATOM_CAPTION, captions), (RBS_TEXT_ATOM_HINT, hints), (RBS_TEXT_ATOM_ERROR, errors),
                              (RBS_TEXT_DOCUMENT_LABEL, labels)] {
            for (target, text) in texts.sorted(by: { $0.key < $1.key }) { entries.append((UInt32(kind), target, nil, text)) }
        }
        for (atom, titles) in options.sorted(by: { $0.key < $1.key }) {
            for (value, title) in titles.sorted(by: { $0.key < $1.key }) {
                entries.append((UInt32(RBS_TEXT_OPTION_TITLE), atom, value, title))
            }
        }
        return entries
    }
}
