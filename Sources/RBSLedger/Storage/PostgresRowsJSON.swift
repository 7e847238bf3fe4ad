extension PostgresStore {
    /// `rbs_v24_answers`' JSON text — one array per query, its digest and then its rows as the objects PostgreSQL's
    /// `to_json` makes of them, `[["digest", {"column": value, …}, …], …]` — as the cells ``answers(from:queries:types:)``
    /// reads, in the order `rbs_v22_answers` gives them (each query's rows column by column, then its digest). Read
    /// in one pass over the bytes, keeping each object's member order (the columns' order), which a dictionary would
    /// lose. Nil when the text is not that, or a value is an object or an array (a JSON column, which the one-call
    /// path does not read: those answers are then simply not kept).
    static func cells(fromRowsJSON text: String) -> [Cell]? {
        var text = text
        return text.withUTF8 { bytes -> [Cell]? in
            var reader = RowsJSONReader(bytes: bytes)
            return reader.cells()
        }
    }
}

/// The reader behind ``PostgresStore/cells(fromRowsJSON:)``: a cursor over the UTF-8 bytes, each method consuming
/// what it reads and answering nil at the first byte that is not what the format has there.
private struct RowsJSONReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    mutating func cells() -> [PostgresStore.Cell]? {
        var cells: [PostgresStore.Cell] = []
        guard take(UInt8(ascii: "[")) else { return nil }
        var query = 0
        if !take(UInt8(ascii: "]")) {
            repeat {
                query += 1
                guard take(UInt8(ascii: "[")), let digest = string() else { return nil }
                var row: Int64 = 0
                while take(UInt8(ascii: ",")) {
                    row += 1
                    guard rowCells(query: query, row: row, into: &cells) else { return nil }
                }
                guard take(UInt8(ascii: "]")) else { return nil }
                cells.append(PostgresStore.Cell(query: query, row: 0, name: nil, kind: "digest", value: digest))
            } while take(UInt8(ascii: ","))
            guard take(UInt8(ascii: "]")) else { return nil }
        }
        skipSpace()
        return position == bytes.count ? cells : nil
    }

    /// One row's object: a cell for each member, in order.
    private mutating func rowCells(query: Int, row: Int64, into cells: inout [PostgresStore.Cell]) -> Bool {
        guard take(UInt8(ascii: "{")) else { return false }
        if take(UInt8(ascii: "}")) { return true }
        repeat {
            guard let name = string(), take(UInt8(ascii: ":")), let (kind, value) = scalar() else { return false }
            cells.append(PostgresStore.Cell(query: query, row: row, name: name, kind: kind, value: value))
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "}"))
    }

    /// A member's value as `json_typeof` names its kind and `#>> '{}'` gives its text (nil for null).
    private mutating func scalar() -> (kind: String, value: String?)? {
        skipSpace()
        guard position < bytes.count else { return nil }
        switch bytes[position] {
        case UInt8(ascii: "\""):
            return string().map { ("string", $0) }
        case UInt8(ascii: "t"):
            return literal("true") ? ("boolean", "true") : nil
        case UInt8(ascii: "f"):
            return literal("false") ? ("boolean", "false") : nil
        case UInt8(ascii: "n"):
            return literal("null") ? ("null", nil) : nil
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let start = position
            position += 1
            while position < bytes.count, Self.isNumberByte(bytes[position]) { position += 1 }
            return ("number", String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self))
        default:
            return nil  // an object or an array: a JSON column
        }
    }

    private static func isNumberByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"),
             UInt8(ascii: "+"), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }

    /// A JSON string, unescaped; the bytes between the quotes as they are when it has no escape (the usual case).
    private mutating func string() -> String? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = position
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: "\""):
                defer { position += 1 }
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
            case UInt8(ascii: "\\"):
                return escapedString(from: start)
            case 0..<0x20:
                return nil  // a control character must be escaped
            default:
                position += 1
            }
        }
        return nil
    }

    /// The rest of a string that has an escape: its bytes so far, then each escape decoded.
    private mutating func escapedString(from start: Int) -> String? {
        var decoded = Array(bytes[start..<position])
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: decoded, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard position < bytes.count else { return nil }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(escape)
                case UInt8(ascii: "b"): decoded.append(0x08)
                case UInt8(ascii: "f"): decoded.append(0x0C)
                case UInt8(ascii: "n"): decoded.append(0x0A)
                case UInt8(ascii: "r"): decoded.append(0x0D)
                case UInt8(ascii: "t"): decoded.append(0x09)
                case UInt8(ascii: "u"):
                    guard var scalar = hexUnit() else { return nil }
                    if (0xD800..<0xDC00).contains(scalar) {
                        // A high surrogate must be followed by an escaped low one.
                        guard literal("\\u"), let low = hexUnit(), (0xDC00..<0xE000).contains(low) else { return nil }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { return nil }
                    decoded.append(contentsOf: Array(String(Character(unicode)).utf8))
                default:
                    return nil
                }
            case 0..<0x20:
                return nil
            default:
                decoded.append(byte)
            }
        }
        return nil
    }

    /// The four hex digits of a `\u` escape.
    private mutating func hexUnit() -> UInt32? {
        guard position + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    /// Consumes `word` exactly (no space skipped inside it).
    private mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard position + count <= bytes.count else { return false }
        let matches = word.withUTF8Buffer { expected in
            (0..<count).allSatisfy { bytes[position + $0] == expected[$0] }
        }
        if matches { position += count }
        return matches
    }

    /// Skips white space, then consumes `byte` if it is next.
    private mutating func take(_ byte: UInt8) -> Bool {
        skipSpace()
        guard position < bytes.count, bytes[position] == byte else { return false }
        position += 1
        return true
    }

    private mutating func skipSpace() {
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): position += 1
            default: return
            }
        }
    }
}
