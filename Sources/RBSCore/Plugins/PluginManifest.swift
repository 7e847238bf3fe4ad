/// What a plugin offers, read from its C descriptors and validated: plain data, so the registry can list it,
/// compare it and cache it without keeping the image open.
public struct PluginManifest: Codable, Hashable, Sendable {
    public var id: String
    public var name: String
    public var version: String
    public var vendor: String
    public var description: String?
    /// The ABI version the plugin was compiled against.
    public var abi: ABIVersion
    public var operations: [OperationDescriptor]
}

/// An operation (a banking product) as its plugin declares it.
public struct OperationDescriptor: Codable, Hashable, Sendable {
    public var id: String
    public var title: String
    public var category: String
    public var atoms: [AtomDescriptor]
    public var functions: [FunctionDescriptor]
    /// Whether the plugin gave a `value_changed` callback.
    public var observesValues: Bool
    /// Whether the plugin gave an `action` callback.
    public var hasAction: Bool
}

/// A C function a plugin exports for expressions.
public struct FunctionDescriptor: Codable, Hashable, Sendable {
    public var name: String
    public var symbol: String
    public var signature: String
    /// The first C parameter is the instance pointer (`RBS_FUNCTION_INSTANCE`).
    public var takesInstance: Bool
}

/// The kind of an atom (`RBS_ATOM_*`).
public enum AtomKind: UInt32, Codable, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    case text = 1, input, enumeration, toggle, account, button

    public var description: String {
        switch self {
        case .text: "text"
        case .input: "input"
        case .enumeration: "enum"
        case .toggle: "toggle"
        case .account: "account"
        case .button: "button"
        }
    }
}

/// What an input atom accepts (`RBS_INPUT_*`).
public enum AtomInputType: UInt32, Codable, Hashable, Sendable, CustomStringConvertible {
    case text = 0, digits, number, amount, date

    public var description: String {
        switch self {
        case .text: "text"
        case .digits: "digits"
        case .number: "number"
        case .amount: "amount"
        case .date: "date"
        }
    }
}

/// Flags of an atom (`RBS_ATOM_FLAG_*`).
public struct AtomFlags: OptionSet, Codable, Hashable, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static let optional = AtomFlags(rawValue: 1 << 0)
    public static let wide = AtomFlags(rawValue: 1 << 1)
    public static let capitalize = AtomFlags(rawValue: 1 << 2)
    public static let secret = AtomFlags(rawValue: 1 << 3)
    public static let submit = AtomFlags(rawValue: 1 << 4)
    public static let known: AtomFlags = [.optional, .wide, .capitalize, .secret, .submit]
}

/// One choice of an enum atom.
public struct AtomOption: Codable, Hashable, Sendable {
    public var value: String
    public var title: String
}

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
