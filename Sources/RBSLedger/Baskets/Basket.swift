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
    /// different keys. Totals add each document's `amount` and `fee` into its `currency` (documents without an amount, a card
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

    /// Each currency's sum of what the documents debit — the amount plus the fee (``Payment/totalDebited``): what
    /// the person approves altogether leaves their accounts — (documents that move no money, a card block, add nothing),
    /// exact, written with the currency's minor units. A document with a missing or malformed money field cannot be
    /// in a basket: its total would be a guess (``BasketError/badPayment(position:_:)``).
    static func totals(of documents: [Document]) throws(BasketError) -> [BasketTotal] {
        var sums: [Currency: Int64] = [:]
        for (offset, document) in documents.enumerated() {
            let payment: Payment?
            do { payment = try Payment(document) } catch { throw .badPayment(position: offset + 1, error) }
            guard let amount = payment?.totalDebited else { continue }
            let (sum, overflow) = (sums[amount.currency] ?? 0).addingReportingOverflow(amount.minorUnits)
            guard !overflow, let total = Money(minorUnits: sum, currency: amount.currency) else {
                throw .badAmount(position: offset + 1, amount: amount.plain)
            }
            sums[amount.currency] = total.minorUnits
        }
        return sums.compactMap { currency, sum in
            Money(minorUnits: sum, currency: currency).map { BasketTotal(currency: currency.code, amount: $0.plain) }
        }.sorted { $0.currency.utf8.lexicographicallyPrecedes($1.currency.utf8) }
    }

    /// The basket id: lowercase hex SHA-256 of the canonical list.
    public var id: String { list.id }
    public var keyId: String { list.keyId }
    public var totals: [BasketTotal] { list.totals }
}
