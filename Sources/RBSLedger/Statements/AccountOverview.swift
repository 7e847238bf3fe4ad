import Foundation

/// One account as its holder sees it in `accounts`: the account, its place in the account list (the number every
/// account picker gives it) and whether it is closed.
public struct AccountOverview: Sendable, Hashable {
    /// 1-based place in the list, the same number the account pickers show.
    public var position: Int
    public var account: Account
    /// The account belonged to a customer of `serve` who was removed: it takes no debits or credits any more and
    /// is kept only for its history (it is blocked too).
    public var closed: Bool

    public init(position: Int, account: Account, closed: Bool) {
        self.position = position
        self.account = account
        self.closed = closed
    }
}
