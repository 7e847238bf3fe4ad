import Foundation

/// Why a statement could not be made.
public enum StatementError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No account has this number.
    case unknownAccount(String)
    /// The account exists but is not the asking customer's.
    case notYours(account: String, customer: String)
    /// The period ends before it starts, or when it starts.
    case emptyPeriod(start: String, end: String)
    /// The postings do not add up to the stored balance: the ledger is damaged (`verify` says where).
    case doesNotReconcile(account: String, balance: String, postings: String, currency: String)
    case storage(LedgerError)

    public var description: String {
        switch self {
        case .unknownAccount(let number):
            "there is no account \(number) (see `accounts` for the account numbers)"
        case .notYours(let account, let customer):
            "account \(account) is not one of \(customer)'s accounts"
        case .emptyPeriod(let start, let end):
            "the period is empty: it ends (\(end)) before or when it starts (\(start))"
        case .doesNotReconcile(let account, let balance, let postings, let currency):
            "account \(account) holds \(balance) \(currency), but its opening balance and postings give \(postings) \(currency): "
                + "the ledger does not reconcile (run `verify`)"
        case .storage(let error): error.description
        }
    }
}
