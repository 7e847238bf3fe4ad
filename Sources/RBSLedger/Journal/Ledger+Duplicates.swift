import Foundation
import RBSMoney

/// What a new payment repeats: the same payee (name), account, amount in the same currency and purpose.
public enum DuplicateOf: Sendable, Hashable {
    /// A payment the signer posted in the last 24 hours, or signed then and still awaiting its second signature.
    case entry(JournalEntry)
    /// An earlier document of the same basket (1-based position).
    case document(position: Int)
}

/// A payment that repeats another, found by the core before signing (``Ledger/duplicates(of:keyId:)``).
public struct Duplicate: Sendable, Hashable, CustomStringConvertible {
    /// The repeating document's position in its basket (1-based), or nil for a single document.
    public let position: Int?
    public let of: DuplicateOf

    public init(position: Int?, of: DuplicateOf) {
        self.position = position
        self.of = of
    }

    public var description: String {
        let subject = position.map { "document \($0) of the basket" } ?? "this payment"
        switch of {
        case .entry(let entry) where entry.kind == .awaiting:
            return "\(subject) repeats journal entry \(entry.sequence), signed "
                + "\(Timestamp.format(milliseconds: entry.recordedAtMilliseconds)) and awaiting its second signature: the same payee, account, amount and purpose within 24 hours"
        case .entry(let entry):
            return "\(subject) repeats journal entry \(entry.sequence), posted "
                + "\(Timestamp.format(milliseconds: entry.recordedAtMilliseconds)): the same payee, account, amount and purpose within 24 hours"
        case .document(let earlier):
            return "\(subject) repeats document \(earlier) of the same basket: the same payee, account, amount and purpose"
        }
    }
}

extension Ledger {
    /// What each of `documents` (a basket's, in order; or one document) repeats, or nil: a posted payment of the
    /// last 24 hours by the same signer (``recentDuplicate(of:keyId:)``), else an earlier document of the list with
    /// the same payee, account, amount, currency and purpose. The one rule every front end's signing goes through:
    /// ``checkDuplicates(_:confirmed:)``.
    public func duplicates(of documents: [Document]) throws(LedgerError) -> [DuplicateOf?] {
        var found: [DuplicateOf?] = []
        for (index, document) in documents.enumerated() {
            if let entry = try recentDuplicate(of: document, keyId: document.keyId), entry.documentId != document.id {
                found.append(.entry(entry))
            } else if let earlier = documents[..<index].firstIndex(where: { Self.samePayment($0, document) }) {
                found.append(.document(position: earlier + 1))
            } else {
                found.append(nil)
            }
        }
        return found
    }

    /// Throws ``LedgerError/unconfirmedDuplicate(_:)`` for the first of `documents` that repeats a payment, unless the
    /// person `confirmed` the repeat. Asked at signing, not at the review: a payment may have been posted since.
    /// A retry of a request id journaled before (`request`) is no new payment: it is not checked.
    public func checkDuplicates(_ documents: [Document], confirmed: Bool, retrying: Bool = false) throws(LedgerError) {
        guard !confirmed, !retrying else { return }
        let found = try duplicates(of: documents)
        if let index = found.firstIndex(where: { $0 != nil }), let of = found[index] {
            throw .unconfirmedDuplicate(Duplicate(position: documents.count > 1 ? index + 1 : nil, of: of))
        }
    }

    /// Whether two documents pay the same payee the same amount for the same purpose (an amount compared as a value:
    /// "1500" and "1500.00" are the same).
    static func samePayment(_ a: Document, _ b: Document) -> Bool {
        guard let a = Payment.of(a), let b = Payment.of(b) else { return false }
        return a.isSame(as: b)
    }

    /// How far back a posted payment counts as a possible duplicate of a new one.
    public static let duplicateWindow: TimeInterval = 24 * 60 * 60

    /// Throws ``LedgerError/unconfirmedDuplicate(_:)`` when the document awaiting its second signature in entry
    /// `sequence` repeats a payment posted in the last 24 hours, unless the second signer `confirmed` the repeat:
    /// the rule a single signer meets at signing, met by the approval, which is when the payment posts. (An entry
    /// that is not awaiting is left to the approval's own refusals.)
    public func checkDuplicate(approving sequence: Int64, confirmed: Bool) throws(LedgerError) {
        guard !confirmed, let duplicate = try duplicate(approving: sequence) else { return }
        throw .unconfirmedDuplicate(duplicate)
    }

    /// What approving the document awaiting in entry `sequence` would repeat (a payment posted in the last 24 hours),
    /// or nil: what ``checkDuplicate(approving:confirmed:)`` refuses unconfirmed, for a front end that asks first.
    public func duplicate(approving sequence: Int64) throws(LedgerError) -> Duplicate? {
        guard let awaiting = try journal.entry(sequence), awaiting.kind == .awaiting,
              let document = try? CanonicalEncoding.decode(awaiting.document),
              let entry = try recentDuplicate(of: document, keyId: document.keyId, includingAwaiting: false),
              entry.documentId != document.id else { return nil }
        return Duplicate(position: nil, of: .entry(entry))
    }

    /// The latest posted entry of the last 24 hours (by the ledger's clock) whose document pays the same payee
    /// (name), the same account, the same amount in the same currency and with the same purpose as `document`, or
    /// `nil`. The host asks before signing such a document a second time (the REPL asks yes/no; `run` needs
    /// `--confirm-duplicate`). With `keyId`, only entries of that signer's party count: a customer's own, signed
    /// with any of its users' keys or passkeys (another user of the customer, or the customer on a passkey, repeating
    /// a payment was not asked), or the host's signer's, signed with that key. `includingAwaiting`: an entry signed
    /// in the window and still awaiting its second signature counts too (it posts when approved: two of them would
    /// post twice); an approval, which posts one of them, asks only for what was posted.
    public func recentDuplicate(of document: Document, keyId: String? = nil,
                                includingAwaiting: Bool = true) throws(LedgerError) -> JournalEntry? {
        // A document the core would refuse (no amount, a malformed money field) repeats nothing.
        guard let payment = Payment.of(document) else { return nil }
        let since = Timestamp.milliseconds(clock().addingTimeInterval(-Self.duplicateWindow))
        // Only the entries of the same amount in the same currency are read: a posted entry's amount is the posted
        // amount written with the currency's minor units ("1500.00"), one text per value, so the database selects
        // them. (Reading every payment to the payee's account of the day and decoding each document made each check
        // grow with the payee's traffic: a big payee's thousands of payments a day on every review.)
        // With `keyId`, only the party's keys' entries, and the ones a second signer completed (their row names the
        // approver; the document inside names the first signer, compared below): a popular payee's payments of the
        // same amount by other customers are not read at all.
        let (keys, rows) = try database.read { db -> (Set<String>?, [SQLRow]) in
            let kinds = includingAwaiting
                ? "(kind = 'posted' OR (kind = 'awaiting-second-signature' AND NOT EXISTS (SELECT 1 FROM journal d WHERE d.second_of = journal.seq)))"
                : "kind = 'posted'"
            var conditions = [kinds, "credit = ?", "recorded_ms >= ?", "amount = ?", "currency = ?"]
            var arguments: [SQLValue] = [.text(payment.creditAccount), .integer(since), .text(payment.amount.plain),
                                         .text(payment.amount.currency.code)]
            var keys: Set<String>?
            if let keyId {
                if let user = try Customers.user(ofKey: keyId, in: db) {
                    keys = Set(try db.rows(Customers.keysOfHolder, user.holder, user.holder).map { row -> String in try row["key_id"] })
                } else {
                    keys = [keyId]
                }
                let all = keys?.sorted() ?? []
                conditions.append("(key_id IN (\(all.map { _ in "?" }.joined(separator: ", "))) OR second_of IS NOT NULL)")
                arguments += all.map(SQLValue.text)
            }
            let query = "SELECT * FROM journal WHERE \(conditions.joined(separator: " AND ")) ORDER BY seq DESC"
            return (keys, try db.rows(query, arguments: arguments))
        }
        for row in rows {
            let entry = try JournalEntry(row: row)
            guard let earlier = try? CanonicalEncoding.decode(entry.document) else { continue }
            // The signer the document names: for a payment a second signer approved, the first one.
            if let keys, !keys.contains(earlier.keyId) { continue }
            if Self.samePayment(document, earlier) { return entry }
        }
        return nil
    }
}
