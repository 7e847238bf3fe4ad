import CRBSPlugin

/// What one field of an operation's document means to a person, for the host's review before signing (extension
/// `rbs.document-labels/1`, rbs/ext/document_labels.h). List them in ``OperationDefinition/documentLabels``.
///
/// ```swift
/// static let documentLabels = [
///     DocumentFieldLabel("inn", role: .payeeTaxID, atom: "destInn"),   // label: the atom's caption
///     DocumentFieldLabel("type", atom: "type"),                       // an enum: shown as the option's title
///     DocumentFieldLabel("kbk", "КБК (104)"),
/// ]
/// ```
///
/// The roles of the keys the core reads are fixed (`amount`, `currency`, `from`, `name`, `account`, `bic`,
/// `purpose`); the host refuses a plugin that gives one of those roles to another key.
public struct DocumentFieldLabel: Sendable {
    /// Where and how the host shows the field (`RBS_FIELD_ROLE_*`).
    public enum Role: UInt32, Sendable {
        case other = 0, amount, currency, debitAccount, payee, payeeAccount, payeeBank, purpose, payeeTaxID, cardNumber
    }

    /// The document key, as ``Operation/document()`` returns it.
    public var key: String
    /// What a person reads; nil: the caption of ``atom``, else the key.
    public var label: String?
    public var role: Role
    /// The id of the atom the value comes from (an enum's value is then shown as its option's title).
    public var atom: String?

    public init(_ key: String, _ label: String? = nil, role: Role = .other, atom: String? = nil) {
        self.key = key
        self.label = label
        self.role = role
        self.atom = atom
    }
}
