/// One choice of an enum atom.
public struct AtomOption: Codable, Hashable, Sendable {
    public var value: String
    public var title: String
}
