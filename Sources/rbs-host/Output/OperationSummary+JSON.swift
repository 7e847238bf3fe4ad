extension OperationSummary {
    /// `list --json`'s text as UTF-8, written directly: byte for byte what ``JSONOutput/text(_:)`` makes of
    /// `summaries` (pretty-printed, keys sorted, slashes unescaped), without JSONEncoder's generic path, which costs
    /// more than the rest of listing 500 plugins from the cache. Built from ready-made pieces (appending to a
    /// `String`, or a byte at a time, cost as much again), and printed as bytes (a `String` of them was one more
    /// copy of the whole text, validated again).
    static func json(_ summaries: [OperationSummary]) -> [UInt8] {
        guard !summaries.isEmpty else { return Array(JSONOutput.text(summaries).utf8) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(summaries.count * 200)
        bytes.append(contentsOf: "[\n".utf8)
        for index in summaries.indices {
            let summary = summaries[index]
            bytes += JSONPiece.objectStart
            // JSONEncoder's sorted key order; the last field has no comma.
            appendField(JSONPiece.category, summary.category, last: false, to: &bytes)
            appendField(JSONPiece.id, summary.id, last: false, to: &bytes)
            appendField(JSONPiece.plugin, summary.plugin, last: false, to: &bytes)
            appendField(JSONPiece.pluginVersion, summary.pluginVersion, last: false, to: &bytes)
            appendField(JSONPiece.title, summary.title, last: summary.unavailable == nil, to: &bytes)
            if let unavailable = summary.unavailable {
                appendField(JSONPiece.unavailable, unavailable, last: true, to: &bytes)
            }
            bytes += index == summaries.count - 1 ? JSONPiece.lastObjectEnd : JSONPiece.objectEnd
        }
        bytes.append(UInt8(ascii: "]"))
        return bytes
    }

    /// One `"key" : "value"` line: `key` is the piece up to the value's opening quote.
    private static func appendField(_ key: [UInt8], _ value: String, last: Bool, to bytes: inout [UInt8]) {
        bytes += key
        appendEscaped(value, to: &bytes)
        bytes += last ? JSONPiece.lastFieldEnd : JSONPiece.fieldEnd
    }

    /// `value` as the inside of a JSON string, escaped as JSONEncoder escapes it: `"` and `\`, the control
    /// characters (\b \f \n \r \t by name, the others as \u00xx), nothing else (other UTF-8 as it is). A value
    /// with nothing to escape (nearly all) is copied whole.
    private static func appendEscaped(_ value: String, to bytes: inout [UInt8]) {
        var value = value
        value.withUTF8 { utf8 in
            guard utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
                bytes.append(contentsOf: utf8)
                return
            }
            for byte in utf8 {
                switch byte {
                case UInt8(ascii: "\""): bytes.append(contentsOf: "\\\"".utf8)
                case UInt8(ascii: "\\"): bytes.append(contentsOf: "\\\\".utf8)
                case 0x08: bytes.append(contentsOf: "\\b".utf8)
                case 0x0C: bytes.append(contentsOf: "\\f".utf8)
                case UInt8(ascii: "\n"): bytes.append(contentsOf: "\\n".utf8)
                case UInt8(ascii: "\r"): bytes.append(contentsOf: "\\r".utf8)
                case UInt8(ascii: "\t"): bytes.append(contentsOf: "\\t".utf8)
                case 0..<0x20:
                    let hex = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: "\\u00".utf8)
                    bytes.append(hex[Int(byte >> 4)])
                    bytes.append(hex[Int(byte & 0xF)])
                default: bytes.append(byte)
                }
            }
        }
    }
}

/// The fixed parts of `list --json`'s text, as UTF-8 bytes made once.
private enum JSONPiece {
    static let objectStart = Array("  {\n".utf8)
    static let objectEnd = Array("  },\n".utf8)
    static let lastObjectEnd = Array("  }\n".utf8)
    static let fieldEnd = Array("\",\n".utf8)
    static let lastFieldEnd = Array("\"\n".utf8)
    static let category = key("category")
    static let id = key("id")
    static let plugin = key("plugin")
    static let pluginVersion = key("pluginVersion")
    static let title = key("title")
    static let unavailable = key("unavailable")

    private static func key(_ name: String) -> [UInt8] { Array("    \"\(name)\" : \"".utf8) }
}
