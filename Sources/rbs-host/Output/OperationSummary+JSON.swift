extension OperationSummary {
    /// `list --json`'s text, written directly: byte for byte what ``JSONOutput/text(_:)`` makes of `summaries`
    /// (pretty-printed, keys sorted, slashes unescaped), without JSONEncoder's generic path, which costs more than
    /// the rest of listing 500 plugins from the cache.
    static func json(_ summaries: [OperationSummary]) -> String {
        guard !summaries.isEmpty else { return JSONOutput.text(summaries) }
        var text = "[\n"
        text.reserveCapacity(summaries.count * 200)
        for (index, summary) in summaries.enumerated() {
            text += "  {\n"
            // JSONEncoder's sorted key order.
            var fields = [("category", summary.category), ("id", summary.id), ("plugin", summary.plugin),
                          ("pluginVersion", summary.pluginVersion), ("title", summary.title)]
            if let unavailable = summary.unavailable { fields.append(("unavailable", unavailable)) }
            for (number, (key, value)) in fields.enumerated() {
                text += "    \""
                text += key
                text += "\" : \""
                appendEscaped(value, to: &text)
                text += number == fields.count - 1 ? "\"\n" : "\",\n"
            }
            text += index == summaries.count - 1 ? "  }\n" : "  },\n"
        }
        text += "]"
        return text
    }

    /// `value` as the inside of a JSON string, escaped as JSONEncoder escapes it: `"` and `\`, the control
    /// characters (\b \f \n \r \t by name, the others as \u00xx), nothing else.
    private static func appendEscaped(_ value: String, to text: inout String) {
        guard value.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
            text += value
            return
        }
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\u{8}": text += "\\b"
            case "\u{C}": text += "\\f"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case "\u{0}"..."\u{1F}":
                let hex = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
    }
}
