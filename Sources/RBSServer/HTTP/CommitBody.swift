/// The quick reading of a commit's body, `{"value": …}`, straight from its bytes: Foundation's `JSONDecoder` builds
/// a decoder, a `Data` copy and — for `JSONValue`, which tries each JSON type in turn — two thrown errors for every
/// string value, a commit's most common body.
///
/// Only bodies with one reading are taken: one member named `value` (no escapes in the name) holding a string
/// without escapes or control characters (valid UTF-8), `true`, `false` or `null`, with JSON's whitespace around.
/// Anything else — a number, an object, an escape, a second member, bad JSON of any kind — is nil, and the caller
/// hands the body to `JSONDecoder` (``Routes/body(_:upTo:)``), so every refusal and every other value is the
/// decoder's, word for word.
enum CommitBody {
    static func value(in bytes: some Collection<UInt8>) -> JSONValue? {
        if let value = bytes.withContiguousStorageIfAvailable(read) { return value }
        return Array(bytes).withUnsafeBufferPointer(read)
    }

    private static func read(_ bytes: UnsafeBufferPointer<UInt8>) -> JSONValue? {
        var i = 0
        let end = bytes.count
        func skipSpace() {
            while i < end, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0A || bytes[i] == 0x0D { i += 1 }
        }
        func take(_ literal: StaticString) -> Bool {
            let count = literal.utf8CodeUnitCount
            guard end - i >= count else { return false }
            let matches = literal.withUTF8Buffer { expected in
                (0..<count).allSatisfy { bytes[i + $0] == expected[$0] }
            }
            if matches { i += count }
            return matches
        }
        skipSpace()
        guard take("{") else { return nil }
        skipSpace()
        guard take("\"value\"") else { return nil }
        skipSpace()
        guard take(":") else { return nil }
        skipSpace()
        let value: JSONValue
        if take("true") { value = .bool(true) }
        else if take("false") { value = .bool(false) }
        else if take("null") { value = .null }
        else if take("\"") {
            let start = i
            while i < end, bytes[i] != UInt8(ascii: "\"") {
                // An escape or a control character (refused by JSON): the decoder's business.
                if bytes[i] == UInt8(ascii: "\\") || bytes[i] < 0x20 { return nil }
                i += 1
            }
            guard i < end, let text = String(validating: bytes[start..<i], as: UTF8.self) else { return nil }
            i += 1
            value = .string(text)
        } else {
            return nil
        }
        skipSpace()
        guard take("}") else { return nil }
        skipSpace()
        return i == end ? value : nil
    }
}
