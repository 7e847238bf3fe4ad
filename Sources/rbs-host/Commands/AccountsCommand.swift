import ArgumentParser
import Foundation
import RBSCore
import RBSLedger

/// `rbs-host accounts`: the accounts with their balances and states, numbered as the account pickers number them.
struct AccountsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accounts", abstract: "List the accounts: number, title, currency, balance, blocked or closed.")
    @OptionGroup var global: GlobalOptions
    @Flag(help: "Print [{position, number, title, currency, balance, blocked, closed}].") var json = false

    func run() throws {
        do {
            let ledger = try global.openLedger()
            let overview = try ledger.accountOverview(of: ledger.hostParty())
            if json { JSONOutput.print(StatementText.json(overview)) } else { print(StatementText.render(overview, language: global.language, width: Terminal.columns)) }
        } catch {
            Terminal.error(CommandError.text(error, global.language))
            throw ExitCode.failure
        }
    }
}
