import Crypto
import Foundation

/// What ``Journal/verify(authenticator:)`` checks for entries signed in a basket: the basket each names is stored,
/// its list still hashes to its id, the host's signature over the list verifies with the registered key, the
/// entry's document is in that list, and (once every listed document was seen) the list's totals are the sum of
/// its documents. Each basket's list and signature are checked once.
struct BasketCheck {
    private struct Stored {
        let list: Data
        let signature: Data
        let keyId: String
    }

    private var stored: [String: Stored] = [:]
    /// A basket's list as decoded, or why it is bad (checked once).
    private var checked: [String: Result<BasketList, Bad>] = [:]
    /// The documents seen so far of each basket, by document id: the entry and its document.
    private var seen: [String: [String: (sequence: Int64, document: Document)]] = [:]

    private struct Bad: Error { let reason: String }

    init(rows: [SQLRow]) {
        for row in rows {
            guard let id = try? row.decode(String.self, forColumn: "basket_id"), let list = try? row.decode(Data.self, forColumn: "list"),
                  let signature = try? row.decode(Data.self, forColumn: "signature"),
                  let keyId = try? row.decode(String.self, forColumn: "key_id") else { continue }
            stored[id] = Stored(list: list, signature: signature, keyId: keyId)
        }
    }

    /// What is wrong with `entry`'s basket or its place in it, or `nil` (also for an entry signed on its own).
    mutating func problem(with entry: JournalEntry, keys: [String: Data]) -> String? {
        guard let id = entry.basketId else { return nil }
        let list: BasketList
        switch checked[id] ?? check(id, keys: keys) {
        case .failure(let bad): return bad.reason
        case .success(let good): list = good
        }
        guard list.documentIds.contains(entry.documentId) else {
            return "its document \(entry.documentId) is not in the list of basket \(Self.short(id)) that the code and the "
                + "basket's signature cover: the document or the basket's list was changed after signing"
        }
        guard entry.keyId == list.keyId else {
            return "the entry names key \(entry.keyId) but its basket \(Self.short(id)) was signed with key \(list.keyId)"
        }
        if let document = try? CanonicalEncoding.decode(entry.document) {
            seen[id, default: [:]][entry.documentId] = (entry.sequence, document)
        }
        return nil
    }

    /// " (signed in basket 1a2b3c4d…, document 2 of 5)" for an entry of a basket, else "".
    func context(of entry: JournalEntry) -> String {
        guard let id = entry.basketId else { return "" }
        guard case .success(let list) = checked[id], let index = list.documentIds.firstIndex(of: entry.documentId) else {
            return " (signed in basket \(Self.short(id)))"
        }
        return " (signed in basket \(Self.short(id)), document \(index + 1) of \(list.documentIds.count))"
    }

    /// A basket whose every listed document was seen but whose totals are not their sum: its last entry and why.
    func totalsProblem() -> (Int64, String)? {
        for (id, documents) in seen.sorted(by: { $0.key < $1.key }) {
            guard case .success(let list) = checked[id], documents.count == list.documentIds.count else { continue }
            let ordered = list.documentIds.compactMap { documents[$0] }
            guard let sums = try? Basket.totals(of: ordered.map(\.document)), sums != list.totals else { continue }
            func shown(_ totals: [BasketTotal]) -> String { totals.map { "\($0.amount) \($0.currency)" }.joined(separator: ", ") }
            return (ordered.map(\.sequence).max() ?? 0,
                    "basket \(Self.short(id)) says its total is \(shown(list.totals)), but its documents add up to \(shown(sums))")
        }
        return nil
    }

    private mutating func check(_ id: String, keys: [String: Data]) -> Result<BasketList, Bad> {
        let result: Result<BasketList, Bad>
        defer { checked[id] = result }
        guard let basket = stored[id] else {
            result = .failure(Bad(reason: "it names basket \(Self.short(id)), whose list and signature are not stored"))
            return result
        }
        guard BasketList.id(ofCanonical: basket.list) == id else {
            result = .failure(Bad(reason: "the list of basket \(Self.short(id)) was altered: it no longer hashes to the basket id"))
            return result
        }
        let list: BasketList
        do { list = try BasketList.decode(basket.list) } catch {
            result = .failure(Bad(reason: "the list of basket \(Self.short(id)) does not parse: \(error.description)"))
            return result
        }
        guard list.keyId == basket.keyId, let raw = keys[list.keyId],
              let key = try? Curve25519.Signing.PublicKey(rawRepresentation: raw) else {
            result = .failure(Bad(reason: "the key \(list.keyId) of basket \(Self.short(id)) is not registered, so its signature cannot be checked"))
            return result
        }
        guard key.isValidSignature(basket.signature, for: basket.list) else {
            result = .failure(Bad(reason: "the signature of basket \(Self.short(id)) over its list does not verify with key \(list.keyId)"))
            return result
        }
        result = .success(list)
        return result
    }

    /// The first 16 hex digits of a basket id and an ellipsis.
    static func short(_ id: String) -> String { String(id.prefix(16)) + "…" }
}
