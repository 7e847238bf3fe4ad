/// One field of a document: a key and its UTF-8 text value.
public struct DocumentField: Sendable, Hashable, Codable {
    /// `[a-z][A-Za-z0-9_]*`.
    public var key: String
    public var value: String

    public init(_ key: String, _ value: String) {
        self.key = key
        self.value = value
    }

    /// Whether `key` is `[a-z][A-Za-z0-9_]*`.
    static func isValidKey(_ key: String) -> Bool {
        let bytes = Array(key.utf8)
        guard let first = bytes.first, first >= UInt8(ascii: "a"), first <= UInt8(ascii: "z") else { return false }
        return bytes.dropFirst().allSatisfy { c in
            (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
                || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || c == UInt8(ascii: "_")
        }
    }
}
