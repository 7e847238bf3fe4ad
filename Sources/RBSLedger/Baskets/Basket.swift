import Foundation
import RBSMoney

/// Several filled documents (of any operations) signed with one code: a signing basket (Berlin Group's
/// NextGenPSD2 name). The person reviews every document's amount and payee and the total per currency, then
/// gives one code (or one OCRA response to the basket's challenge); the host signs the basket's canonical list
/// (``BasketList``) and each document, and each document is then posted or rejected on its own.
public struct Basket: Sendable, Hashable {
    /// The most documents one code signs.
    public static let maximumDocuments = 100

    /// In review order.
    public let documents: [Document]
    /// The canonical list: key, document ids, totals.
    public let list: BasketList

    /// Refuses an empty basket, more than ``maximumDocuments``, the same document twice, and documents for
    /// different keys. Totals add each document's `amount` into its `currency` (documents without an amount, a card
    /// block, add nothing), exactly, with the currency's minor units (``totals(of:)``).
    public init(_ documents: [Document]) throws(BasketError) {
        guard let first = documents.first else { throw .empty }
        guard documents.count <= Self.maximumDocuments else { throw .tooMany(documents.count) }
        let ids = Parallel.map(documents, \.id)
        var seen: [String: Int] = [:]
        for (offset, document) in documents.enumerated() {
            if let earlier = seen[ids[offset]] { throw .repeated(documentId: ids[offset], first: earlier, again: offset + 1) }
            seen[ids[offset]] = offset + 1
            guard document.keyId == first.keyId else {
                throw .mixedKeys(position: offset + 1, keyId: document.keyId, basketKeyId: first.keyId)
            }
        }
        self.documents = documents
        list = BasketList(keyId: first.keyId, documentIds: ids, totals: try Self.totals(of: documents))
    }

    /// Each currency's sum of the documents' `amount`s (documents without an amount, a card block, add nothing),
    /// exact, written with the currency's minor units (more only when a document has more: never rounded).
    static func totals(of documents: [Document]) throws(BasketError) -> [BasketTotal] {
        var sums: [String: (sum: Decimal, scale: Int)] = [:]
        for (offset, document) in documents.enumerated() {
            guard let text = document["amount"], !text.isEmpty else { continue }
            guard let amount = DecimalText.parse(text), let scale = DecimalText.scale(of: text) else {
                throw .badAmount(position: offset + 1, amount: text)
            }
            let currency = document["currency"] ?? ""
            let running = sums[currency] ?? (0, Currency(code: currency)?.minorUnits ?? 2)
            sums[currency] = (running.sum + amount, max(running.scale, scale))
        }
        return sums.map { currency, total in
            BasketTotal(currency: currency, amount: DecimalText.format(total.sum, scale: total.scale) ?? total.sum.description)
        }.sorted { $0.currency.utf8.lexicographicallyPrecedes($1.currency.utf8) }
    }

    /// The basket id: lowercase hex SHA-256 of the canonical list.
    public var id: String { list.id }
    public var keyId: String { list.keyId }
    public var totals: [BasketTotal] { list.totals }
}
