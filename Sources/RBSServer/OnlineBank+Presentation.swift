import Foundation
import HTTPTypes
import Hummingbird
import RBSCore
import RBSLedger

/// The server's part of the one presentation of a document: a receipt and a journal entry carry `title` and
/// `sections` made by ``EntryReport`` (the plugin's labels and enum titles, masked card numbers, amounts and dates in
/// the person's language, the payer's name, the catalogue's status word), so the web client renders what `journal
/// show` and the receipts show, and never labels a field itself.
extension OnlineBank {
    /// `receipt` with its entry's presentation in `language`: a receipt's (the bank's requisites, no balance) for a
    /// document the bank took, `journal show`'s for one it rejected or that awaits a second signature. Unchanged when
    /// the entry cannot be read back (the receipt's own keys still say what happened).
    func presented(_ receipt: API.Receipt, for customer: Customer, language: HostLanguage) async -> API.Receipt {
        let ledger = self.ledger, directory = runtime.locator.optional(BankDirectory.self), registry = runtime.registry
        let report = try? await Self.blocking {
            (try EntryReport(sequence: receipt.journal, ledger: ledger, directory: directory, receipt: receipt.status == "posted",
                             language: language, operation: registry.listedDescriptor),
             try ledger.journal.entry(receipt.journal).flatMap { HostMessage.reason(of: $0, language) })
        }
        guard let (report, reason) = report else { return receipt }
        var presented = receipt
        presented.reasonText = reason
        presented.title = report.title
        presented.sections = API.Section.of(report)
        return presented
    }

    /// Each document's receipt of `basket` with its presentation (``presented(_:for:language:)``).
    func presented(_ basket: API.BasketReceipt, for customer: Customer, language: HostLanguage) async -> API.BasketReceipt {
        var presented = basket
        var receipts: [API.Receipt] = []
        for receipt in basket.receipts { receipts.append(await self.presented(receipt, for: customer, language: language)) }
        presented.receipts = receipts
        return presented
    }

    /// The journal's entries of `customer` with their presentation in `language` (`journal show`'s).
    func presented(_ lines: [API.JournalLine], for customer: Customer, language: HostLanguage) async throws(Problem) -> [API.JournalLine] {
        let ledger = self.ledger, directory = runtime.locator.optional(BankDirectory.self), registry = runtime.registry
        do {
            return try await Self.blocking {
                // The signers' names once, not per entry.
                let names = Dictionary(try ledger.customers.list().map { ($0.keyId, $0.name) }, uniquingKeysWith: { first, _ in first })
                return try lines.map { line in
                    guard let entry = try ledger.journal.entry(line.sequence) else { return line }
                    let report = try EntryReport(entry: entry, ledger: ledger, directory: directory, receipt: false, language: language,
                                                 payer: { names[$0] }, operation: registry.listedDescriptor)
                    var presented = line
                    presented.reasonText = HostMessage.reason(of: entry, language)
                    presented.title = report.title
                    presented.sections = API.Section.of(report)
                    return presented
                }
            }
        } catch {
            throw Self.storageProblem("the journal could not be read", error)
        }
    }
}

extension Routes {
    /// The language a person reads the answer in (a field's refusal, a wrong code, the review, a receipt): `?lang=ru|en`,
    /// else the one `Accept-Language` prefers (the web page sends the customer's choice there), else English.
    static func language(_ request: Request) -> HostLanguage {
        if let lang = request.uri.queryParameters["lang"].flatMap({ HostLanguage(rawValue: String($0)) }) { return lang }
        return HostLanguage.preferred(acceptLanguage: request.headers[.acceptLanguage])
    }
}
