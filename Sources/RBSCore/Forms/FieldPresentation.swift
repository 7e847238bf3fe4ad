/// How one field of a document is shown for review: its label, its role, the atom it came from. Worked out when the
/// document is built, from the operation's `rbs.document-labels/1` and its atoms; never signed, never journaled.
public struct FieldPresentation: Hashable, Sendable {
    /// The plugin's label; else the caption of the atom the field came from; else the key.
    public var label: String
    /// Fixed by the document contract for the keys the core reads; else the plugin's role; else ``DocumentFieldRole/other``.
    public var role: DocumentFieldRole
    /// The atom the value came from (the plugin's `atom_id`, else the atom whose id is the key), if known.
    public var atom: AtomDescriptor?

    public init(label: String, role: DocumentFieldRole, atom: AtomDescriptor?) {
        self.label = label
        self.role = role
        self.atom = atom
    }

    /// The presentation of field `key` of `operation`'s documents.
    public static func of(_ key: String, in operation: OperationDescriptor) -> FieldPresentation {
        let declared = operation.documentLabels.first { $0.key == key }
        let atomID = declared?.atom ?? key
        let atom = operation.atoms.first { $0.id == atomID && $0.holdsValue }
        return FieldPresentation(label: declared?.label ?? atom?.caption ?? key,
                                 role: DocumentFieldRole.ofCoreKey(key) ?? declared?.role ?? .other, atom: atom)
    }
}
