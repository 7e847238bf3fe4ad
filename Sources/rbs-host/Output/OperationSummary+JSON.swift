extension OperationSummary {
    /// `list --json`'s text, written directly: byte for byte what ``JSONOutput/text(_:)`` makes of `summaries`
    /// (pretty-printed, keys sorted, slashes unescaped), without JSONEncoder's generic path, which costs more than
    /// the rest of listing 500 plugins from the cache. Built as UTF-8 bytes (appending to a `String` piece by piece
    /// cost as much again).
    static func json(_ summaries: [OperationSummary]) -> String {
        guard !summaries.isEmpty else { return JSONOutput.text(summaries) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(summaries.count * 200)
        bytes.append(contentsOf: "[\n".utf8)
        for (index, summary) in summaries.enumerated() {
            bytes.append(contentsOf: "  {\n".utf8)
            // JSONEncoder's sorted key order.
            var fields = [("category", summary.category), ("id", summary.id), ("plugin", summary.plugin),
                          ("pluginVersion", summary.pluginVersion), ("title", summary.title)]
            if let unavailable = summary.unavailable { fields.append(("unavailable", unavailable)) }
            for (number, (key, value)) in fields.enumerated() {
                bytes.append(contentsOf: "    \"".utf8)
                bytes.append(contentsOf: key.utf8)
                bytes.append(contentsOf: "\" : \"".utf8)
                appendEscaped(value, to: &bytes)
                bytes.append(contentsOf: (number == fields.count - 1 ? "\"\n" : "\",\n").utf8)
            }
            bytes.append(contentsOf: (index == summaries.count - 1 ? "  }\n" : "  },\n").utf8)
        }
        bytes.append(UInt8(ascii: "]"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `value` as the inside of a JSON string, escaped as JSONEncoder escapes it: `"` and `\`, the control
    /// characters (\b \f \n \r \t by name, the others as \u00xx), nothing else (other UTF-8 as it is).
    private static func appendEscaped(_ value: String, to bytes: inout [UInt8]) {
        for byte in value.utf8 {
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
