/// Why a basket cannot be made, signed or read back.
public enum BasketError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A basket with no document.
    case empty
    /// More documents than ``Basket/maximumDocuments``.
    case tooMany(Int)
    /// The same document twice (by its id), at these positions (1-based).
    case repeated(documentId: String, first: Int, again: Int)
    /// A document names another signing key than the basket's first document.
    case mixedKeys(position: Int, keyId: String, basketKeyId: String)
    /// A document's amount cannot be added to its currency's total.
    case badAmount(position: Int, amount: String)
    /// The canonical bytes of a basket do not parse; `line` is 1-based.
    case malformed(line: Int, reason: String)

    public var description: String {
        switch self {
        case .empty:
            "the basket is empty: add the documents to sign together first"
        case .tooMany(let count):
            "the basket holds \(count) documents; at most \(Basket.maximumDocuments) are signed with one code"
        case .repeated(let id, let first, let again):
            "documents \(first) and \(again) of the basket are the same document (\(id.prefix(16))…); each document is signed once"
        case .mixedKeys(let position, let keyId, let basketKeyId):
            "document \(position) of the basket names signing key \(keyId), the others \(basketKeyId): one basket is signed with one key"
        case .badAmount(let position, let amount):
            "document \(position)'s amount \"\(amount)\" is not a plain decimal, so the basket's total cannot include it"
        case .malformed(let line, let reason):
            "the basket's canonical bytes are malformed at line \(line): \(reason)"
        }
    }
}
