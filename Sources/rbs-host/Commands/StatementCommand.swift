import ArgumentParser
import Foundation
import RBSCore
import RBSLedger

/// `rbs-host statement ACCOUNT [--from DATE] [--to DATE]`: opening balance, every posting, totals, closing balance.
struct StatementCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "statement", abstract: "An account's statement: opening and closing balance and every posting of the period.",
        discussion: "Days are ДД.ММ.ГГГГ or YYYY-MM-DD in the host's time zone; both ends are included.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The account: its number, or its list number in `accounts`.") var account: String
    @Option(help: ArgumentHelp("The first day of the period (default: the account's opening).", valueName: "DATE")) var from: String?
    @Option(help: ArgumentHelp("The last day of the period (default: today, up to now).", valueName: "DATE")) var to: String?
    @Flag(help: "Print {account, title, currency, from, to, opening, closing, totals, lines}.") var json = false

    func run() throws {
        do {
            let ledger = try global.openLedger()
            let period = try StatementQuery.period(from: from, to: to)
            let statement = try ledger.statement(account: try StatementQuery.account(account, in: ledger), period: period)
            if json { JSONOutput.print(StatementText.json(statement)) } else { print(StatementText.render(statement, language: global.language, width: Terminal.columns)) }
        } catch {
            Terminal.error(CommandError.text(error, global.language))
            throw ExitCode.failure
        }
    }
}
