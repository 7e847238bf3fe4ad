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

        public init(label: String, value: String, field: String? = nil) {
            self.label = label
            self.value = value
            self.field = field
        }
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
    /// The language its words and formats are in.
    public let language: HostLanguage

    /// The report of entry `sequence` of `ledger`'s journal, in `language`.
    /// - Parameter receipt: a receipt: only an entry the bank took (posted, or accepted without moving money: a card
    ///   block) has one, and it starts with the bank's requisites and leaves out the account's balance (a receipt is
    ///   handed to the counterparty).
    /// - Parameter operation: the descriptor of an operation the host has now, by id: its labels and enum titles
    ///   (`rbs.document-labels/1`) name the document's fields; without it a field is named by its contract role, or
    ///   its key.
    public init(sequence: Int64, ledger: Ledger, directory: BankDirectory?, receipt: Bool, language: HostLanguage = .en,
                operation: (String) -> OperationDescriptor? = { _ in nil }) throws(ReceiptError) {
        let found: JournalEntry?
        do { found = try ledger.journal.entry(sequence) } catch { throw .storage(error) }
        guard let entry = found else {
            let count = (try? ledger.journal.entries().count) ?? 0
            throw .noEntry(sequence, count: count)
        }
        try self.init(entry: entry, ledger: ledger, directory: directory, receipt: receipt, language: language, operation: operation)
    }

    /// The report of `entry`, read already (see ``init(sequence:ledger:directory:receipt:language:operation:)``).
    /// - Parameter payer: the name of the holder of a key id when the caller knows it (`serve` reads every customer's
    ///   once for a journal); else the ledger is asked.
    public init(entry: JournalEntry, ledger: Ledger, directory: BankDirectory?, receipt: Bool, language: HostLanguage = .en,
                payer: (String) -> String? = { _ in nil }, operation: (String) -> OperationDescriptor? = { _ in nil }) throws(ReceiptError) {
        let sequence = entry.sequence
        if receipt, entry.kind != .posted, entry.kind != .acknowledged {
            throw .notPosted(sequence, kind: entry.kind.rawValue, reason: entry.reason)
        }
        let document: Document
        do { document = try CanonicalEncoding.decode(entry.document) } catch {
            throw .unreadable(sequence, detail: error.description)
        }
        self.entry = entry
        self.document = document
        self.language = language
        func text(_ report: HostMessage.Report) -> String { report.text(language) }
        title = text(receipt ? .receiptTitle(sequence) : .entryTitle(sequence))
        var sections: [Section] = []
        if receipt {
            let bank = directory?.bank(bic: DemoBank.bic)
            sections.append(Section(title: text(.bankSection), rows: [
                Row(label: text(.bankName), value: bank?.name ?? text(.bankWithBIC(DemoBank.bic))),
                Row(label: HostMessage.bic.text(language), value: DemoBank.bic),
                Row(label: text(.correspondentAccount), value: DemoBank.correspondentAccount),
            ]))
        }
        let descriptor = operation(document.operation)?.localized(language)
        sections.append(Section(title: text(.documentSection),
                                rows: Self.documentRows(document, operation: descriptor, payer: payer(document.keyId) ?? Self.payer(keyId: document.keyId, ledger: ledger),
                                                        directory: directory, language: language)))
        sections.append(Section(title: text(.outcomeSection),
                                rows: Self.outcomeRows(entry, payment: Payment.of(document), balance: !receipt, language: language)
                                    + Self.secondSignatureRows(entry, ledger: ledger, language: language)))
        sections.append(Section(title: text(.signatureSection), rows: Self.signatureRows(entry, language: language)))
        if !receipt, let basketId = entry.basketId {
            sections.append(Section(title: text(.basketSection),
                                    rows: try Self.basketRows(basketId, entry: entry, ledger: ledger, language: language)))
        }
        self.sections = sections
    }

    /// The payer: whoever signed the document first (the document names their key; a second signer's key signs the
    /// entry): the customer whose key or passkey it is, else the holder of the host's own key (`keys init --name`);
    /// nil when no key the host knows made it.
    static func payer(keyId: String, ledger: Ledger) -> String? {
        if let customers = try? ledger.customers.list() {
            if let customer = customers.first(where: { $0.keyId == keyId }) { return customer.name }
            for customer in customers where (try? ledger.customers.passkey(of: customer))?.key.keyId == keyId {
                return customer.name
            }
        }
        if let identity = try? ledger.keys.load(), identity.keyId == keyId { return identity.name }
        return nil
    }

    /// The operation (its title when the host has it), the plugin, when it was made and by whom, then the fields
    /// as every front end shows them (``DocumentPresentation``).
    static func documentRows(_ document: Document, operation: OperationDescriptor?, payer: String?, directory: BankDirectory?,
                             language: HostLanguage) -> [Row] {
        func text(_ report: HostMessage.Report) -> String { report.text(language) }
        var rows = [
            Row(label: text(.operation), value: operation.map { "\($0.title) (\(document.operation))" } ?? document.operation),
            Row(label: text(.plugin), value: "\(document.plugin) \(document.pluginVersion)"),
            Row(label: text(.created), value: Self.time(document.createdAtMilliseconds)),
        ]
        if let payer { rows.append(Row(label: text(.payer), value: payer)) }
        rows += DocumentPresentation.rows(document, operation: operation, directory: directory, language: language)
            .map { Row(label: $0.label, value: $0.value, field: $0.field) }
        return rows
    }

    /// The entry's outcome; for a posted payment with a fee, the fee leg the core posted with the amount (to the bank's
    /// fee income account of its currency, ``FeeIncome``: `verify` holds the entry's fee posting to its document's
    /// fee) and the total debited.
    static func outcomeRows(_ entry: JournalEntry, payment: Payment?, balance: Bool, language: HostLanguage) -> [Row] {
        func text(_ report: HostMessage.Report) -> String { report.text(language) }
        var rows = [Row(label: text(.statusLabel), value: HostMessage.status(entry.kind).text(language)),
                    Row(label: text(.journalEntry), value: String(entry.sequence)),
                    Row(label: text(.recorded), value: Self.time(entry.recordedAtMilliseconds))]
        if let debit = entry.debit, let credit = entry.credit {
            rows.append(Row(label: text(.debitedCredited), value: "\(debit) → \(credit)"))
        }
        if let amount = entry.amount, let currency = entry.currency {
            rows.append(Row(label: text(entry.kind == .awaiting ? .amountAwaiting : .amountPosted),
                            value: Amount.shown(amount, currency: currency, language)))
        }
        if entry.kind == .posted, let payment, let fee = payment.fee, let debit = entry.debit,
           let income = FeeIncome.number(of: fee.currency.code) {
            rows.append(Row(label: text(.feePosted), value: "\(Amount.shown(fee, language)): \(debit) → \(income)"))
            rows.append(Row(label: text(.totalPosted), value: Amount.shown(payment.totalDebited, language)))
        }
        if balance, let after = entry.balanceAfter, let currency = entry.currency {
            rows.append(Row(label: text(.balanceAfter), value: Amount.shown(after, currency: currency, language)))
        }
        if let reason = HostMessage.reason(of: entry, language) { rows.append(Row(label: text(.reason), value: reason)) }
        return rows
    }

    /// How an entry and its second signature name each other: an awaiting entry the entry that approved or declined
    /// it (its status stays what was journaled then), and that entry the one it decided.
    static func secondSignatureRows(_ entry: JournalEntry, ledger: Ledger, language: HostLanguage) -> [Row] {
        if let first = entry.secondOf {
            return [Row(label: HostMessage.Report.decides.text(language), value: HostMessage.Report.entryTitle(first).text(language))]
        }
        guard entry.kind == .awaiting else { return [] }
        let decided = (try? ledger.journal.decision(of: entry.sequence)) ?? nil
        return [Row(label: HostMessage.Report.decidedBy.text(language),
                    value: decided.map { HostMessage.Report.entryTitle($0).text(language) }
                        ?? language.pick("not given yet", "ещё не дана"))]
    }

    static func signatureRows(_ entry: JournalEntry, language: HostLanguage) -> [Row] {
        func text(_ report: HostMessage.Report) -> String { report.text(language) }
        var rows = [Row(label: text(.documentHash), value: entry.documentId),
                    Row(label: text(entry.authorization?.method == .passkey ? .signaturePasskey : .signatureEd25519),
                        value: entry.signature.map { String(format: "%02x", $0) }.joined()),
                    Row(label: text(.keyId), value: entry.keyId)]
        if let authorization = entry.authorization {
            switch authorization.method {
            case .totp:
                rows.append(Row(label: text(.authorisedWith), value: text(.authorisedTOTP)))
            case .ocra:
                rows.append(Row(label: text(.authorisedWith), value: text(.authorisedOCRA(suite: authorization.suite, basket: entry.basketId != nil))))
                if let challenge = authorization.challenge {
                    rows.append(Row(label: HostMessage.challenge.text(language), value: OCRASuite.grouped(challenge)))
                }
                if let response = authorization.response { rows.append(Row(label: text(.response), value: response)) }
            case .passkey:
                rows.append(Row(label: text(.authorisedWith), value: text(.authorisedPasskey(suite: authorization.suite))))
            }
        } else {
            rows.append(Row(label: text(.authorisedWith), value: text(.notRecorded)))
        }
        rows.append(Row(label: text(.entryHash), value: entry.hash.map { String(format: "%02x", $0) }.joined()))
        return rows
    }

    /// The basket an entry was signed in: its id, the entry's place in its list, its totals, the entries of its
    /// documents and the host's signature over the list.
    static func basketRows(_ id: String, entry: JournalEntry, ledger: Ledger, language: HostLanguage) throws(ReceiptError) -> [Row] {
        func text(_ report: HostMessage.Report) -> String { report.text(language) }
        let record: BasketRecord?
        let members: [JournalEntry]
        do {
            record = try ledger.basket(id: id)
            members = try ledger.journal.entries(inBasket: id)
        } catch { throw .storage(error) }
        var rows = [Row(label: HostMessage.basketId.text(language), value: id)]
        guard let record else {
            rows.append(Row(label: text(.basketSection), value: text(.basketListMissing)))
            return rows
        }
        let ids = record.list.documentIds
        if let position = ids.firstIndex(of: entry.documentId) {
            rows.append(Row(label: text(.documentInBasketLabel), value: text(.documentInBasket(position + 1, of: ids.count))))
        }
        for total in record.list.totals {
            rows.append(Row(label: text(.basketTotal), value: Amount.shown(total.amount, currency: total.currency, language)))
        }
        let sequences = ids.map { id in members.first { $0.documentId == id }.map { String($0.sequence) } ?? "—" }
        rows.append(Row(label: text(.basketEntries), value: sequences.joined(separator: ", ")))
        rows.append(Row(label: text(.basketSignature), value: record.signature.map { String(format: "%02x", $0) }.joined()))
        return rows
    }

    /// `28.05.2026 20:27:10 UTC`.
    public static func time(_ milliseconds: Int64) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "dd.MM.yyyy HH:mm:ss 'UTC'"
        return formatter.string(from: Timestamp.date(milliseconds: milliseconds))
    }
}
