import Foundation
import RBSCore
import RBSLedger

/// `basket sign --json` (and the REPL's basket outcome): what became of a basket and of each of its documents.
///
/// `{status, basket, totals: [{currency, amount}], repeated, documents: [{position, status, journal, document, errors,
/// posting}], errors: [{document, atom, message}]}` — `status` is `posted` (every document posted), `partial` (some
/// posted, some rejected), `rejected` (none posted), or `invalid` (nothing was signed: a form refused a value, the
/// code was wrong, the core would refuse every document…); each document's entry is `run --json`'s report of it
/// plus its position.
struct BasketReport: Encodable {
    enum Status: String, Encodable {
        case posted, partial, rejected, invalid
        case awaiting = "awaiting-second-signature"
    }

    /// One document's outcome: `run --json`'s report of it and its place in the basket.
    struct DocumentReport: Encodable {
        var position: Int
        var report: RunReport

        private enum CodingKeys: String, CodingKey { case position }

        func encode(to encoder: any Encoder) throws {
            try report.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(position, forKey: .position)
        }
    }

    /// A problem before anything was signed, with the document (1-based) and atom it is about when there is one.
    struct Issue: Encodable {
        var document: Int?
        var atom: String?
        var message: String
        /// The message with its field named by the caption the person knows (text output; `atom` is for --json).
        var named: String?

        private enum CodingKeys: String, CodingKey { case document, atom, message }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(document, forKey: .document)
            try container.encode(atom, forKey: .atom)
            try container.encode(message, forKey: .message)
        }
    }

    var status: Status
    var basket: String?
    var totals: [BasketTotal]
    var repeated: Bool
    var documents: [DocumentReport]
    var errors: [Issue]

    private enum CodingKeys: String, CodingKey { case status, basket, totals, repeated, documents, errors }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(status, forKey: .status)
        try container.encode(basket, forKey: .basket)
        try container.encode(totals, forKey: .totals)
        try container.encode(repeated, forKey: .repeated)
        try container.encode(documents, forKey: .documents)
        try container.encode(errors, forKey: .errors)
    }

    /// Nothing was signed: why.
    static func invalid(_ errors: [Issue], basket: Basket? = nil) -> BasketReport {
        BasketReport(status: .invalid, basket: basket?.id, totals: basket?.totals ?? [], repeated: false, documents: [], errors: errors)
    }

    /// The report of a signed basket. `documents` are the basket's documents by id (a repeat's first documents are
    /// read back from the journal when they are not among them); a rejection's reason is said in `language`.
    init(outcome: BasketOutcome, documents: [Document], ledger: Ledger, language: HostLanguage = .en) {
        var byId: [String: Document] = [:]
        for document in documents { byId[document.id] = document }
        var reports: [DocumentReport] = []
        for (index, result) in outcome.outcomes.enumerated() {
            let document = byId[result.documentId]
                ?? (try? ledger.journal.entry(result.sequence)).flatMap { $0 }.flatMap { try? CanonicalEncoding.decode($0.document) }
            var report: RunReport
            if let document {
                report = RunReport(outcome: result, document: document, language: language)
            } else {
                report = RunReport(status: .rejected, journal: result.sequence, document: nil,
                                   errors: [AtomIssue(atom: nil, message: "journal entry \(result.sequence) cannot be read back")])
            }
            reports.append(DocumentReport(position: index + 1, report: report))
        }
        switch outcome.status {
        case .posted: status = .posted
        case .awaiting: status = .awaiting
        case .partial: status = .partial
        case .rejected: status = .rejected
        }
        basket = outcome.basketId
        totals = outcome.list.totals
        repeated = outcome.repeated
        self.documents = reports
        errors = []
    }

    private init(status: Status, basket: String?, totals: [BasketTotal], repeated: Bool, documents: [DocumentReport], errors: [Issue]) {
        self.status = status
        self.basket = basket
        self.totals = totals
        self.repeated = repeated
        self.documents = documents
        self.errors = errors
    }
}

/// A basket's outcome for people: one line for the basket, one for each document (posted with its posting, or
/// rejected with the reason). One rendering for `basket sign` and the REPL.
enum BasketText {
    static func render(_ report: BasketReport, language: HostLanguage = .en) -> String {
        var lines: [String] = []
        let id = report.basket.map { " " + String($0.prefix(16)) + "…" } ?? ""
        let posted = report.documents.filter { $0.report.status == .posted }.count
        let counts = HostMessage.report(.basketOutcome(id: id, posted: posted, of: report.documents.count, repeated: report.repeated)).text(language)
        switch report.status {
        case .posted: lines.append(Terminal.green(counts))
        case .partial, .rejected, .awaiting: lines.append(Terminal.yellow(counts))
        case .invalid: lines.append(Terminal.yellow(HostMessage.report(.basketInvalid(id: id)).text(language)))
        }
        for document in report.documents {
            let text = RunText.render(document.report, language: language).split(separator: "\n", omittingEmptySubsequences: false)
            guard let first = text.first else { continue }
            lines.append("  \(document.position). " + first)
            lines += text.dropFirst().map { "    " + $0.trimmingCharacters(in: .whitespaces) }
        }
        for issue in report.errors {
            let place = [issue.document.map { "document \($0)" }, issue.named == nil ? issue.atom : nil].compactMap { $0 }
                .joined(separator: ", ")
            lines.append("  ⚠ " + (place.isEmpty ? "" : place + ": ") + (issue.named ?? issue.message))
        }
        return lines.joined(separator: "\n")
    }

    /// The review of a basket: each document's lines under its number and operation (with the core's refusal when
    /// it would refuse it now), then the totals, the basket id, the challenge (OCRA) and the method.
    static func review(_ module: BasketModule, language: HostLanguage) -> [String] {
        var lines = [HostMessage.basketHeader(module.basket.documents.count).text(language)]
        for document in module.documents(in: language) {
            lines.append(Terminal.bold("  \(document.position). \(document.operation)"))
            for line in document.lines {
                let text = "     \(line.caption): \(line.value)"
                lines.append(line.prominent ? Terminal.bold(text) : text)
            }
            if let refusal = document.refusal {
                lines.append(Terminal.yellow("     ⚠ " + HostMessage.basketWouldRefuse(HostMessage.describe(refusal, language)).text(language)))
            }
            if let duplicate = document.duplicate {
                lines.append(Terminal.yellow("     ⚠ " + HostMessage.report(.warning).text(language) + ": "
                    + SignModule.duplicateNotice(duplicate, language)))
            }
        }
        for line in module.summary(in: language) {
            let text = "  \(line.caption): \(line.value)"
            lines.append(line.prominent ? Terminal.bold(text) : text)
        }
        return lines
    }
}
