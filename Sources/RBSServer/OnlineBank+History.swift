import Foundation
import Hummingbird
import HTTPTypes
import NIOCore
import RBSCore
import RBSLedger

/// The customer's history: their journal searched and filtered by the core (``JournalFilter``), and one entry.
extension OnlineBank {
    /// Journal entry `sequence` when `customer` signed it; 404 otherwise (another customer's entry is not said to exist).
    func entry(_ sequence: Int64, of customer: Customer, language: HostLanguage = .en) async throws(Problem) -> [API.JournalLine] {
        let lines = try await journal(of: customer).filter { $0.sequence == sequence }
        guard !lines.isEmpty else {
            throw Problem.notFound(language.pick("journal entry \(sequence) is not one of this customer's entries",
                                                 "записи журнала \(sequence) нет среди записей этого клиента"))
        }
        return lines
    }
}

extension OnlineBank {
    /// The receipt of journal entry `sequence` (one of `customer`'s, taken by the bank) as a PDF in `language`: the
    /// report `journal receipt` writes, by the same writer.
    func receiptPDF(_ sequence: Int64, language: HostLanguage, for customer: Customer) async throws(Problem) -> Data {
        _ = try await entry(sequence, of: customer, language: language)
        let ledger = self.ledger, directory = runtime.locator.optional(BankDirectory.self), registry = runtime.registry
        do {
            return try await Self.blocking {
                let report = try EntryReport(sequence: sequence, ledger: ledger, directory: directory, receipt: true, language: language,
                                             operation: registry.listedDescriptor)
                let format = ReceiptFormat.pdf
                return try format.render(report)
            }
        } catch let error as ReceiptError {
            switch error {
            case .notPosted:
                throw Problem("not-posted", "The entry has no receipt", status: 409, detail: error.description)
            case .storage(let inner): throw Self.storageProblem("the receipt could not be made", inner)
            case .noEntry, .unreadable, .font: throw Problem.internalError(error.description)
            }
        } catch {
            throw Self.storageProblem("the receipt could not be made", error)
        }
    }
}

extension Routes {
    /// A PDF answered as a file to keep (`Content-Disposition: attachment`), never cached.
    static func pdf(_ bytes: Data, named name: String) -> Response {
        Response(status: .ok,
                 headers: [.contentType: "application/pdf", .contentDisposition: "attachment; filename=\"\(name)\"", .cacheControl: "no-store"],
                 body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// The keys ``historyFilter(_:)`` reads (and `lang`, the language of the entries' sections).
    static let historyKeys = ["q", "account", "from", "to", "tz", "status", "lang"]

    /// The words a history is asked with: `q` (payee, purpose or amount), `account` (one of the customer's, or
    /// a payee's account the documents name), `from`/`to` (``PeriodQuery``) and `status` (`posted` — taken by the
    /// bank, posted or acknowledged —, `rejected` or `awaiting-second-signature`).
    static func historyFilter(_ request: Request) throws(Problem) -> JournalFilter {
        let query = request.uri.queryParameters
        // A key it does not know is refused, not ignored: `accout=` would answer the whole history as if filtered.
        if let unknown = query.map({ String($0.key) }).first(where: { !Self.historyKeys.contains($0) }) {
            throw PeriodQuery.problem("\(unknown) is not a key of the history's query: use "
                                      + Self.historyKeys.joined(separator: ", "), parameter: unknown)
        }
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
                throw PeriodQuery.problem(language(request).pick(
                    "status=\(status) is not an outcome: use posted, rejected or awaiting-second-signature",
                    "status=\(status) — не результат: укажите posted, rejected или awaiting-second-signature"), parameter: "status")
            }
        }
        return filter
    }
}
