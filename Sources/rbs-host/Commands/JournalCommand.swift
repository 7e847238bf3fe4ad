import ArgumentParser
import Foundation
import RBSCore
import RBSLedger

struct JournalCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "journal", abstract: "List the journal's entries.")
    @OptionGroup var global: GlobalOptions
    @Flag(help: "Print the entries as JSON.") var json = false

    func run() throws {
        do {
            let ledger = try Ledger(dataDirectory: global.paths.data)
            if json {
                print(String(decoding: try ledger.journal.json(), as: UTF8.self))
            } else {
                print(JournalText.render(try ledger.journal.entries()))
            }
        } catch {
            Terminal.error(error.description)
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
            switch try Ledger(dataDirectory: global.paths.data).journal.verify() {
            case .ok(let count):
                print("ok \(count) \(count == 1 ? "entry" : "entries")")
            case .bad(let sequence, let reason):
                print("bad entry \(sequence): \(reason)")
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
        var table = Table(header: ["#", "TIME", "KIND", "OPERATION", "AMOUNT", "DEBIT → CREDIT", "NOTE"])
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
                entry.kind.rawValue, document?.operation ?? "?", amount, route, entry.reason ?? "",
            ])
        }
        return table.render()
    }
}
