import RBSCore
import RBSLedger

/// The cards service of `serve`: the cards of the customer whose call is running on this thread (see
/// ``CustomerScope``); none outside a customer's call, so no customer is ever offered another's card.
final class CustomerCards: CardsService, Sendable {
    func cards() throws -> [Card] {
        guard let scope = CustomerScope.current else { return [] }
        return try scope.cards()
    }
}
