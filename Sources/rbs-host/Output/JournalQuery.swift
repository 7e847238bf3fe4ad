import Foundation
import RBSCore
import RBSLedger
import RBSMoney

/// What `journal` was asked, as a person typed it, turned into the core's questions (filters, an entry, a receipt),
/// and the answers' JSON: shared by the command line and the REPL.
enum JournalQuery {
    /// Why the question cannot be asked.
    enum Problem: Error, CustomStringConvertible {
        case status(String)
        case format(String)
        case pdfToTerminal
        /// The entry cannot be written as a payment QR code: why, in the person's language.
        case noPaymentCode(String)
        case cannotWrite(path: String, detail: String)

        var description: String {
            switch self {
            case .status(let text): "--status '\(text)' is not an outcome: use posted, rejected, acknowledged or awaiting-second-signature"
            case .format(let text): "--format '\(text)' is not a receipt format: use pdf, html, text or qr"
            case .pdfToTerminal: "a PDF receipt is not for the terminal: give --output FILE (or --format text)"
            case .noPaymentCode(let reason): reason
            case .cannotWrite(let path, let detail): "cannot write the receipt to \(path): \(detail)"
            }
        }
    }

    static func filter(operation: String?, account: String?, from: String?, to: String?, status: String?,
                       ledger: Ledger) throws -> JournalFilter {
        var filter = JournalFilter(operation: operation)
        if let account { filter.account = try StatementQuery.account(account, in: ledger) }
        let period = try StatementQuery.period(from: from, to: to)
        filter.start = period.start
        filter.end = period.end
        if let status {
            guard let kind = JournalEntry.Kind(rawValue: status.lowercased()) else { throw Problem.status(status) }
            filter.status = kind
        }
        return filter
    }

    /// `journal --json`: the entries as the journal's JSON.
    static func json(_ entries: [JournalEntry]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(entries), as: UTF8.self)
    }

    /// `journal show N --json`.
    struct ShowJSON: Encodable {
        struct Section: Encodable {
            var title: String
            var rows: [Row]
        }

        struct Row: Encodable {
            var label: String
            var value: String
            var field: String?

            private enum CodingKeys: String, CodingKey { case label, value, field }

            func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: CodingKeys.self)
                try c.encode(label, forKey: .label)
                try c.encode(value, forKey: .value)
                try c.encode(field, forKey: .field)
            }
        }

        var entry: JournalEntry
        var title: String
        var sections: [Section]
    }

    static func json(_ report: EntryReport) -> String {
        JSONOutput.text(ShowJSON(entry: report.entry, title: report.title, sections: report.sections.map { section in
            .init(title: section.title, rows: section.rows.map { .init(label: $0.label, value: $0.value, field: $0.field) })
        }))
    }

    /// Writes entry `sequence`'s receipt to `output` (or standard output) and returns the line that says where, or
    /// `nil` when it went to standard output.
    /// - Parameter operation: the descriptor of an operation the host has now (its labels and enum titles), by id.
    static func receipt(_ sequence: Int64, format text: String, output: String?, ledger: Ledger, directory: BankDirectory?,
                        toTerminal: Bool, language: HostLanguage = .en,
                        operation: (String) -> OperationDescriptor? = { _ in nil }) throws -> String? {
        let report = try EntryReport(sequence: sequence, ledger: ledger, directory: directory, receipt: true, language: language,
                                     operation: operation)
        let bytes: Data
        let shown: String
        if text.lowercased() == "qr" {
            // The payment as a payment QR code's text (ГОСТ Р 56042-2014), for another payer's app to fill.
            let fields = Dictionary(report.document.fields.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
            do throws(PaymentQRWriteError) {
                bytes = Data((try PaymentQR.written(document: fields, directory: directory).text + "\n").utf8)
            } catch {
                throw Problem.noPaymentCode(HostMessage.describe(error, language))
            }
            shown = "qr"
        } else {
            guard let format = ReceiptFormat(rawValue: text.lowercased()) else { throw Problem.format(text) }
            if output == nil, format == .pdf, toTerminal { throw Problem.pdfToTerminal }
            bytes = try format.render(report)
            shown = format.rawValue
        }
        guard let output else {
            FileHandle.standardOutput.write(bytes)
            return nil
        }
        do {
            try bytes.write(to: URL(fileURLWithPath: output), options: .atomic)
        } catch {
            let reason = (error as NSError).localizedFailureReason ?? (error as NSError).localizedDescription
            throw Problem.cannotWrite(path: output, detail: reason)
        }
        return language.pick(
            "receipt for journal entry \(sequence) (\(shown), \(bytes.count) bytes, document \(report.entry.documentId)) written to \(output)",
            "квитанция к записи журнала \(sequence) (\(shown), байт: \(bytes.count), документ \(report.entry.documentId)) записана в \(output)")
    }
}
