import RBSLedger

/// What one field of an operation's document means to a person, as the plugin declares it in
/// `rbs.document-labels/1` (rbs/ext/document_labels.h), validated against the operation's atoms.
public struct DocumentLabel: Codable, Hashable, Sendable {
    /// The document key.
    public var key: String
    /// The plugin's label, or nil (then the caption of ``atom``, else the key).
    public var label: String?
    public var role: DocumentFieldRole
    /// The id of the atom the value comes from, or nil.
    public var atom: String?

    public init(key: String, label: String?, role: DocumentFieldRole, atom: String?) {
        self.key = key
        self.label = label
        self.role = role
        self.atom = atom
    }
}

extension PaymentLayout {
    /// The money fields of an operation's documents as its `rbs.document-labels/1` names them: the key each role
    /// is given and its label (the operation's own, else the atom's caption `caption(atom)`).
    public init(_ labels: [DocumentLabel], caption: (String) -> String? = { _ in nil }) {
        self.init(labels: labels.map { ($0.key, $0.label ?? $0.atom.flatMap(caption), $0.role.paymentField) })
    }
}
