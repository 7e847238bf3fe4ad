import Foundation

/// Prints values as JSON for scripts: stable key order, one document per command.
enum JSONOutput {
    static func print<T: Encodable>(_ value: T) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value), let text = String(data: data, encoding: .utf8) else {
            Swift.print("null")
            return
        }
        Swift.print(text)
    }
}
