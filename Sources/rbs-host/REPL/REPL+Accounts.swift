import Foundation
import RBSLedger

extension REPL {
    /// `accounts [--json]`.
    func accounts(_ words: [String]) {
        do {
            let arguments = try CommandArguments(words, command: "accounts", flags: ["--json"])
            let overview = try runtime.ledger().accountOverview(of: runtime.party ?? runtime.ledger().hostParty())
            console.say(arguments.flags.contains("--json") ? JSONOutput.text(StatementText.json(overview)) : StatementText.render(overview, language: console.language, width: console.width))
        } catch {
            console.error(String(describing: error))
        }
    }

    /// `statement ACCOUNT [--from DATE] [--to DATE] [--json]`.
    func statement(_ words: [String]) {
        do {
            let arguments = try CommandArguments(words, command: "statement", options: ["--from", "--to"], flags: ["--json"])
            guard arguments.positional.count == 1 else {
                console.error("statement needs one account: statement ACCOUNT [--from DATE] [--to DATE] (ACCOUNT: its number or list number in accounts)")
                return
            }
            let ledger = try runtime.ledger()
            let period = try StatementQuery.period(from: arguments.values["--from"], to: arguments.values["--to"])
            let statement = try ledger.statement(account: try StatementQuery.account(arguments.positional[0], in: ledger), period: period)
            console.say(arguments.flags.contains("--json") ? JSONOutput.text(StatementText.json(statement)) : StatementText.render(statement, language: console.language, width: console.width))
        } catch {
            console.error(String(describing: error))
        }
    }
}
