import Foundation

/// An account's statement for a period: the balance at its start, every posting in it and the balance at its end.
///
/// Made from the postings (not from the stored balance): ``opening`` is the account's opening balance plus every
/// posting before the period, ``closing`` is ``opening`` plus the lines, and a statement that runs to now is
/// checked against the stored balance when it is made (``Ledger/statement(account:period:customer:)``).
public struct AccountStatement: Sendable, Hashable {
    public var account: Account
    public var period: StatementPeriod
    public var opening: Decimal
    public var closing: Decimal
    /// Oldest first.
    public var lines: [StatementLine]

    public init(account: Account, period: StatementPeriod, opening: Decimal, closing: Decimal, lines: [StatementLine]) {
        self.account = account
        self.period = period
        self.opening = opening
        self.closing = closing
        self.lines = lines
    }

    /// What left the account in the period (a positive sum of the debit lines).
    public var totalDebit: Decimal { lines.filter { $0.direction == .debit }.reduce(0) { $0 - $1.amount } }
    /// What came into the account in the period.
    public var totalCredit: Decimal { lines.filter { $0.direction == .credit }.reduce(0) { $0 + $1.amount } }
}
