import Foundation
import RBSCore
import RBSLedger

extension REPL {
    /// `journal [N] [--operation OP] [--account A] [--from DATE] [--to DATE] [--status S] [--json]`,
    /// `journal show N [--json]`, `journal receipt N [--format pdf|html|text|qr] [--output FILE]`.
    func journal(_ words: [String]) {
        do {
            let ledger = try runtime.ledger()
            let directory = runtime.locator.optional(BankDirectory.self)
            let language = console.language
            let operation: (String) -> OperationDescriptor? = { [runtime] in runtime.registry.listedDescriptor($0) }
            switch words.first?.lowercased() {
            case "show":
                let arguments = try CommandArguments(Array(words.dropFirst()), command: "journal show", flags: ["--json"])
                console.say(try JournalCommand.Show.render(try entryNumber(arguments.positional, usage: "journal show N"), ledger: ledger,
                                                          directory: directory, json: arguments.flags.contains("--json"),
                                                          language: language, operation: operation))
            case "receipt":
                let arguments = try CommandArguments(Array(words.dropFirst()), command: "journal receipt", options: ["--format", "--output"])
                let sequence = try entryNumber(arguments.positional, usage: "journal receipt N [--format pdf|html|text|qr] [--output FILE]")
                // In the REPL a receipt goes to a file, or (text, a QR code's text) to the screen.
                let format = arguments.values["--format"] ?? (arguments.values["--output"] == nil ? "text" : "pdf")
                if arguments.values["--output"] == nil, !["text", "qr"].contains(format.lowercased()) {
                    console.error("a \(format) receipt goes to a file: journal receipt \(sequence) --format \(format) --output FILE")
                    return
                }
                if let written = try JournalQuery.receipt(sequence, format: format, output: arguments.values["--output"],
                                                          ledger: ledger, directory: directory, toTerminal: false,
                                                          language: language, operation: operation) {
                    console.say(written)
                }
            default:
                let arguments = try CommandArguments(words, command: "journal",
                                                     options: ["--operation", "--account", "--from", "--to", "--status"], flags: ["--json"])
                let json = arguments.flags.contains("--json")
                if !arguments.positional.isEmpty {
                    console.say(try JournalCommand.Show.render(try entryNumber(arguments.positional, usage: "journal N"), ledger: ledger,
                                                              directory: directory, json: json, language: language, operation: operation))
                    return
                }
                let values = arguments.values
                let filter = try JournalQuery.filter(operation: values["--operation"], account: values["--account"], from: values["--from"],
                                                     to: values["--to"], status: values["--status"], ledger: ledger)
                let entries = try ledger.journal.entries(matching: filter)
                console.say(json ? try JournalQuery.json(entries) : JournalText.render(entries, filtered: filter != JournalFilter(), language: language, width: console.width))
            }
        } catch {
            console.error(String(describing: error))
        }
    }

    private func entryNumber(_ positional: [String], usage: String) throws -> Int64 {
        guard positional.count == 1, let number = Int64(positional[0]), number >= 1 else {
            throw CommandArguments.Problem.usage(usage + " (N: an entry's number, see journal)")
        }
        return number
    }
}
