/// ASCII digits of identifiers.
enum Digits {
    /// The ASCII digits of `text`, or nil when it has any other character or a length other than `count`.
    static func of(_ text: String, count: Int) -> [Int]? {
        var result: [Int] = []
        result.reserveCapacity(count)
        for byte in text.utf8 {
            guard byte >= 0x30, byte <= 0x39, result.count < count else { return nil }
            result.append(Int(byte - 0x30))
        }
        return result.count == count ? result : nil
    }
}
