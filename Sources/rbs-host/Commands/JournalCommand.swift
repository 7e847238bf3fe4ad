import ArgumentParser
import Foundation
import RBSCore
import RBSLedger

struct JournalCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "journal", abstract: "List the journal's entries.")
    @OptionGroup var global: GlobalOptions
    @Flag(help: "Print the entries as JSON.") var json = false
    @Option(name: .customLong("request-id"),
            help: ArgumentHelp("Answer whether request ID (of `run --request-id`) was posted: exit 0 only when it was.", valueName: "ID"))
    var requestId: String?

    func run() throws {
        do {
            let ledger = try Ledger(dataDirectory: global.paths.data)
            if let requestId {
                let request = try LedgerRequest(id: requestId)
                let report = try RunReport.first(of: request, in: ledger) ?? RunReport(
                    status: .unknown, journal: nil, document: nil,
                    errors: [AtomIssue(atom: nil, message: "request \(requestId) was never journaled: nothing was posted for it")])
                if json { JSONOutput.print(report) } else { print(RunText.render(report)) }
                if report.status != .posted { throw ExitCode.failure }
                return
            }
            if json {
                print(String(decoding: try ledger.journal.json(), as: UTF8.self))
            } else {
                print(JournalText.render(try ledger.journal.entries()))
            }
        } catch let exit as ExitCode {
            throw exit
        } catch {
            Terminal.error(String(describing: error))
            throw ExitCode.failure
        }
    }
}

struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify", abstract: "Check every signature and the journal's hash chain; exit 1 at the first bad entry.")
    @OptionGroup var global: GlobalOptions

    func run() throws {
        do {
            let ledger = try Ledger(dataDirectory: global.paths.data)
            // The enrolled secret, when there is one, lets verify re-check the OCRA responses it answered.
            switch try ledger.journal.verify(authenticator: try? ledger.authenticator()) {
            case .ok(let count):
                print("ok \(count) \(count == 1 ? "entry" : "entries")")
            case .bad(let sequence, let reason):
                print("bad entry \(sequence): \(reason)")
                throw ExitCode.failure
            case .unreconciled(let reason):
                print("does not reconcile: \(reason)")
                throw ExitCode.failure
            }
        } catch let error as LedgerError {
            Terminal.error(error.description)
            throw ExitCode.failure
        }
    }
}

enum JournalText {
    static func render(_ entries: [JournalEntry]) -> String {
        guard !entries.isEmpty else { return "The journal is empty." }
        var table = Table(header: ["#", "TIME", "KIND", "OPERATION", "AMOUNT", "DEBIT → CREDIT", "SIGNED WITH", "NOTE"])
        let formatter = ISO8601DateFormatter()
        for entry in entries {
            let document = try? CanonicalEncoding.decode(entry.document)
            let amount = [entry.amount ?? document?["amount"], entry.currency ?? document?["currency"]]
                .compactMap { $0 }.joined(separator: " ")
            let route = [entry.debit ?? document?["from"], entry.credit ?? document?["account"]].compactMap { $0 }
                .joined(separator: " → ")
            table.rows.append([
                String(entry.sequence),
                formatter.string(from: Date(timeIntervalSince1970: Double(entry.recordedAtMilliseconds) / 1000)),
                entry.kind.rawValue, document?.operation ?? "?", amount, route, method(entry.authorization), entry.reason ?? "",
            ])
        }
        return table.render()
    }

    /// The signing method of an entry: OCRA with its challenge, a passkey with its algorithm, or TOTP marked as not
    /// bound to the transaction.
    static func method(_ authorization: Authorization?) -> String {
        guard let authorization else { return "(not recorded)" }
        switch authorization.method {
        case .ocra: return "OCRA " + (authorization.challenge.map(OCRASuite.grouped) ?? "")
        case .totp: return "TOTP (not bound)"
        case .passkey: return "passkey " + authorization.suite.replacingOccurrences(of: "WEBAUTHN-", with: "")
        }
    }
}
