/// What is wrong with a document, or with bytes that were meant to be one in the canonical encoding.
public enum DocumentError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A field key that is not `[a-z][A-Za-z0-9_]*`.
    case invalidFieldKey(String)
    /// The same field key given twice.
    case duplicateFieldKey(String)
    /// A header value (operation, plugin, plugin version) that is empty.
    case emptyHeader(name: String)
    /// A value with a control character other than line feed, carriage return or tab.
    case controlCharacter(field: String)
    /// The `amount` field is not a plain decimal such as `1500.00`.
    case invalidAmount(String)
    /// The nonce is not 16 bytes.
    case invalidNonce(byteCount: Int)
    /// The key id is not 16 lowercase hex characters.
    case invalidKeyId(String)
    /// The canonical bytes do not parse; `line` is 1-based.
    case malformed(line: Int, reason: String)

    public var description: String {
        switch self {
        case .invalidFieldKey(let key):
            "field key \"\(key)\" is not allowed: keys start with a lowercase letter and contain only letters, digits and '_'"
        case .duplicateFieldKey(let key):
            "field \"\(key)\" is given twice; each field key may appear once"
        case .emptyHeader(let name):
            "the document's \(name) is empty; it must name what produced the document"
        case .controlCharacter(let field):
            "field \"\(field)\" contains a control character; only line feed, carriage return and tab are allowed"
        case .invalidAmount(let text):
            "amount \"\(text)\" is not a plain decimal: write digits with an optional '.' and fraction, e.g. 1500.00"
        case .invalidNonce(let count):
            "the nonce has \(count) bytes; it must have 16"
        case .invalidKeyId(let id):
            "key id \"\(id)\" is not 16 lowercase hex characters"
        case .malformed(let line, let reason):
            "the document's canonical bytes are malformed at line \(line): \(reason)"
        }
    }
}
