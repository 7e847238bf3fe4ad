import Foundation

/// Prints values as JSON for scripts: stable key order, one document per command.
enum JSONOutput {
    static func print<T: Encodable>(_ value: T) {
        Swift.print(text(value))
    }

    /// The JSON text `print` writes (the REPL's `--json` answers).
    static func text<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value), let text = String(data: data, encoding: .utf8) else { return "null" }
        return text
    }
}
