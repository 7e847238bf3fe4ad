import Foundation

/// A signed basket as the ledger keeps it (table `baskets`, append-only): the canonical list, the host's
/// Ed25519 signature over it and the key that made it. Each journal entry of the basket names it by id.
public struct BasketRecord: Sendable, Hashable {
    public let list: BasketList
    /// The canonical bytes as stored (``BasketList/canonicalBytes`` when intact).
    public let listBytes: Data
    public let signature: Data
    public let keyId: String
    public let recordedAtMilliseconds: Int64

    public var id: String { list.id }

    init(row: SQLRow) throws(LedgerError) {
        let id = (try? row.decode(String.self, forColumn: "basket_id")) ?? "?"
        do {
            listBytes = try row.decode(Data.self, forColumn: "list")
            list = try BasketList.decode(listBytes)
            signature = try row.decode(Data.self, forColumn: "signature")
            keyId = try row.decode(String.self, forColumn: "key_id")
            recordedAtMilliseconds = try row.decode(Int64.self, forColumn: "recorded_ms")
        } catch let error as BasketError {
            throw .corruptDatabase(path: "baskets", detail: "basket \(id) cannot be read: \(error.description)")
        } catch {
            throw .corruptDatabase(path: "baskets", detail: "basket \(id) cannot be read: \(error)")
        }
    }
}
