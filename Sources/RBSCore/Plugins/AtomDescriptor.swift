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
    /// For an amount: the account atom whose chosen account's currency the amount takes (`rbs.amount-currency/1`,
    /// ABI 1.6); ``currency`` holds while no account is chosen there. See ``FormSession``'s amount currency.
    public var currencyOfAccount: String? = nil

    public var isOptional: Bool { flags.contains(.optional) }
    /// Atoms that hold a value a person enters or picks.
    public var holdsValue: Bool { kind != .text && kind != .button }
}
