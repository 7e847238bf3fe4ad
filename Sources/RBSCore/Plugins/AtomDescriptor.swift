/// An atom of an operation's form, as declared.
public struct AtomDescriptor: Codable, Hashable, Sendable {
    public var id: String
    public var kind: AtomKind
    public var inputType: AtomInputType
    public var flags: AtomFlags
    public var minLength: Int
    public var maxLength: Int
    public var caption: String
    public var hint: String?
    public var currency: String?
    public var showIf: String?
    public var validIf: String?
    public var errorText: String?
    public var filter: String?
    public var defaultValue: String?
    public var options: [AtomOption]

    public var isOptional: Bool { flags.contains(.optional) }
    /// Atoms that hold a value a person enters or picks.
    public var holdsValue: Bool { kind != .text && kind != .button }
}
