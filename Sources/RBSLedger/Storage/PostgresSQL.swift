import Foundation

/// The ledger's SQL text as PostgreSQL's extended protocol takes it: `?` placeholders numbered `$1…$n`, and a
/// script cut into its statements (one statement a message).
///
/// Both walk the text once, stepping over what is not SQL to change: quoted strings (`'it''s'`), quoted names
/// (`"a?b"`), dollar-quoted bodies (`$$ … $$`, `$fn$ … $fn$`, a function's body with its own `;`) and comments.
enum PostgresSQL {
    /// `sql` with its `?` placeholders numbered `$1`, `$2`, … in order; `count` is how many there were.
    static func numbered(_ sql: String) -> (sql: String, count: Int) {
        guard sql.utf8.contains(UInt8(ascii: "?")) else { return (sql, 0) }
        var out = [UInt8]()
        out.reserveCapacity(sql.utf8.count + 16)
        var count = 0
        walk(Array(sql.utf8)) { byte, code in
            if code && byte == UInt8(ascii: "?") {
                count += 1
                out.append(UInt8(ascii: "$"))
                out.append(contentsOf: String(count).utf8)
            } else {
                out.append(byte)
            }
        }
        return (String(decoding: out, as: UTF8.self), count)
    }

    /// `sql` with each `?` placeholder replaced by its argument as a typed literal (`'it''s'::text`, `(5)::int8`,
    /// `'\x0a0b'::bytea`, `NULL`): the one-call write path sends statements as text to a server-side function.
    /// The literal has the type a bound argument of that kind would have, so the statement means the same. Nil
    /// when the count of placeholders and arguments differ.
    ///
    /// `expression` may give, for an argument (by its index), a server expression to put in its place instead (the
    /// journal number and hashes the server binds at commit, ``SpeculativeTransaction``): chosen per argument from
    /// its index and value, never from the statement's text, so no text a customer wrote can become SQL.
    static func inlined(_ sql: String, _ arguments: [SQLValue], expression: (Int, SQLValue) -> String? = { _, _ in nil }) -> String? {
        var out = [UInt8]()
        out.reserveCapacity(sql.utf8.count + arguments.count * 16)
        var index = 0
        walk(Array(sql.utf8)) { byte, code in
            guard code && byte == UInt8(ascii: "?") else { return out.append(byte) }
            if index < arguments.count {
                out.append(contentsOf: (expression(index, arguments[index]) ?? literal(arguments[index])).utf8)
            }
            index += 1
        }
        guard index == arguments.count else { return nil }
        return String(decoding: out, as: UTF8.self)
    }

    /// One value as a PostgreSQL literal (standard_conforming_strings is on from PostgreSQL 9.1: a backslash in
    /// a quoted string is itself, only the quote is doubled).
    static func literal(_ value: SQLValue) -> String {
        switch value {
        case .null: return "NULL"
        case .integer(let number): return "(\(number))::int8"
        case .text(let text): return "'" + text.replacingOccurrences(of: "'", with: "''") + "'::text"
        case .blob(let bytes): return "'\\x" + Hex.encode(bytes) + "'::bytea"
        }
    }

    /// The statements of `script`, each without its `;`, blank ones left out.
    static func statements(_ script: String) -> [String] {
        var statements: [String] = []
        var current = [UInt8]()
        func flush() {
            let text = String(decoding: current, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if !text.isEmpty { statements.append(text) }
            current.removeAll(keepingCapacity: true)
        }
        walk(Array(script.utf8)) { byte, code in
            if code && byte == UInt8(ascii: ";") {
                flush()
            } else {
                current.append(byte)
            }
        }
        flush()
        return statements
    }

    /// Calls `visit` with every byte of `bytes` and whether it is SQL code (true) or inside a quoted string, a
    /// quoted name, a dollar-quoted body or a comment (false).
    private static func walk(_ bytes: [UInt8], _ visit: (UInt8, Bool) -> Void) {
        let quote = UInt8(ascii: "'"), doubleQuote = UInt8(ascii: "\""), dollar = UInt8(ascii: "$")
        let dash = UInt8(ascii: "-"), slash = UInt8(ascii: "/"), star = UInt8(ascii: "*"), newline = UInt8(ascii: "\n")
        var index = 0
        func emit(_ range: Range<Int>, code: Bool) {
            for position in range { visit(bytes[position], code) }
        }
        while index < bytes.count {
            let byte = bytes[index]
            let next: UInt8? = index + 1 < bytes.count ? bytes[index + 1] : nil
            if byte == quote || byte == doubleQuote {
                // To the closing quote; a doubled quote inside stays inside.
                var end = index + 1
                while end < bytes.count {
                    if bytes[end] == byte {
                        if end + 1 < bytes.count && bytes[end + 1] == byte { end += 2; continue }
                        break
                    }
                    end += 1
                }
                end = min(end + 1, bytes.count)
                emit(index..<end, code: false)
                index = end
            } else if byte == dash && next == dash {
                var end = index
                while end < bytes.count && bytes[end] != newline { end += 1 }
                emit(index..<end, code: false)
                index = end
            } else if byte == slash && next == star {
                var end = index + 2
                while end + 1 < bytes.count && !(bytes[end] == star && bytes[end + 1] == slash) { end += 1 }
                end = min(end + 2, bytes.count)
                emit(index..<end, code: false)
                index = end
            } else if byte == dollar, let tagEnd = dollarTagEnd(bytes, from: index) {
                // $tag$ … $tag$: the body ends at the same tag.
                let tag = Array(bytes[index...tagEnd])
                var end = tagEnd + 1
                while end < bytes.count {
                    if bytes[end] == dollar, end + tag.count <= bytes.count, Array(bytes[end..<end + tag.count]) == tag {
                        end += tag.count
                        break
                    }
                    end += 1
                }
                end = min(end, bytes.count)
                emit(index..<end, code: false)
                index = end
            } else {
                visit(byte, true)
                index += 1
            }
        }
    }

    /// The index of the `$` closing a dollar-quote tag that starts at `start` (`$$` or `$name$`), or nil when the
    /// `$` there is something else (a `$1` placeholder).
    private static func dollarTagEnd(_ bytes: [UInt8], from start: Int) -> Int? {
        var index = start + 1
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "$") { return index }
            let letter = (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || byte == UInt8(ascii: "_")
            let digit = byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
            // A tag does not start with a digit ($1 is a parameter).
            guard letter || (digit && index > start + 1) else { return nil }
            index += 1
        }
        return nil
    }
}
