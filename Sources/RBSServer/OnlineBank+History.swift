import Foundation
import Hummingbird
import RBSCore
import RBSLedger

/// The customer's history: their journal searched and filtered by the core (``JournalFilter``), and one entry.
extension OnlineBank {
    /// Journal entry `sequence` when `customer` signed it; 404 otherwise (another customer's entry is not said to exist).
    func entry(_ sequence: Int64, of customer: Customer) async throws(Problem) -> [API.JournalLine] {
        let lines = try await journal(of: customer).filter { $0.sequence == sequence }
        guard !lines.isEmpty else { throw Problem.notFound("journal entry \(sequence) is not one of this customer's entries") }
        return lines
    }
}

extension Routes {
    /// The words a history is asked with: `q` (payee, purpose or amount), `account` (one of the customer's, or
    /// a payee's account the documents name), `from`/`to` (``PeriodQuery``) and `status` (`posted` — taken by the
    /// bank, posted or acknowledged —, `rejected` or `awaiting-second-signature`).
    static func historyFilter(_ request: Request) throws(Problem) -> JournalFilter {
        let query = request.uri.queryParameters
        let period = try PeriodQuery(request)
        var filter = JournalFilter(start: period.start, end: period.end)
        filter.text = query["q"].flatMap { JournalSearch(String($0)) }
        if let account = query["account"].map(String.init)?.trimmingCharacters(in: .whitespaces), !account.isEmpty {
            filter.account = account
        }
        if let status = query["status"].map(String.init), !status.isEmpty {
            switch status {
            case "posted": filter.kinds = [.posted, .acknowledged]
            case JournalEntry.Kind.rejected.rawValue: filter.kinds = [.rejected]
            case JournalEntry.Kind.awaiting.rawValue: filter.kinds = [.awaiting]
            default:
                throw PeriodQuery.problem("status=\(status) is not an outcome: use posted, rejected or awaiting-second-signature")
            }
        }
        return filter
    }
}
