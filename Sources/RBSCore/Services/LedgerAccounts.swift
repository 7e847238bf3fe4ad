import Foundation
import RBSLedger

/// The customer's accounts from the embedded core, opening the ledger only when first asked.
final class LedgerAccounts: AccountsService, @unchecked Sendable {
    private let open: () throws -> Ledger

    init(open: @escaping () throws -> Ledger) { self.open = open }

    func accounts() throws -> [Account] { try open().bank.accounts() }
}
