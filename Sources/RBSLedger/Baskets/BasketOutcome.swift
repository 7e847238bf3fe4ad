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
