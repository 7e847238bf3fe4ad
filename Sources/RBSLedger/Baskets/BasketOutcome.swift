/// What became of a signed basket: its canonical list and each document's own outcome, in the list's order.
public struct BasketOutcome: Sendable, Hashable {
    /// The basket as signed (for a repeat, the one signed the first time).
    public let list: BasketList
    /// One outcome a document, in the list's order: posted, rejected or acknowledged, each on its own.
    public let outcomes: [Outcome]
    /// True when the basket (or the request id) was signed before and these are its first outcomes: no code was
    /// looked at and nothing was posted now.
    public let repeated: Bool

    public var basketId: String { list.id }
}

extension BasketOutcome {
    /// What became of the basket as a whole, decided here for every front end.
    public enum Status: String, Sendable {
        /// Every document posted (or accepted).
        case posted
        /// None refused, and some await their second signature (the rest posted): nothing failed.
        case awaiting = "awaiting-second-signature"
        /// Some refused, some posted or awaiting.
        case partial
        /// Every document refused.
        case rejected
    }

    public var status: Status {
        let rejected = outcomes.filter { if case .rejected = $0 { true } else { false } }.count
        let awaiting = outcomes.filter { if case .awaiting = $0 { true } else { false } }.count
        if rejected == 0 { return awaiting == 0 ? .posted : .awaiting }
        return rejected == outcomes.count ? .rejected : .partial
    }
}

