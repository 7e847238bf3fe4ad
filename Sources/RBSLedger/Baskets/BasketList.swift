import Crypto
import Foundation
import RBSMoney

/// The canonical form of a basket: what one code authorises and the host's signature covers — the signing key,
/// the documents' ids in the order the person reviewed them, and the total per currency.
///
/// ```
/// RBSBASKET1
/// key_id=<16 lowercase hex>
/// documents=<count, decimal, no leading zeros>
/// <document id: 64 lowercase hex>      (one line a document, in review order)
/// totals=<count>
/// <currency>=<plain decimal>            (one line a currency, sorted by code)
/// ```
///
/// Every line ends with one LF. A document id is the SHA-256 of that document's canonical bytes (amount, currency,
/// payee account, payee name, BIC, purpose, debit account, time, nonce…), so the list binds every payee and every
/// amount; the totals say in so many words what the person approved altogether. The basket id is the lowercase
/// hex SHA-256 of these bytes, and the OCRA challenge of a basket derives from it exactly as a document's does
/// from the document id: any change to any amount, payee account or payee name, to the order or to the totals,
/// gives another basket id, hence another challenge.
public struct BasketList: Sendable, Hashable {
    public static let magic = "RBSBASKET1"

    public let keyId: String
    /// The documents' ids, in review order.
    public let documentIds: [String]
    /// One total a currency, sorted by currency code.
    public let totals: [BasketTotal]

    public init(keyId: String, documentIds: [String], totals: [BasketTotal]) {
        self.keyId = keyId
        self.documentIds = documentIds
        self.totals = totals.sorted { $0.currency.utf8.lexicographicallyPrecedes($1.currency.utf8) }
    }

    /// The canonical bytes: what the host signs and the basket id hashes.
    public var canonicalBytes: Data {
        var lines = [Self.magic, "key_id=\(keyId)", "documents=\(documentIds.count)"]
        lines += documentIds
        lines.append("totals=\(totals.count)")
        lines += totals.map { "\($0.currency)=\($0.amount)" }
        return Data((lines.joined(separator: "\n") + "\n").utf8)
    }

    /// Lowercase hex SHA-256 of the canonical bytes.
    public var id: String { Self.id(ofCanonical: canonicalBytes) }

    static func id(ofCanonical bytes: Data) -> String { Hex.encode(SHA256.hash(data: bytes)) }

    /// The list these bytes encode; anything ``canonicalBytes`` would not have written is an error naming the line.
    public static func decode(_ bytes: Data) throws(BasketError) -> BasketList {
        guard let text = String(data: bytes, encoding: .utf8) else { throw .malformed(line: 1, reason: "the bytes are not UTF-8") }
        guard text.hasSuffix("\n") else { throw .malformed(line: 1, reason: "the last line does not end with a line feed") }
        let lines = text.dropLast().split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var index = 0
        func next(_ what: String) throws(BasketError) -> String {
            guard index < lines.count else { throw .malformed(line: index + 1, reason: "\(what) is missing") }
            index += 1
            return lines[index - 1]
        }
        func count(_ name: String) throws(BasketError) -> Int {
            let line = try next("the \(name) count")
            let prefix = name + "="
            guard line.hasPrefix(prefix), let value = Int(line.dropFirst(prefix.count)), value >= 0,
                  String(value) == line.dropFirst(prefix.count) else {
                throw .malformed(line: index, reason: "expected \(name)=COUNT")
            }
            return value
        }
        guard try next("the first line") == magic else { throw .malformed(line: 1, reason: "the first line is not \(magic)") }
        let keyLine = try next("key_id")
        guard keyLine.hasPrefix("key_id="), keyLine.utf8.count == 7 + 16,
              Hex.decode(String(keyLine.dropFirst(7)), lowercaseOnly: true) != nil else {
            throw .malformed(line: index, reason: "expected key_id=<16 lowercase hex digits>")
        }
        var ids: [String] = []
        for _ in 0..<(try count("documents")) {
            let id = try next("a document id")
            guard id.utf8.count == 64, Hex.decode(id, lowercaseOnly: true) != nil else {
                throw .malformed(line: index, reason: "expected a document id (64 lowercase hex digits)")
            }
            ids.append(id)
        }
        var totals: [BasketTotal] = []
        for _ in 0..<(try count("totals")) {
            let line = try next("a total")
            guard let equals = line.firstIndex(of: "="), DecimalText.scale(of: String(line[line.index(after: equals)...])) != nil else {
                throw .malformed(line: index, reason: "expected CURRENCY=AMOUNT")
            }
            totals.append(BasketTotal(currency: String(line[..<equals]), amount: String(line[line.index(after: equals)...])))
        }
        guard index == lines.count else { throw .malformed(line: index + 1, reason: "unexpected data after the totals") }
        let list = BasketList(keyId: String(keyLine.dropFirst(7)), documentIds: ids, totals: totals)
        guard list.canonicalBytes == bytes else { throw .malformed(line: 1, reason: "the totals are not sorted by currency") }
        return list
    }
}
