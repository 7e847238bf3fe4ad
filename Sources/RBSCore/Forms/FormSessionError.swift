import RBSLedger

/// Why a value, a button or a run was refused. Each description says what to do next.
public enum FormSessionError: Error, Equatable, Sendable, CustomStringConvertible {
    case unknownAtom(id: String, operation: String)
    case notEditable(id: String, kind: AtomKind)
    case hidden(id: String)
    case invalid(id: String, message: String)
    /// A value of the wrong kind for the atom (text for an account, USD for a RUB amount).
    case mismatch(id: String, expected: String, got: String)
    case notAButton(id: String)
    case createFailed(operation: String)
    case closed
    case badPluginValue(String)
    case pluginFailed(String)
    /// The plugin's runtime did not come back from a call (its worker crashed, exited or hung; create() refused).
    case pluginFault(PluginFault)

    /// The atom the refusal names, if it names one.
    public var atom: String? {
        switch self {
        case .unknownAtom(let id, _), .notEditable(let id, _), .hidden(let id), .invalid(let id, _), .mismatch(let id, _, _),
             .notAButton(let id): id
        case .createFailed, .closed, .badPluginValue, .pluginFailed, .pluginFault: nil
        }
    }

    public var description: String {
        switch self {
        case .unknownAtom(let id, let operation): "operation \(operation) has no atom '\(id)' — see `describe \(operation)` for its atoms"
        case .notEditable(let id, let kind): "'\(id)' is a \(kind) atom and takes no value"
        case .hidden(let id): "'\(id)' is hidden by its show-if condition — fill the fields it depends on first"
        case .invalid(let id, let message): "\(id): \(message)"
        case .mismatch(let id, let expected, let got): "\(id) takes \(expected), not \(got)"
        case .notAButton(let id): "'\(id)' is not a button"
        case .createFailed(let operation): "the plugin could not start \(operation) (create returned NULL) — see the log"
        case .closed: "the form is closed"
        case .badPluginValue(let why): "the plugin passed a bad value: \(why)"
        case .pluginFailed(let why): why
        case .pluginFault(let fault): fault.description
        }
    }
}

/// An atom that needs attention before a submit can pass (seed 000's `needsAttention`).
public struct AtomIssue: Equatable, Sendable, Codable {
    /// The atom's id, or nil for the form as a whole.
    public var atom: String?
    public var message: String

    public init(atom: String?, message: String) {
        self.atom = atom
        self.message = message
    }
}

/// What a commit changed that a person should be told about.
public struct FormAnnouncements: Equatable, Sendable {
    public var appeared: [String] = []
    public var disappeared: [String] = []
    /// Text atoms whose caption changed, with the new caption.
    public var captions: [(id: String, caption: String)] = []
    /// Atoms judged again by this change that have an error now (the committed atom, the cross-field checks that
    /// read it once all their inputs have values, the plugin's marks), with the error.
    public var errors: [(id: String, message: String)] = []
    /// Atoms judged again by this change that have no error now.
    public var cleared: [String] = []

    public init() {}

    public static func == (lhs: FormAnnouncements, rhs: FormAnnouncements) -> Bool {
        lhs.appeared == rhs.appeared && lhs.disappeared == rhs.disappeared
            && lhs.captions.map(\.id) == rhs.captions.map(\.id) && lhs.captions.map(\.caption) == rhs.captions.map(\.caption)
            && lhs.errors.map(\.id) == rhs.errors.map(\.id) && lhs.errors.map(\.message) == rhs.errors.map(\.message)
            && lhs.cleared == rhs.cleared
    }

    /// Whether nothing appeared, disappeared or changed caption (errors aside).
    public var isEmpty: Bool { appeared.isEmpty && disappeared.isEmpty && captions.isEmpty }
}

/// The document a submit produced, before it is signed.
public struct DocumentDraft: Equatable, Sendable {
    public var operation: String
    public var plugin: String
    public var pluginVersion: String
    /// In the order the plugin put them.
    public var fields: [(key: String, value: String)]
    /// How each field is shown for review, by key (labels, roles, source atoms): not part of the document. A key
    /// missing here is shown under the key itself.
    public var presentation: [String: FieldPresentation] = [:]
    /// The values the person entered in the form the document was built from (no secrets, codes or card numbers):
    /// recorded with the journal entry, so `repeat N` can open the form again. Not part of the document.
    public var form: FormTemplate?

    public init(operation: String, plugin: String, pluginVersion: String, fields: [(key: String, value: String)]) {
        self.operation = operation
        self.plugin = plugin
        self.pluginVersion = pluginVersion
        self.fields = fields
    }

    /// How field `key` is shown: its presentation, else the key under its contract role.
    public func presentation(of key: String) -> FieldPresentation {
        presentation[key] ?? FieldPresentation(label: key, role: DocumentFieldRole.ofCoreKey(key) ?? .other, atom: nil)
    }

    public static func == (lhs: DocumentDraft, rhs: DocumentDraft) -> Bool {
        lhs.operation == rhs.operation && lhs.plugin == rhs.plugin && lhs.pluginVersion == rhs.pluginVersion
            && lhs.fields.map(\.key) == rhs.fields.map(\.key) && lhs.fields.map(\.value) == rhs.fields.map(\.value)
    }

    public subscript(key: String) -> String? { fields.first { $0.key == key }?.value }
}

/// What a submit came to.
public enum SubmitOutcome: Equatable, Sendable {
    case ready(DocumentDraft)
    case needsAttention([AtomIssue])
    case failed(String)
}
