import Foundation
import RBSCore
import RBSLedger

/// `accounts` and `statement` for people (aligned tables) and for scripts (`--json`).
enum StatementText {
    /// `accounts --json`: one object per account.
    struct AccountJSON: Encodable {
        var position: Int
        var number: String
        var title: String
        var currency: String
        var balance: String
        var blocked: Bool
        var closed: Bool
    }

    static func json(_ overview: [AccountOverview]) -> [AccountJSON] {
        overview.map {
            AccountJSON(position: $0.position, number: $0.account.number, title: $0.account.title, currency: $0.account.currency,
                        balance: $0.account.balance.plain,
                        blocked: $0.account.blocked, closed: $0.closed)
        }
    }

    /// `statement --json`: the core's one JSON of a statement (also `serve`'s).
    static func json(_ statement: AccountStatement) -> StatementFormat.JSON { StatementFormat.json(statement) }

    static func render(_ overview: [AccountOverview], language: HostLanguage = .en, width: Int? = nil) -> String {
        func text(_ message: HostMessage) -> String { message.text(language) }
        guard !overview.isEmpty else { return text(.noAccounts) }
        var table = Table(header: [text(.accountsHeader), text(.accountColumn), text(.title), text(.balance), text(.currencyColumn),
                                   text(.stateColumn)], rightAligned: [3])
        for item in overview {
            let state = text(item.closed ? .accountClosed : item.account.blocked ? .accountBlocked : .accountOpen)
            table.rows.append([String(item.position), item.account.number, item.account.title,
                               Amount.shown(item.account.balance, language, code: false),
                               item.account.currency, state])
        }
        table.labelledWhenStacked = true
        return table.render(width: width)
    }

    static func render(_ statement: AccountStatement, timeZone: TimeZone = .current, language: HostLanguage = .en,
                       width: Int? = nil) -> String {
        func text(_ message: HostMessage) -> String { message.text(language) }
        let currency = statement.account.currency
        func money(_ value: Decimal) -> String { Amount.shown(value, currency: currency, language) }
        let times = StatementFormat.timeFormatter(timeZone)
        let period = StatementFormat.period(statement.period, timeZone: timeZone)
        var lines = [
            text(.statementOf(account: statement.account.number, title: statement.account.title, currency: currency)),
            text(period),
            text(.openingBalance(money(statement.opening))),
        ]
        if statement.lines.isEmpty {
            lines.append(text(.noPostings))
        } else {
            var table = Table(header: [text(.dateColumn), text(.accountsHeader), text(.counterpartyColumn), text(.purposeColumn),
                                       text(.amountColumn), text(.balance)], rightAligned: [1, 4, 5],
                              labelledWhenStacked: true)
            for line in statement.lines {
                let counterparty = StatementFormat.counterparty(line, language: language)
                let amount = (line.amount > 0 ? "+" : "") + Amount.shown(line.amount, currency: currency, language, code: false)
                table.rows.append([times.string(from: date(line.postedAtMilliseconds)), String(line.sequence), counterparty,
                                   line.purpose, amount, Amount.shown(line.balanceAfter, currency: currency, language, code: false)])
            }
            lines.append(table.render(width: width))
        }
        let debits = statement.lines.filter { $0.direction == .debit }.count
        lines.append(text(.totals(debits: money(statement.totalDebit), debitCount: debits,
                                  credits: money(statement.totalCredit), creditCount: statement.lines.count - debits)))
        lines.append(text(.closingBalance(money(statement.closing))))
        return lines.joined(separator: "\n")
    }

    private static func date(_ milliseconds: Int64) -> Date { Timestamp.date(milliseconds: milliseconds) }
}
