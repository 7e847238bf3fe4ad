import Foundation

/// What a write transaction returns that names journal entries by number (receipts, outcomes): on PostgreSQL with
/// the numbers bound by the server at commit (schema step `v21-chain-in-server`), the body numbered its entries
/// provisionally, and the store gives every number through ``renumbered(_:)`` once the commit named the real ones.
/// A write whose result is not `JournalNumbered` reads the journal's tip as before (its digest checked at commit).
protocol JournalNumbered {
    /// This value with each journal number `n` it holds as `map(n)`.
    func renumbered(_ map: (Int64) -> Int64) -> Self
}

extension Receipt: JournalNumbered {
    func renumbered(_ map: (Int64) -> Int64) -> Receipt {
        Receipt(documentId: documentId, posting: posting, debitBalance: debitBalance, sequence: map(sequence))
    }
}

extension Outcome: JournalNumbered {
    func renumbered(_ map: (Int64) -> Int64) -> Outcome {
        switch self {
        case .posted(let receipt): .posted(receipt.renumbered(map))
        case .rejected(let documentId, let sequence, let reason): .rejected(documentId: documentId, sequence: map(sequence), reason: reason)
        case .acknowledged(let documentId, let sequence): .acknowledged(documentId: documentId, sequence: map(sequence))
        case .awaiting(let documentId, let sequence): .awaiting(documentId: documentId, sequence: map(sequence))
        }
    }
}

extension BasketOutcome: JournalNumbered {
    func renumbered(_ map: (Int64) -> Int64) -> BasketOutcome {
        BasketOutcome(list: list, outcomes: outcomes.renumbered(map), repeated: repeated)
    }
}

extension Array: JournalNumbered where Element: JournalNumbered {
    func renumbered(_ map: (Int64) -> Int64) -> [Element] { self.map { $0.renumbered(map) } }
}

extension Result: JournalNumbered where Success: JournalNumbered {
    func renumbered(_ map: (Int64) -> Int64) -> Result<Success, Failure> { self.map { $0.renumbered(map) } }
}
