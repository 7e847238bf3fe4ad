import Foundation

/// The time a statement covers: postings at or after `start` and before `end` (either open).
public struct StatementPeriod: Sendable, Hashable {
    /// Inclusive; `nil`: from the account's opening.
    public var start: Date?
    /// Exclusive; `nil`: up to now.
    public var end: Date?

    public init(start: Date? = nil, end: Date? = nil) {
        self.start = start
        self.end = end
    }

    /// The whole history of the account.
    public static let all = StatementPeriod()

    func contains(milliseconds: Int64) -> Bool {
        if let start, milliseconds < Timestamp.milliseconds(start) { return false }
        if let end, milliseconds >= Timestamp.milliseconds(end) { return false }
        return true
    }

    /// Whether a posting at `milliseconds` came before the period.
    func precedes(milliseconds: Int64) -> Bool {
        guard let start else { return false }
        return milliseconds < Timestamp.milliseconds(start)
    }
}
