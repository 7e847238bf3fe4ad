import Foundation

/// Which journal entries a person asks for (`journal --operation … --account … --from … --to … --status …`): every
/// condition given must hold; an empty filter takes every entry.
public struct JournalFilter: Sendable, Hashable {
    /// The document's operation id ("pay.pp.quick").
    public var operation: String?
    /// An account the entry debits or credits, or that its document names as payer or payee (a rejected entry
    /// has no posting, but its document still names the accounts).
    public var account: String?
    /// Recorded at or after (inclusive).
    public var start: Date?
    /// Recorded before (exclusive).
    public var end: Date?
    public var status: JournalEntry.Kind?
    /// Signed with this key (a customer's entries, for `serve`).
    public var keyId: String?
    /// Any of these outcomes (`serve`'s history: "taken by the bank" is both `posted` and `acknowledged`).
    public var kinds: Set<JournalEntry.Kind>?
    /// What a person searches for: words of the payee's name or of the purpose (any case), or the amount
    /// (``JournalSearch``).
    public var text: JournalSearch?

    public init(operation: String? = nil, account: String? = nil, start: Date? = nil, end: Date? = nil,
                status: JournalEntry.Kind? = nil, keyId: String? = nil, kinds: Set<JournalEntry.Kind>? = nil,
                text: JournalSearch? = nil) {
        self.operation = operation
        self.account = account
        self.start = start
        self.end = end
        self.status = status
        self.keyId = keyId
        self.kinds = kinds
        self.text = text
    }

    /// Whether the filter asks for entries awaiting a second signature, which it takes only while undecided: the entry
    /// stays `awaiting-second-signature` in the append-only journal, and a later entry (``JournalEntry/secondOf``)
    /// posts or declines it.
    var asksAwaiting: Bool { status == .awaiting || kinds?.contains(.awaiting) == true }

    /// Whether `entry` (with its decoded document, `nil` when it does not parse) passes; `decided` are the entries a
    /// later entry decided (a second signature given or declined), which no longer await one.
    public func matches(_ entry: JournalEntry, document: Document?, decided: Set<Int64> = []) -> Bool {
        if let status, entry.kind != status { return false }
        if let kinds, !kinds.contains(entry.kind) { return false }
        if entry.kind == .awaiting, decided.contains(entry.sequence) { return false }
        if let text, !text.matches(entry, document: document) { return false }
        if let keyId, entry.keyId != keyId { return false }
        if let start, entry.recordedAtMilliseconds < Timestamp.milliseconds(start) { return false }
        if let end, entry.recordedAtMilliseconds >= Timestamp.milliseconds(end) { return false }
        if let operation, document?.operation != operation { return false }
        if let account {
            let named = [entry.debit, entry.credit, document?.text(of: .debitAccount), document?.text(of: .creditAccount)]
            if !named.contains(account) { return false }
        }
        return true
    }
}

extension Journal {
    /// The entries `filter` takes, in sequence order.
    public func entries(matching filter: JournalFilter) throws(LedgerError) -> [JournalEntry] {
        let decided = filter.asksAwaiting ? try decidedEntries() : []
        return try entries().filter { filter.matches($0, document: try? CanonicalEncoding.decode($0.document), decided: decided) }
    }

    /// The entries a later entry decided: the awaiting ones a second signature posted or declined.
    func decidedEntries() throws(LedgerError) -> Set<Int64> {
        try database.read { db in
            Set(try db.values(Int64.self, "SELECT second_of FROM journal WHERE second_of IS NOT NULL"))
        }
    }

    /// The entries of basket `id` (``JournalEntry/basketId``), in sequence order.
    public func entries(inBasket id: String) throws(LedgerError) -> [JournalEntry] {
        let rows = try database.read { db in try db.rows("SELECT * FROM journal WHERE basket_id = ? ORDER BY seq", id) }
        var entries: [JournalEntry] = []
        for row in rows { entries.append(try JournalEntry(row: row)) }
        return entries
    }

    /// Entry `sequence`, or `nil` when the journal has no such entry.
    public func entry(_ sequence: Int64) throws(LedgerError) -> JournalEntry? {
        let row = try database.read { db in try db.row("SELECT * FROM journal WHERE seq = ?", sequence) }
        return try row.map { row throws(LedgerError) in try JournalEntry(row: row) }
    }
}
