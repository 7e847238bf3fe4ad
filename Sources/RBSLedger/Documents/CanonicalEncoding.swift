import Foundation
import RBSMoney

/// The one byte form of a ``Document``: what is signed, hashed for the document id, and stored in the journal.
///
/// Version 1 (full description in `CANONICAL.md` beside this file):
///
/// ```
/// RBSDOC1
/// operation=<escaped text>
/// plugin=<escaped text>
/// plugin_version=<escaped text>
/// created_at=<YYYY-MM-DDTHH:MM:SS.mmmZ, UTC>
/// nonce=<32 lowercase hex>
/// key_id=<16 lowercase hex>
/// fields=<count, decimal, no leading zeros>
/// <key>=<escaped value>        (one line a field, sorted by key in byte order, keys unique)
/// ```
///
/// Every line ends with a single LF (0x0A), the last one included; the bytes are UTF-8 with no BOM and no
/// Unicode normalisation (text is signed exactly as given). Escapes in values: `\\` for '\', `\n` for LF, `\r`
/// for CR, `\t` for tab, `\=` for '='. `amount`, when present, is written exactly as given after checking that it
/// is a plain decimal (`-?(0|[1-9][0-9]*)(\.[0-9]+)?`): "100" and "100.00" are different documents.
///
/// The decoder is strict: anything the encoder would not have written is an error naming the line.
public enum CanonicalEncoding {
    /// The first line, which names the version of this encoding.
    public static let magic = "RBSDOC1"

    /// The canonical bytes of `document`.
    ///
    /// Built byte by byte: the characters escaped are ASCII, and an ASCII byte never occurs inside the UTF-8 of
    /// another character, so escaping the UTF-8 bytes gives exactly the bytes of ``escape(_:)``'s text.
    public static func encode(_ document: Document) -> Data {
        var out: [UInt8] = []
        out.reserveCapacity(160 + document.fields.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count + 4 })
        func line(_ name: String, _ value: String, escaping: Bool) {
            out.append(contentsOf: name.utf8)
            out.append(UInt8(ascii: "="))
            if escaping { appendEscaped(value, to: &out) } else { out.append(contentsOf: value.utf8) }
            out.append(UInt8(ascii: "\n"))
        }
        out.append(contentsOf: magic.utf8)
        out.append(UInt8(ascii: "\n"))
        line("operation", document.operation, escaping: true)
        line("plugin", document.plugin, escaping: true)
        line("plugin_version", document.pluginVersion, escaping: true)
        out.append(contentsOf: "created_at=".utf8)
        Timestamp.append(milliseconds: document.createdAtMilliseconds, to: &out)
        out.append(contentsOf: "\nnonce=".utf8)
        Hex.append(document.nonce, to: &out)
        out.append(UInt8(ascii: "\n"))
        line("key_id", document.keyId, escaping: false)
        line("fields", String(document.fields.count), escaping: false)
        for field in document.fields {
            line(field.key, field.value, escaping: true)
        }
        return Data(out)
    }

    /// The UTF-8 of ``escape(_:)`` of `text`, appended to `out`.
    private static func appendEscaped(_ text: String, to out: inout [UInt8]) {
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "\\"))
            case UInt8(ascii: "\n"): out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "n"))
            case UInt8(ascii: "\r"): out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "r"))
            case UInt8(ascii: "\t"): out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "t"))
            case UInt8(ascii: "="): out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "="))
            default: out.append(byte)
            }
        }
    }

    /// The document these bytes encode; any deviation from what ``encode(_:)`` writes is an error naming the line.
    public static func decode(_ bytes: Data) throws(DocumentError) -> Document {
        guard let text = validUTF8(bytes) else {
            throw .malformed(line: firstInvalidUTF8Line(bytes), reason: "the bytes are not valid UTF-8")
        }
        guard text.utf8.last == UInt8(ascii: "\n") else {
            throw .malformed(line: text.split(separator: "\n", omittingEmptySubsequences: false).count,
                             reason: "the last line does not end with a line feed")
        }
        var lines = text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { String(Substring($0)) }
        lines.removeLast()  // the empty string after the final LF

        guard lines.first == magic else {
            throw .malformed(line: 1, reason: "expected \"\(magic)\", found \"\(lines.first ?? "")\"")
        }
        func header(_ number: Int, _ name: String) throws(DocumentError) -> String {
            guard number <= lines.count else { throw .malformed(line: number, reason: "missing \"\(name)=\" line") }
            let line = lines[number - 1]
            guard line.hasPrefix(name + "=") else {
                throw .malformed(line: number, reason: "expected \"\(name)=\", found \"\(line)\"")
            }
            return String(line.dropFirst(name.count + 1))
        }
        let operation = try unescape(try header(2, "operation"), line: 2)
        let plugin = try unescape(try header(3, "plugin"), line: 3)
        let pluginVersion = try unescape(try header(4, "plugin_version"), line: 4)
        guard let created = Timestamp.parse(try header(5, "created_at")), created >= 0 else {
            throw .malformed(line: 5, reason: "created_at is not YYYY-MM-DDTHH:MM:SS.mmmZ")
        }
        let nonceText = try header(6, "nonce")
        guard nonceText.utf8.count == 32, let nonce = Hex.decode(nonceText, lowercaseOnly: true) else {
            throw .malformed(line: 6, reason: "nonce is not 32 lowercase hex characters")
        }
        let keyId = try header(7, "key_id")
        guard keyId.utf8.count == 16, Hex.decode(keyId, lowercaseOnly: true) != nil else {
            throw .malformed(line: 7, reason: "key_id is not 16 lowercase hex characters")
        }
        let countText = try header(8, "fields")
        guard let count = Int(countText), String(count) == countText, count >= 0 else {
            throw .malformed(line: 8, reason: "fields count \"\(countText)\" is not a decimal number")
        }
        // The header's 8 lines are all there (read above), so `found` is not negative; `count` is compared with it,
        // never added to, as a count near Int.max would overflow.
        let found = lines.count - 8
        guard count == found else {
            let line = count > found ? lines.count + 1 : 8 + count + 1
            throw .malformed(line: line, reason: "expected \(count) field lines, found \(found)")
        }
        var fields: [DocumentField] = []
        var previousKey: String?
        for index in 0..<count {
            let number = 9 + index
            let line = lines[number - 1]
            guard let equals = line.firstIndex(of: "=") else {
                throw .malformed(line: number, reason: "a field line must be key=value")
            }
            let key = String(line[..<equals])
            guard DocumentField.isValidKey(key) else { throw .malformed(line: number, reason: "invalid field key \"\(key)\"") }
            if let previousKey, !previousKey.utf8.lexicographicallyPrecedes(key.utf8) {
                throw .malformed(line: number, reason: "field \"\(key)\" is out of order or repeated; keys are sorted and unique")
            }
            previousKey = key
            let value = try unescape(String(line[line.index(after: equals)...]), line: number)
            if key == PaymentField.amount.key, DecimalText.scale(of: value) == nil {
                throw .malformed(line: number, reason: "amount \"\(value)\" is not a plain decimal")
            }
            fields.append(DocumentField(key, value))
        }
        let document: Document
        do {
            document = try Document(
                operation: operation, plugin: plugin, pluginVersion: pluginVersion, fields: fields,
                createdAtMilliseconds: created, nonce: nonce, keyId: keyId)
        } catch {
            throw .malformed(line: 1, reason: error.description)
        }
        // The last word: re-encoding gives the same bytes, or the input was not canonical.
        guard encode(document) == bytes else {
            throw .malformed(line: 1, reason: "the bytes are not in canonical form")
        }
        return document
    }

    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "=": out += "\\="
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    static func unescape(_ text: String, line: Int) throws(DocumentError) -> String {
        var out = ""
        var scalars = text.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            switch scalar {
            case "\\":
                switch scalars.next() {
                case "\\": out += "\\"
                case "n": out += "\n"
                case "r": out += "\r"
                case "t": out += "\t"
                case "=": out += "="
                case let other?: throw .malformed(line: line, reason: "unknown escape \"\\\(other)\"")
                case nil: throw .malformed(line: line, reason: "a '\\' ends the line")
                }
            case "=": throw .malformed(line: line, reason: "an unescaped '=' in a value (write \\=)")
            case "\r", "\t": throw .malformed(line: line, reason: "a raw control character in a value (write \\r or \\t)")
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    throw .malformed(line: line, reason: "a control character \(UnicodeText.codePoint(scalar.value)) in a value")
                }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// The text of `bytes` if they are valid UTF-8 (decoding would replace invalid sequences, changing the bytes).
    private static func validUTF8(_ bytes: Data) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        return text.utf8.elementsEqual(bytes) ? text : nil
    }

    private static func firstInvalidUTF8Line(_ bytes: Data) -> Int {
        var line = 1
        var start = bytes.startIndex
        for index in bytes.indices where bytes[index] == UInt8(ascii: "\n") {
            if validUTF8(bytes[start..<index]) == nil { return line }
            line += 1
            start = index + 1
        }
        return line
    }
}
