import Foundation
import RBSLedger

/// The cards of the party a plugin runs for (rbs.cards/1), masked: what the card.block form offers. Offering is
/// not deciding: the core blocks or unblocks only a card of the document's own signer, whatever a plugin offered.
public protocol CardsService: AnyObject, Sendable {
    func cards() throws -> [Card]
}

/// The cards of the party the host acts for (the host's own signer holds none; a customer a command acts as, its
/// own), from the embedded core, opening the ledger only when first asked.
final class LedgerCards: CardsService, @unchecked Sendable {
    private let open: () throws -> (Ledger, Party?)

    init(open: @escaping () throws -> (Ledger, Party?)) { self.open = open }

    func cards() throws -> [Card] {
        let (ledger, party) = try open()
        return try ledger.cards(of: party ?? ledger.hostParty())
    }
}
