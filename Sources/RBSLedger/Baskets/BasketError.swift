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
    /// A document's amount cannot be added to its currency's total (the sum is beyond 18 digits).
    case badAmount(position: Int, amount: String)
    /// A document moves money but a money field is missing or malformed (the field named by its label).
    case badPayment(position: Int, PaymentError)
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
            "document \(position)'s amount \(amount) takes its currency's total beyond 18 digits, so the basket cannot hold it"
        case .badPayment(let position, let error):
            "document \(position) of the basket: \(error.description)"
        case .malformed(let line, let reason):
            "the basket's canonical bytes are malformed at line \(line): \(reason)"
        }
    }
}
