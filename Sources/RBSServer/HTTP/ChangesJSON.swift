/// The JSON of a commit's or a press's answer (`API.Changes`), written straight into bytes: the bytes
/// `Routes.encoder` (sorted keys, slashes as they are) writes for it, without the encoder's generic containers, which
/// were 4% of the server's CPU under the commit load (issue #33). `ChangesJSONTests` compares the two.
enum ChangesJSON {
    static func bytes(_ changes: API.Changes) -> [UInt8] {
        var out = Writer()
        out.bytes.reserveCapacity(256 + changes.changed.count * 256)
        out.raw("{\"changed\":[")
        for (index, atom) in changes.changed.enumerated() {
            if index > 0 { out.raw(",") }
            out.atom(atom)
        }
        out.raw("]")
        out.member("formError", changes.formError)
        out.key("ready")
        out.bool(changes.ready)
        out.raw("}")
        return out.bytes
    }

    private struct Writer {
        var bytes: [UInt8] = []

        mutating func raw(_ text: StaticString) {
            text.withUTF8Buffer { bytes.append(contentsOf: $0) }
        }

        /// `,"name":"value"` when there is a value; nothing when it is nil (the encoder leaves nil members out).
        mutating func member(_ name: StaticString, _ value: String?) {
            guard let value else { return }
            key(name)
            string(value)
        }

        /// `,"key":` — every key but an object's first.
        mutating func key(_ name: StaticString) {
            raw(",\"")
            raw(name)
            raw("\":")
        }

        mutating func bool(_ flag: Bool) { flag ? raw("true") : raw("false") }

        /// A JSON string as the encoder writes it: `"` and `\` escaped, the control characters as \b \t \n \f \r or
        /// \u00XX, everything else (slashes, non-ASCII) as its UTF-8.
        mutating func string(_ text: String) {
            bytes.append(UInt8(ascii: "\""))
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "\""): raw("\\\"")
                case UInt8(ascii: "\\"): raw("\\\\")
                case 0x08: raw("\\b")
                case 0x09: raw("\\t")
                case 0x0A: raw("\\n")
                case 0x0C: raw("\\f")
                case 0x0D: raw("\\r")
                case 0..<0x20:
                    raw("\\u00")
                    bytes.append(Self.hex[Int(byte >> 4)])
                    bytes.append(Self.hex[Int(byte & 0x0F)])
                default: bytes.append(byte)
                }
            }
            bytes.append(UInt8(ascii: "\""))
        }

        private static let hex = Array("0123456789abcdef".utf8)

        /// An atom's members in the encoder's sorted order, those that are nil left out ("caption" is always there, and
        /// only "accounts" sorts before it).
        mutating func atom(_ atom: API.Atom) {
            raw("{")
            if let accounts = atom.accounts {
                raw("\"accounts\":[")
                for (index, account) in accounts.enumerated() {
                    if index > 0 { raw(",") }
                    raw("{\"balance\":")
                    string(account.balance)
                    key("currency")
                    string(account.currency)
                    key("number")
                    string(account.number)
                    key("title")
                    string(account.title)
                    raw("}")
                }
                raw("],")
            }
            raw("\"caption\":")
            string(atom.caption)
            member("currency", atom.currency)
            member("error", atom.error)
            member("hint", atom.hint)
            key("id")
            string(atom.id)
            member("inputType", atom.inputType)
            key("kind")
            string(atom.kind)
            if let maxLength = atom.maxLength {
                key("maxLength")
                bytes.append(contentsOf: String(maxLength).utf8)
            }
            key("optional")
            bool(atom.optional)
            if let options = atom.options {
                key("options")
                raw("[")
                for (index, option) in options.enumerated() {
                    if index > 0 { raw(",") }
                    raw("{\"title\":")
                    string(option.title)
                    key("value")
                    string(option.value)
                    raw("}")
                }
                raw("]")
            }
            key("secret")
            bool(atom.secret)
            key("submit")
            bool(atom.submit)
            key("value")
            switch atom.value {
            case .text(let text): string(text)
            case .flag(let flag): bool(flag)
            }
            key("visible")
            bool(atom.visible)
            raw("}")
        }
    }
}
