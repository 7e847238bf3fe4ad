import Foundation
import RBSMoney

extension Ledger {
    /// How far back a posted payment counts as a possible duplicate of a new one.
    public static let duplicateWindow: TimeInterval = 24 * 60 * 60

    /// The latest posted entry of the last 24 hours (by the ledger's clock) whose document pays the same payee
    /// (name), the same account, the same amount in the same currency and with the same purpose as `document`, or
    /// `nil`. The host asks before signing such a document a second time (the REPL asks yes/no; `run` needs
    /// `--confirm-duplicate`). With `keyId`, only entries signed with that key count (a customer's own).
    public func recentDuplicate(of document: Document, keyId: String? = nil) throws(LedgerError) -> JournalEntry? {
        guard let account = document["account"], let amountText = document["amount"], let amount = DecimalText.parse(amountText)
        else { return nil }
        let since = Timestamp.milliseconds(clock().addingTimeInterval(-Self.duplicateWindow))
        // Only the entries of the same amount in the same currency are read: a posted entry's amount is the posted
        // amount written with the currency's minor units ("1500.00"), one text per value, so the database selects
        // them. (Reading every payment to the payee's account of the day and decoding each document made each check
        // grow with the payee's traffic: a big payee's thousands of payments a day on every review.)
        // With `keyId`, only that signer's entries, and the ones a second signer completed (their row names the
        // approver; the document inside names the first signer, compared below): a popular payee's payments of the
        // same amount by other customers are not read at all.
        var conditions = ["kind = 'posted'", "credit = ?", "recorded_ms >= ?"]
        var arguments: [SQLValue] = [.text(account), .integer(since)]
        // An amount no entry can have posted in this currency (unknown currency, more decimals than it has): every
        // payment to the account is compared, as before.
        if let currency = document["currency"], let minorUnits = Currency(code: currency)?.minorUnits,
           let posted = DecimalText.format(amount, scale: minorUnits) {
            conditions += ["amount = ?", "currency = ?"]
            arguments += [.text(posted), .text(currency)]
        }
        if let keyId {
            conditions.append("(key_id = ? OR second_of IS NOT NULL)")
            arguments.append(.text(keyId))
        }
        let query = "SELECT * FROM journal WHERE \(conditions.joined(separator: " AND ")) ORDER BY seq DESC"
        let rows = try database.read { db in try db.rows(query, arguments: arguments) }
        for row in rows {
            let entry = try JournalEntry(row: row)
            guard let earlier = try? CanonicalEncoding.decode(entry.document) else { continue }
            // The signer the document names: for a payment a second signer approved, the first one.
            if let keyId, earlier.keyId != keyId { continue }
            let same = earlier["name"] == document["name"] && earlier["purpose"] == document["purpose"]
                && earlier["currency"] == document["currency"] && earlier["amount"].flatMap(DecimalText.parse) == amount
            if same { return entry }
        }
        return nil
    }
}
