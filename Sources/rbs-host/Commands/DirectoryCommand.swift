import ArgumentParser
import Foundation
import RBSCore

/// `rbs-host directory import|show`: the Bank of Russia's BIC directory (ED807) the host checks BICs against.
struct DirectoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "directory", abstract: "The bank directory (the Bank of Russia's ED807 BIC directory).",
        discussion: "The host uses the directory imported into <data>/bank-directory.xml, or else the small extract shipped with it.",
        subcommands: [Import.self, Show.self], defaultSubcommand: Show.self)

    /// What `show` and `import` print with --json.
    struct Summary: Encodable {
        var source: String
        var date: String
        var entries: Int
        var closed: Int

        init(_ directory: BankDirectory) {
            source = directory.source
            date = directory.date
            entries = directory.count
            closed = directory.closedCount
        }

        var text: String { "bank directory of \(date): \(entries) entries (\(closed) closed), from \(source)" }
    }

    /// One BIC, for `show BIC --json`.
    struct Entry: Encodable {
        var bic: String
        var status: String
        var name: String?
        var correspondentAccount: String?
        var city: String?
        var closedOn: String?
        var directoryDate: String
    }

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import", abstract: "Check an ED807 file (XML, unzipped) and keep it as the host's bank directory.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The ED807 file (e.g. 20261120_ED807_full.xml).") var file: String
        @Flag(help: "Print {source, date, entries, closed}.") var json = false

        func run() throws {
            do {
                let directory = try BankDirectory.importED807(from: URL(fileURLWithPath: file), into: global.paths.data)
                let summary = Summary(directory)
                if json { JSONOutput.print(summary) } else { print("imported \(summary.text)") }
            } catch {
                Terminal.error(error.description)
                throw ExitCode.failure
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "The directory's date and size, or what it says about one BIC.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "A BIC to look up.") var bic: String?
        @Flag(help: "Print JSON: {source, date, entries, closed}, or for a BIC {bic, status, name, correspondentAccount, city, closedOn, directoryDate}.")
        var json = false

        func run() throws {
            let directory: BankDirectory
            do {
                directory = try BankDirectory.current(dataDirectory: global.paths.data)
            } catch {
                Terminal.error(error.description)
                throw ExitCode.failure
            }
            guard let bic else {
                let summary = Summary(directory)
                if json { JSONOutput.print(summary) } else { print(summary.text) }
                return
            }
            var entry = Entry(bic: bic, status: "unknown", directoryDate: directory.date)
            switch directory.status(bic: bic) {
            case .active(let bank):
                entry = Entry(bic: bic, status: "active", name: bank.name, correspondentAccount: bank.correspondentAccount,
                              city: bank.city, directoryDate: directory.date)
            case .closed(let bank, let date):
                entry = Entry(bic: bic, status: "closed", name: bank.name, correspondentAccount: bank.correspondentAccount,
                              city: bank.city, closedOn: date, directoryDate: directory.date)
            case .unknown:
                break
            }
            if json {
                JSONOutput.print(entry)
            } else {
                switch entry.status {
                case "active": print("\(bic) \(entry.name ?? "") (\(entry.city ?? "")), account \(entry.correspondentAccount ?? "")")
                case "closed": print("\(bic) \(entry.name ?? ""): closed on \(entry.closedOn ?? "") (directory of \(directory.date))")
                default: print("\(bic): not in the bank directory of \(directory.date)")
                }
            }
            if entry.status != "active" { throw ExitCode.failure }
        }
    }
}
