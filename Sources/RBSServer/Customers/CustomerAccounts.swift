import RBSCore
import RBSLedger

/// The accounts service of `serve`: the accounts of the customer whose call is running on this thread (see
/// ``CustomerScope``); none outside a customer's call, so no customer ever sees another's accounts.
final class CustomerAccounts: AccountsService, Sendable {
    func accounts() throws -> [Account] {
        guard let scope = CustomerScope.current else { return [] }
        return try scope.accounts()
    }
}
