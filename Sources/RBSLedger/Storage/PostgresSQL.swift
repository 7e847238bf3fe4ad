import Crypto
import Foundation
import Synchronization

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
        let placeholders = placeholderOffsets(sql)
        guard placeholders.count == arguments.count else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(sql.utf8.count + arguments.count * 16)
        let bytes = Array(sql.utf8)
        var start = 0
        for (index, placeholder) in placeholders.enumerated() {
            out.append(contentsOf: bytes[start..<placeholder])
            if let expression = expression(index, arguments[index]) {
                out.append(contentsOf: expression.utf8)
            } else {
                appendLiteral(arguments[index], to: &out)
            }
            start = placeholder + 1
        }
        out.append(contentsOf: bytes[start...])
        return String(decoding: out, as: UTF8.self)
    }

    /// A statement as a plan the server keeps and the values to run it with (schema step `v26-kept-plans`): the
    /// text with `$1…$n` where ``inlined(_:_:expression:)`` writes a value — a NULL stays written as `NULL`, whose
    /// type a plan could not always infer — the values (each the typed literal or server expression ``inlined``
    /// writes) joined by commas, and their types, joined by commas, from the value's kind (an expression stands for
    /// a value of the same kind: a journal number for an integer, a hash for bytes).
    struct Parametrized: Equatable, Sendable {
        let template: String
        let arguments: String
        let types: String
    }

    /// `sql` as a ``Parametrized`` statement, or nil when the count of placeholders and arguments differ.
    static func parametrized(_ sql: String, _ arguments: [SQLValue],
                             expression: (Int, SQLValue) -> String? = { _, _ in nil }) -> Parametrized? {
        let placeholders = placeholderOffsets(sql)
        guard placeholders.count == arguments.count else { return nil }
        let bytes = Array(sql.utf8)
        var template = [UInt8](), values = [UInt8](), types = [UInt8]()
        template.reserveCapacity(bytes.count + arguments.count * 3)
        values.reserveCapacity(arguments.count * 16)
        var start = 0, number = 0
        for (index, placeholder) in placeholders.enumerated() {
            template.append(contentsOf: bytes[start..<placeholder])
            start = placeholder + 1
            let value = arguments[index]
            let given = expression(index, value)
            let type: String
            switch value {
            case .null:
                guard given != nil else {
                    template.append(contentsOf: "NULL".utf8)
                    continue
                }
                type = "unknown"
            case .integer: type = "int8"
            case .text: type = "text"
            case .blob: type = "bytea"
            }
            number += 1
            template.append(UInt8(ascii: "$"))
            template.append(contentsOf: String(number).utf8)
            if number > 1 {
                values.append(UInt8(ascii: ","))
                types.append(UInt8(ascii: ","))
            }
            if let given { values.append(contentsOf: given.utf8) } else { appendLiteral(value, to: &values) }
            types.append(contentsOf: type.utf8)
        }
        template.append(contentsOf: bytes[start...])
        return Parametrized(template: String(decoding: template, as: UTF8.self), arguments: String(decoding: values, as: UTF8.self),
                            types: String(decoding: types, as: UTF8.self))
    }

    /// The digest a one-call commit (schema step v30) is sent for a once-only id's lookup that found nothing: looked
    /// up before the commit's transaction, refused if it finds a row (``PostgresStore``'s `commit`). Never merged.
    static let onceOnly = "once"

    /// The checks of a one-call commit (`rbs_v26_commit`'s statements: a query with the digest of the rows the host
    /// decided on, a write with the digest `""`) with each run of consecutive queries made one kept query: its
    /// template selects each query's digest — `md5` of its rows' JSON texts joined by newlines, as the commit makes
    /// it of a query alone — as columns `d1`, `d2`, …, its values are the queries' values in order (each template's
    /// `$k` moved past the ones before it), and its digest is that of the one row it gives, `{"d1":"…","d2":"…"}`,
    /// made here from the queries' digests. So the server starts one statement for the run where it started one a
    /// query (in one session on this machine, a payment's seven checks cost 318 µs one by one and 210 µs as one),
    /// and every row is still compared: a changed row changes its digest, and so the run's, which refuses the commit
    /// as before. A run of one query, every write and every ``onceOnly`` lookup is left as it is; a query after a
    /// write stays after it, so it still sees that write.
    static func mergedChecks(_ plans: [Parametrized], digests: [String]) -> (plans: [Parametrized], digests: [String]) {
        guard plans.count == digests.count else { return (plans, digests) }
        var mergedPlans: [Parametrized] = [], mergedDigests: [String] = []
        mergedPlans.reserveCapacity(plans.count)
        mergedDigests.reserveCapacity(plans.count)
        var index = 0
        while index < plans.count {
            var end = index
            while end < plans.count && !digests[end].isEmpty && digests[end] != onceOnly { end += 1 }
            if end - index >= 2 {
                let run = Array(plans[index..<end])
                let counts = run.map { plan in plan.types.isEmpty ? 0 : plan.types.utf8.count(where: { $0 == UInt8(ascii: ",") }) + 1 }
                let template = mergedTemplate(run.map(\.template), parameterCounts: counts)
                mergedPlans.append(Parametrized(template: template,
                                                arguments: run.map(\.arguments).filter { !$0.isEmpty }.joined(separator: ","),
                                                types: run.map(\.types).filter { !$0.isEmpty }.joined(separator: ",")))
                mergedDigests.append(mergedDigest(Array(digests[index..<end])))
                index = end
            } else {
                mergedPlans.append(plans[index])
                mergedDigests.append(digests[index])
                index += 1
            }
        }
        return (mergedPlans, mergedDigests)
    }

    /// The digest of a merged check's one row: `md5` of `{"d1":"…",…}`, the JSON text PostgreSQL's `to_json` gives a
    /// row of text columns holding hex digests (or the host's `-` for a query it has no digest of, which no row
    /// gives, so the check refuses as that query's alone would).
    static func mergedDigest(_ digests: [String]) -> String {
        var line = [UInt8]("{".utf8)
        for (index, digest) in digests.enumerated() {
            if index > 0 { line.append(UInt8(ascii: ",")) }
            line.append(contentsOf: "\"d\(index + 1)\":\"".utf8)
            line.append(contentsOf: digest.utf8)
            line.append(UInt8(ascii: "\""))
        }
        line.append(UInt8(ascii: "}"))
        return Hex.encode(Insecure.MD5.hash(data: line))
    }

    /// The template of a merged check (``mergedChecks(_:digests:)``), made once for each list of templates and kept:
    /// a payment of a kind asks the same queries every time.
    static func mergedTemplate(_ templates: [String], parameterCounts: [Int]) -> String {
        let key = templates.joined(separator: "\u{0}")
        if let known = mergedTemplates.withLock({ $0[key] }) { return known }
        var out = [UInt8]("SELECT ".utf8)
        var offset = 0
        for (index, template) in templates.enumerated() {
            if index > 0 { out.append(contentsOf: ", ".utf8) }
            // Each query on its own lines: a template that ends in a comment does not comment out the rest.
            out.append(contentsOf: "md5(array_to_string(ARRAY(SELECT to_json(t.*)::text FROM (\n".utf8)
            out.append(contentsOf: renumbered(template, by: offset).utf8)
            out.append(contentsOf: "\n) AS t), chr(10))) AS d\(index + 1)".utf8)
            offset += parameterCounts[index]
        }
        let template = String(decoding: out, as: UTF8.self)
        mergedTemplates.withLock { cache in
            if cache.count >= placeholderTexts { cache.removeAll(keepingCapacity: true) }
            cache[key] = template
        }
        return template
    }

    private static let mergedTemplates = Mutex<[String: String]>([:])

    /// `template` with each `$k` placeholder in its SQL code (not in a quoted string, a name or a comment) made
    /// `$(k + offset)`.
    static func renumbered(_ template: String, by offset: Int) -> String {
        guard offset != 0 else { return template }
        var out = [UInt8]()
        out.reserveCapacity(template.utf8.count + 8)
        var digits: [UInt8]? = nil
        func flush() {
            if let number = digits.flatMap({ Int(String(decoding: $0, as: UTF8.self)) }) {
                out.append(contentsOf: String(number + offset).utf8)
            } else if let digits {
                out.append(contentsOf: digits)
            }
            digits = nil
        }
        walk(Array(template.utf8)) { byte, code in
            if code && digits != nil && byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                digits?.append(byte)
                return
            }
            flush()
            out.append(byte)
            if code && byte == UInt8(ascii: "$") { digits = [] }
        }
        flush()
        return String(decoding: out, as: UTF8.self)
    }

    /// The byte offsets of `sql`'s `?` placeholders (those in SQL code, not in quotes or comments), found by
    /// ``walk(_:_:)`` once for each text and kept: the ledger's statements are a fixed set of texts, written out
    /// with new values for every payment (the walk, a closure call a byte, was ~10% of a host's CPU a payment in
    /// `make bench-pg`). At most `placeholderTexts` texts are kept; when full, it starts again.
    static func placeholderOffsets(_ sql: String) -> [Int] {
        if let known = placeholderCache.withLock({ $0[sql] }) { return known }
        var offsets: [Int] = []
        var position = 0
        walk(Array(sql.utf8)) { byte, code in
            if code && byte == UInt8(ascii: "?") { offsets.append(position) }
            position += 1
        }
        placeholderCache.withLock { cache in
            if cache.count >= placeholderTexts { cache.removeAll(keepingCapacity: true) }
            cache[sql] = offsets
        }
        return offsets
    }

    private static let placeholderTexts = 1024
    private static let placeholderCache = Mutex<[String: [Int]]>([:])

    /// One value as a PostgreSQL literal (standard_conforming_strings is on from PostgreSQL 9.1: a backslash in
    /// a quoted string is itself, only the quote is doubled).
    static func literal(_ value: SQLValue) -> String {
        var out = [UInt8]()
        appendLiteral(value, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// ``literal(_:)``'s bytes appended to `out`: a statement is written out byte by byte, without a string made
    /// for each value (a document's text doubled its quotes through Foundation's `replacingOccurrences`, ~6% of a
    /// host's CPU a payment in `make bench-pg`).
    static func appendLiteral(_ value: SQLValue, to out: inout [UInt8]) {
        let quote = UInt8(ascii: "'")
        switch value {
        case .null:
            out.append(contentsOf: "NULL".utf8)
        case .integer(let number):
            out.append(UInt8(ascii: "("))
            out.append(contentsOf: String(number).utf8)
            out.append(contentsOf: ")::int8".utf8)
        case .text(let text):
            out.append(quote)
            for byte in text.utf8 {
                out.append(byte)
                if byte == quote { out.append(quote) }
            }
            out.append(contentsOf: "'::text".utf8)
        case .blob(let bytes):
            out.append(contentsOf: "'\\x".utf8)
            Hex.append(bytes, to: &out)
            out.append(contentsOf: "'::bytea".utf8)
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
