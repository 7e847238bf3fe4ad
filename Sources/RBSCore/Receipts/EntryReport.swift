import Foundation
import RBSLedger

/// A journal entry as a customer reads it: the signed document with a label for every field, the outcome, the
/// signature, its key and how it was authorised — and for a receipt the bank's requisites. `journal show` prints it;
/// `journal receipt` writes it as text, HTML or PDF (``ReceiptFormat``); `serve` can answer with the same.
public struct EntryReport: Sendable, Hashable {
    /// One labelled value.
    public struct Row: Sendable, Hashable {
        public var label: String
        public var value: String
        /// The document field it shows (`nil` for the entry's own facts).
        public var field: String?
    }

    /// Rows under a heading.
    public struct Section: Sendable, Hashable {
        public var title: String
        public var rows: [Row]
    }

    public let entry: JournalEntry
    public let document: Document
    /// "Receipt for journal entry 3" or "Journal entry 3".
    public let title: String
    public let sections: [Section]

    /// The report of entry `sequence` of `ledger`'s journal.
    /// - Parameter receipt: a receipt: only a posted entry has one, and it starts with the bank's requisites and
    ///   leaves out the account's balance (a receipt is handed to the counterparty).
    public init(sequence: Int64, ledger: Ledger, directory: BankDirectory?, receipt: Bool) throws(ReceiptError) {
        let found: JournalEntry?
        do { found = try ledger.journal.entry(sequence) } catch { throw .storage(error) }
        guard let entry = found else {
            let count = (try? ledger.journal.entries().count) ?? 0
            throw .noEntry(sequence, count: count)
        }
        if receipt, entry.kind != .posted {
            throw .notPosted(sequence, kind: entry.kind.rawValue, reason: entry.reason)
        }
        let document: Document
        do { document = try CanonicalEncoding.decode(entry.document) } catch {
            throw .unreadable(sequence, detail: error.description)
        }
        self.entry = entry
        self.document = document
        title = receipt ? "Receipt for journal entry \(sequence)" : "Journal entry \(sequence)"
        var sections: [Section] = []
        if receipt {
            let bank = directory?.bank(bic: DemoBank.bic)
            sections.append(Section(title: "Bank", rows: [
                Row(label: "Bank", value: bank?.name ?? "the bank with BIC \(DemoBank.bic)"),
                Row(label: "BIC", value: DemoBank.bic),
                Row(label: "Correspondent account", value: DemoBank.correspondentAccount),
            ]))
        }
        sections.append(Section(title: "Document", rows: Self.documentRows(document, directory: directory)))
        sections.append(Section(title: "Outcome", rows: Self.outcomeRows(entry, balance: !receipt)))
        sections.append(Section(title: "Signature", rows: Self.signatureRows(entry)))
        if !receipt, let basketId = entry.basketId {
            sections.append(Section(title: "Basket", rows: try Self.basketRows(basketId, entry: entry, ledger: ledger)))
        }
        self.sections = sections
    }

    /// The well-known document fields, in the order a payment order shows them, with their labels.
    static let labels: [(key: String, label: String)] = [
        ("from", "Payer's account"), ("fromName", "Payer"), ("name", "Payee"), ("inn", "Payee's INN"), ("kpp", "Payee's KPP"),
        ("account", "Payee's account"), ("bic", "Payee's bank (BIC)"), ("amount", "Amount"), ("currency", "Currency"),
        ("purpose", "Purpose of payment"),
    ]

    static func documentRows(_ document: Document, directory: BankDirectory?) -> [Row] {
        var rows = [
            Row(label: "Operation", value: document.operation),
            Row(label: "Plugin", value: "\(document.plugin) \(document.pluginVersion)"),
            Row(label: "Created", value: Self.time(document.createdAtMilliseconds)),
        ]
        let known = Set(labels.map(\.key))
        for (key, label) in labels {
            guard let value = document[key], !value.isEmpty else { continue }
            var shown = CardNumberMask.masked(value)
            if key == "amount", let amount = Decimal(string: value, locale: Locale(identifier: "en_US_POSIX")) {
                shown = Amount.grouped(amount, currency: document["currency"] ?? "")
            }
            if key == "bic", let bank = directory?.bank(bic: value) { shown = "\(value), \(bank.name)" }
            rows.append(Row(label: label, value: shown, field: key))
        }
        for field in document.fields where !known.contains(field.key) && !field.value.isEmpty {
            rows.append(Row(label: field.key, value: CardNumberMask.masked(field.value), field: field.key))
        }
        return rows
    }

    static func outcomeRows(_ entry: JournalEntry, balance: Bool) -> [Row] {
        var rows = [Row(label: "Status", value: entry.kind.rawValue),
                    Row(label: "Journal entry", value: String(entry.sequence)),
                    Row(label: "Recorded", value: Self.time(entry.recordedAtMilliseconds))]
        if let debit = entry.debit, let credit = entry.credit {
            rows.append(Row(label: "Debited → credited", value: "\(debit) → \(credit)"))
        }
        if let amount = entry.amount, let currency = entry.currency {
            let value = Decimal(string: amount, locale: Locale(identifier: "en_US_POSIX")).map { Amount.grouped($0, currency: currency) } ?? amount
            rows.append(Row(label: "Amount posted", value: "\(value) \(currency)"))
        }
        if balance, let after = entry.balanceAfter, let currency = entry.currency {
            let value = Decimal(string: after, locale: Locale(identifier: "en_US_POSIX")).map { Amount.grouped($0, currency: currency) } ?? after
            rows.append(Row(label: "Balance after", value: "\(value) \(currency)"))
        }
        if let reason = entry.reason { rows.append(Row(label: "Reason", value: reason)) }
        return rows
    }

    static func signatureRows(_ entry: JournalEntry) -> [Row] {
        var rows = [Row(label: "Document hash (SHA-256)", value: entry.documentId),
                    Row(label: entry.authorization?.method == .passkey ? "Signature (passkey, WebAuthn)" : "Signature (Ed25519)",
                        value: entry.signature.map { String(format: "%02x", $0) }.joined()),
                    Row(label: "Key id", value: entry.keyId)]
        if let authorization = entry.authorization {
            switch authorization.method {
            case .totp:
                rows.append(Row(label: "Authorised with", value: "TOTP one-time code (not bound to the document)"))
            case .ocra:
                rows.append(Row(label: "Authorised with", value: "OCRA \(authorization.suite) ("
                    + (entry.basketId == nil ? "bound to the document)" : "bound to its basket: every amount and payee and the total)")))
                if let challenge = authorization.challenge { rows.append(Row(label: "Challenge", value: OCRASuite.grouped(challenge))) }
                if let response = authorization.response { rows.append(Row(label: "Response", value: response)) }
            case .passkey:
                rows.append(Row(label: "Authorised with", value: "passkey \(authorization.suite) (bound to the document)"))
            }
        } else {
            rows.append(Row(label: "Authorised with", value: "not recorded (an entry from before methods were recorded)"))
        }
        rows.append(Row(label: "Entry hash", value: entry.hash.map { String(format: "%02x", $0) }.joined()))
        return rows
    }

    /// The basket an entry was signed in: its id, the entry's place in its list, its totals, the entries of its
    /// documents and the host's signature over the list.
    static func basketRows(_ id: String, entry: JournalEntry, ledger: Ledger) throws(ReceiptError) -> [Row] {
        let record: BasketRecord?
        let members: [JournalEntry]
        do {
            record = try ledger.basket(id: id)
            members = try ledger.journal.entries(inBasket: id)
        } catch { throw .storage(error) }
        var rows = [Row(label: "Basket", value: id)]
        guard let record else {
            rows.append(Row(label: "Basket's list", value: "missing: the basket's list and signature are not stored (verify reports it)"))
            return rows
        }
        let ids = record.list.documentIds
        if let position = ids.firstIndex(of: entry.documentId) {
            rows.append(Row(label: "Document in basket", value: "\(position + 1) of \(ids.count)"))
        }
        for total in record.list.totals {
            let value = Decimal(string: total.amount, locale: Locale(identifier: "en_US_POSIX")).map { Amount.grouped($0, currency: total.currency) }
                ?? total.amount
            rows.append(Row(label: "Basket total", value: "\(value) \(total.currency)"))
        }
        let sequences = ids.map { id in members.first { $0.documentId == id }.map { String($0.sequence) } ?? "—" }
        rows.append(Row(label: "Basket's journal entries", value: sequences.joined(separator: ", ")))
        rows.append(Row(label: "Basket signature (Ed25519)", value: record.signature.map { String(format: "%02x", $0) }.joined()))
        return rows
    }

    /// `28.05.2026 20:27:10 UTC`.
    static func time(_ milliseconds: Int64) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "dd.MM.yyyy HH:mm:ss 'UTC'"
        return formatter.string(from: Timestamp.date(milliseconds: milliseconds))
    }
}
