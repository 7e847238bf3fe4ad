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
