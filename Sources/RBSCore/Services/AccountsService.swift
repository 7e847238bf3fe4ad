import Foundation
import RBSLedger

/// The customer's accounts, as the bank's core reports them.
public protocol AccountsService: AnyObject, Sendable {
    func accounts() throws -> [Account]
}

extension AccountsService {
    public func account(number: String) throws -> Account? { try accounts().first { $0.number == number } }
}
