import ArgumentParser
import Foundation
import RBSCore
import RBSLedger

/// `rbs-host journal`: the entries (filtered), one entry in full (`show N`), or a posted entry's receipt.
struct JournalCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "journal", abstract: "List the journal's entries, show one in full, or write a posted entry's receipt.",
        subcommands: [List.self, Show.self, ReceiptExport.self], defaultSubcommand: List.self)

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the journal's entries (those every filter given takes); `journal N` shows entry N.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "Show entry N in full (as `journal show N`).") var entry: Int64?
        @Flag(help: "Print the entries as JSON.") var json = false
        @Option(name: .customLong("request-id"),
                help: ArgumentHelp("Answer whether request ID (of `run --request-id`) was posted: exit 0 only when it was.", valueName: "ID"))
        var requestId: String?
        @Option(help: ArgumentHelp("Only entries of this operation id.", valueName: "OP")) var operation: String?
        @Option(help: ArgumentHelp("Only entries that debit, credit or name this account (number or list number).", valueName: "ACCOUNT"))
        var account: String?
        @Option(help: ArgumentHelp("Only entries recorded on or after this day (ДД.ММ.ГГГГ or YYYY-MM-DD).", valueName: "DATE")) var from: String?
        @Option(help: ArgumentHelp("Only entries recorded on or before this day.", valueName: "DATE")) var to: String?
        @Option(help: ArgumentHelp("Only entries with this outcome: posted, rejected, acknowledged or awaiting-second-signature.", valueName: "STATUS")) var status: String?

        func run() throws {
            do {
                let ledger = try global.openLedger()
                if let entry {
                    print(try Show.render(entry, ledger: ledger, directory: try? BankDirectory.current(dataDirectory: global.paths.data), json: json,
                                          language: global.language, operation: Show.descriptors(global)))
                    return
                }
                if let requestId {
                    let request = try LedgerRequest(id: requestId)
                    let report = try RunReport.first(of: request, in: ledger) ?? RunReport(
                        status: .unknown, journal: nil, document: nil,
                        errors: [AtomIssue(atom: nil, message: global.language.pick(
                            "request \(requestId) was never journaled: nothing was posted for it",
                            "запрос \(requestId) не записан в журнал: по нему ничего не проведено"))])
                    if json { JSONOutput.print(report) } else { print(RunText.render(report, language: global.language)) }
                    if report.status != .posted { throw ExitCode.failure }
                    return
                }
                let filter = try JournalQuery.filter(operation: operation, account: account, from: from, to: to, status: status, ledger: ledger)
                let entries = try ledger.journal.entries(matching: filter)
                if json {
                    print(try JournalQuery.json(entries))
                } else {
                    print(JournalText.render(entries, filtered: filter != JournalFilter(), language: global.language, width: Terminal.columns))
                }
            } catch let exit as ExitCode {
                throw exit
            } catch {
                Terminal.error(CommandError.text(error, global.language))
                throw ExitCode.failure
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "One entry in full: the document with labels, the outcome, the signature, key id and authorisation.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The entry's number.") var entry: Int64
        @Flag(help: "Print {entry (as journal --json), title, sections: [{title, rows: [{label, value, field}]}]}.") var json = false

        func run() throws {
            do {
                print(try Self.render(entry, ledger: try global.openLedger(),
                                      directory: try? BankDirectory.current(dataDirectory: global.paths.data), json: json,
                                      language: global.language, operation: Self.descriptors(global)))
            } catch {
                Terminal.error(CommandError.text(error, global.language))
                throw ExitCode.failure
            }
        }

        /// Entry `sequence` in full, as text or JSON, in `language`; its fields under the labels of `operation`'s
        /// descriptor when the host has the operation now.
        static func render(_ sequence: Int64, ledger: Ledger, directory: BankDirectory?, json: Bool, language: HostLanguage = .en,
                           operation: (String) -> OperationDescriptor? = { _ in nil }) throws -> String {
            let report = try EntryReport(sequence: sequence, ledger: ledger, directory: directory, receipt: false, language: language,
                                         operation: operation)
            return json ? JournalQuery.json(report) : String(ReceiptFormat.text(report).dropLast())
        }

        /// The operations the plugin folder offers now (from the manifests; nothing is loaded), for their labels; a
        /// folder that cannot be listed leaves the fields under their contract roles or keys.
        static func descriptors(_ global: GlobalOptions) -> (String) -> OperationDescriptor? {
            guard let runtime = try? global.makeRuntime() else { return { _ in nil } }
            return { runtime.registry.listedDescriptor($0) }
        }
    }

    struct ReceiptExport: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "receipt", abstract: "A posted entry's receipt: the bank's requisites, the document, its hash and the signature.",
            discussion: "Without --output the receipt goes to standard output (a PDF only when it is not a terminal).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The entry's number.") var entry: Int64
        @Option(help: ArgumentHelp("pdf (default), html, text, or qr (the payment as a payment QR code's text, ГОСТ Р 56042-2014).", valueName: "FORMAT")) var format: String = "pdf"
        @Option(help: ArgumentHelp("Write the receipt to FILE.", valueName: "FILE")) var output: String?

        func run() throws {
            do {
                let ledger = try global.openLedger()
                let written = try JournalQuery.receipt(entry, format: format, output: output, ledger: ledger,
                                                       directory: try? BankDirectory.current(dataDirectory: global.paths.data), toTerminal: isatty(1) == 1,
                                                       language: global.language, operation: Show.descriptors(global))
                if let written { Terminal.note(written) }
            } catch {
                Terminal.error(CommandError.text(error, global.language))
                throw ExitCode.failure
            }
        }
    }
}

struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify", abstract: "Check every signature and the journal's hash chain; exit 1 at the first bad entry.")
    @OptionGroup var global: GlobalOptions

    func run() throws {
        do {
            let ledger = try global.openLedger()
            // The enrolled secret, when there is one, lets verify re-check the OCRA responses it answered.
            switch try ledger.journal.verify(authenticator: try? ledger.authenticator()) {
            case .ok(let count):
                print(HostMessage.verified(entries: count).text(global.language))
            case .bad(let sequence, let reason):
                print(HostMessage.badEntry(sequence, reason: reason).text(global.language))
                throw ExitCode.failure
            case .unreconciled(let reason):
                print(HostMessage.unreconciled(reason).text(global.language))
                throw ExitCode.failure
            }
        } catch let error as LedgerError {
            Terminal.error(HostMessage.describe(error, global.language))
            throw ExitCode.failure
        }
    }
}

enum JournalText {
    /// The entries as a table in `language`: the status in the catalogue's word for its outcome kind.
    static func render(_ entries: [JournalEntry], filtered: Bool = false, language: HostLanguage = .en, width: Int? = nil) -> String {
        func text(_ report: HostMessage.Report) -> String { report.text(language) }
        guard !entries.isEmpty else { return text(filtered ? .noEntryMatches : .journalEmpty) }
        var table = Table(header: [text(.numberColumn), text(.timeColumn), text(.statusColumn), text(.operationColumn),
                                   text(.amountColumn), text(.routeColumn), text(.signedWithColumn), text(.noteColumn)])
        let formatter = ISO8601DateFormatter()
        for entry in entries {
            let document = try? CanonicalEncoding.decode(entry.document)
            // A refused document has no posting: its money fields as signed (whatever the core found wrong with them).
            let currency = entry.currency ?? document?.text(of: .currency) ?? ""
            let amount = (entry.amount ?? document?.text(of: .amount)).map { Amount.shown($0, currency: currency, language) } ?? ""
            let route = [entry.debit ?? document?.text(of: .debitAccount), entry.credit ?? document?.text(of: .creditAccount)].compactMap { $0 }
                .joined(separator: " → ")
            table.rows.append([
                String(entry.sequence),
                // Russian writes a day as ДД.ММ.ГГГГ, as `journal show` and the statement do; English keeps ISO 8601.
                language == .ru ? EntryReport.time(entry.recordedAtMilliseconds)
                    : formatter.string(from: Timestamp.date(milliseconds: entry.recordedAtMilliseconds)),
                HostMessage.status(entry.kind).text(language), document?.operation ?? "?", amount, route,
                method(entry.authorization, language) + (entry.basketId.map { " · " + text(.inBasket(String($0.prefix(8)))) } ?? ""),
                HostMessage.reason(of: entry, language) ?? "",
            ])
        }
        table.labelledWhenStacked = true
        return table.render(width: width)
    }

    /// The signing method of an entry: OCRA with its challenge, a passkey with its algorithm, or TOTP marked as not
    /// bound to the transaction.
    static func method(_ authorization: Authorization?, _ language: HostLanguage = .en) -> String {
        guard let authorization else { return HostMessage.report(.methodNotRecorded).text(language) }
        switch authorization.method {
        case .ocra: return "OCRA " + (authorization.challenge.map(OCRASuite.grouped) ?? "")
        case .totp: return HostMessage.report(.methodTOTP).text(language)
        case .passkey: return "passkey " + authorization.suite.replacingOccurrences(of: "WEBAUTHN-", with: "")
        }
    }
}
