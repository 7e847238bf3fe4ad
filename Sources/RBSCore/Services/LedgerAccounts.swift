import Foundation
import RBSLedger

/// The accounts of the party the host acts for (the host's own signer, or the customer a command acts as), from the
/// embedded core, opening the ledger only when first asked: what every account picker offers.
final class LedgerAccounts: AccountsService, @unchecked Sendable {
    private let open: () throws -> (Ledger, Party?)

    init(open: @escaping () throws -> (Ledger, Party?)) { self.open = open }

    func accounts() throws -> [Account] {
        let (ledger, party) = try open()
        return try ledger.accounts(of: party ?? ledger.hostParty())
    }
}
