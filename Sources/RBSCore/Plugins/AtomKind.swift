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
