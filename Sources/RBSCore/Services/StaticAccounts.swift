import RBSLedger

/// A fixed list of accounts (tests, and the plugin checker).
public final class StaticAccounts: AccountsService, @unchecked Sendable {
    private let list: [Account]
    public init(_ list: [Account]) { self.list = list }
    public func accounts() throws -> [Account] { list }
}
