import Foundation

/// A payment card the bank issued: one of its holder's products, on one of their accounts — a customer's, or (an
/// account of no customer) the host's own signer's, as accounts are. The ledger keeps it masked (the first six and
/// last four digits, PCI DSS 3.4), never the full number; a holder's cards have different masked numbers.
///
/// Its state changes only through a signed document the core decides (``EmbeddedBank``): a document with no amount
/// whose `cardMasked` names the card and whose `action` is ``Action/block`` or ``Action/unblock``, signed by the
/// card's own party. Every change is journaled; ``changedBySequence`` names the entry of the latest one.
public struct Card: Sendable, Hashable, Encodable {
    /// What a signed document may do to a card (the document's `action` field).
    public enum Action: String, Sendable, Hashable, Codable, CaseIterable {
        case block, unblock
    }

    /// The keys of a card document the core reads (a document that moves no money and names a card).
    public enum Key {
        /// The card's masked number, as the ledger keeps it (``Card/masked``).
        public static let masked = "cardMasked"
        /// What to do to the card: an ``Action``'s raw value.
        public static let action = "action"
    }

    /// The ledger's id of the card.
    public let id: Int64
    /// The customer whose card it is (``Customer/holderId``); nil for a card of the host's own signer.
    public let holderId: Int64?
    /// The account the card draws on: one of the customer's.
    public let account: String
    /// `4111 11** **** 1111`.
    public let masked: String
    public let lastFour: String
    /// The card scheme (`mir`, `visa`, `mastercard`, …).
    public let scheme: String
    public let issuedAtMilliseconds: Int64
    public let blocked: Bool
    /// Why the card was blocked (the reason of the document that blocked it); nil while it is active.
    public let blockReason: String?
    /// When the state last changed, and the journal entry that changed it; nil for a card never blocked.
    public let changedAtMilliseconds: Int64?
    public let changedBySequence: Int64?

    /// `active` or `blocked`: the state as the JSON API and `customers cards --json` spell it.
    public var state: String { blocked ? "blocked" : "active" }

    private enum CodingKeys: String, CodingKey {
        case id, account, masked, lastFour, scheme, state, blockReason, issuedAtMilliseconds, changedAtMilliseconds, changedBySequence
    }

    /// `{id, account, masked, lastFour, scheme, state, blockReason, issuedAtMilliseconds, changedAtMilliseconds,
    /// changedBySequence}`: what `customers cards --json` and `GET /api/v1/cards` print (never the customer's id).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(account, forKey: .account)
        try container.encode(masked, forKey: .masked)
        try container.encode(lastFour, forKey: .lastFour)
        try container.encode(scheme, forKey: .scheme)
        try container.encode(state, forKey: .state)
        try container.encode(blockReason, forKey: .blockReason)
        try container.encode(issuedAtMilliseconds, forKey: .issuedAtMilliseconds)
        try container.encode(changedAtMilliseconds, forKey: .changedAtMilliseconds)
        try container.encode(changedBySequence, forKey: .changedBySequence)
    }

    static func from(_ row: SQLRow) throws -> Card {
        Card(id: try row["id"], holderId: try row["customer_id"], account: try row["account"], masked: try row["masked"],
             lastFour: try row["last_four"], scheme: try row["scheme"], issuedAtMilliseconds: try row["issued_ms"],
             blocked: try row["blocked"], blockReason: try row["block_reason"], changedAtMilliseconds: try row["changed_ms"],
             changedBySequence: try row["changed_seq"])
    }
}

/// Why a card could not be issued or read.
public enum CardError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The number is not a card number the bank issues (its digits, scheme, length or check digit).
    case invalidNumber(String)
    case unknownCustomer(String)
    /// The account is not one of the customer's (`customers list` shows them).
    case notCustomersAccount(account: String, customer: String)
    /// The customer already has a card with the same masked number: two would be told apart by nobody.
    case sameMaskedNumber(masked: String, customer: String)
    case storage(LedgerError)

    public var description: String {
        switch self {
        case .invalidNumber(let problem): "the card number is not accepted: \(problem)"
        case .unknownCustomer(let name): "there is no customer named '\(name)' (see `rbs-host customers list`)"
        case .notCustomersAccount(let account, let customer):
            "account \(account) is not one of \(customer)'s accounts (see `rbs-host customers list`)"
        case .sameMaskedNumber(let masked, let customer):
            "\(customer) already has card \(masked): a second card with the same first six and last four digits could not be told apart"
        case .storage(let error): error.description
        }
    }

    /// The same error when it says the same (``LedgerError`` has no equality of its own; tests compare them).
    public static func == (lhs: CardError, rhs: CardError) -> Bool { lhs.description == rhs.description }
}
