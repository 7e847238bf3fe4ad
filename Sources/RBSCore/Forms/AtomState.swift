/// An atom as a person sees it now.
public struct AtomState: Equatable, Sendable {
    public var descriptor: AtomDescriptor
    public var caption: String
    public var visible: Bool
    /// The value as text ("" when empty): the account number, the amount with its minor units, the option value.
    public var value: String
    /// What needs fixing, if anything: a refused input, the plugin's mark, or a failing valid-if.
    public var error: String?

    public var id: String { descriptor.id }
    public var kind: AtomKind { descriptor.kind }
}
