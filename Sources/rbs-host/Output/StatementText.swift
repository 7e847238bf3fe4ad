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

    /// `statement --json`.
    struct StatementJSON: Encodable {
        struct Totals: Encodable {
            var debit: String
            var credit: String
            var debits: Int
            var credits: Int
        }

        struct Counterparty: Encodable {
            var account: String
            var name: String
        }

        struct Line: Encodable {
            var journal: Int64
            var postedAt: String
            var documentId: String
            var operation: String
            var direction: StatementLine.Direction
            var counterparty: Counterparty
            var purpose: String
            var amount: String
            var balance: String
        }

        var account: String
        var title: String
        var currency: String
        /// ISO 8601 UTC; `null`: from the account's opening / up to now.
        var from: String?
        var to: String?
        var opening: String
        var closing: String
        var totals: Totals
        var lines: [Line]

        private enum CodingKeys: String, CodingKey {
            case account, title, currency, from, to, opening, closing, totals, lines
        }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(account, forKey: .account)
            try c.encode(title, forKey: .title)
            try c.encode(currency, forKey: .currency)
            try c.encode(from, forKey: .from)
            try c.encode(to, forKey: .to)
            try c.encode(opening, forKey: .opening)
            try c.encode(closing, forKey: .closing)
            try c.encode(totals, forKey: .totals)
            try c.encode(lines, forKey: .lines)
        }
    }

    static func json(_ overview: [AccountOverview]) -> [AccountJSON] {
        overview.map {
            AccountJSON(position: $0.position, number: $0.account.number, title: $0.account.title, currency: $0.account.currency,
                        balance: Amount.text($0.account.balance, currency: $0.account.currency),
                        blocked: $0.account.blocked, closed: $0.closed)
        }
    }

    static func json(_ statement: AccountStatement) -> StatementJSON {
        let currency = statement.account.currency
        let iso = ISO8601DateFormatter()
        func text(_ value: Decimal) -> String { Amount.text(value, currency: currency) }
        return StatementJSON(
            account: statement.account.number, title: statement.account.title, currency: currency,
            from: statement.period.start.map(iso.string(from:)), to: statement.period.end.map(iso.string(from:)),
            opening: text(statement.opening), closing: text(statement.closing),
            totals: .init(debit: text(statement.totalDebit), credit: text(statement.totalCredit),
                          debits: statement.lines.filter { $0.direction == .debit }.count,
                          credits: statement.lines.filter { $0.direction == .credit }.count),
            lines: statement.lines.map { line in
                .init(journal: line.sequence, postedAt: iso.string(from: date(line.postedAtMilliseconds)), documentId: line.documentId,
                      operation: line.operation, direction: line.direction,
                      counterparty: .init(account: line.counterpartyAccount, name: line.counterpartyName),
                      purpose: line.purpose, amount: text(line.amount), balance: text(line.balanceAfter))
            })
    }

    static func render(_ overview: [AccountOverview], language: HostLanguage = .en) -> String {
        func text(_ message: HostMessage) -> String { message.text(language) }
        guard !overview.isEmpty else { return text(.noAccounts) }
        var table = Table(header: [text(.accountsHeader), text(.accountColumn), text(.title), text(.balance), text(.currencyColumn),
                                   text(.stateColumn)], rightAligned: [3])
        for item in overview {
            let state = text(item.closed ? .accountClosed : item.account.blocked ? .accountBlocked : .accountOpen)
            table.rows.append([String(item.position), item.account.number, item.account.title,
                               Amount.shown(item.account.balance, currency: item.account.currency, language, code: false),
                               item.account.currency, state])
        }
        return table.render()
    }

    static func render(_ statement: AccountStatement, timeZone: TimeZone = .current, language: HostLanguage = .en) -> String {
        func text(_ message: HostMessage) -> String { message.text(language) }
        let currency = statement.account.currency
        func money(_ value: Decimal) -> String { Amount.shown(value, currency: currency, language) }
        let days = DateFormatter()
        days.locale = Locale(identifier: "en_US_POSIX")
        days.timeZone = timeZone
        days.dateFormat = "dd.MM.yyyy"
        let times = DateFormatter()
        times.locale = days.locale
        times.timeZone = timeZone
        times.dateFormat = "dd.MM.yyyy HH:mm"
        // The end is exclusive (the next midnight): the last day shown is the day before it.
        let period = HostMessage.period(from: statement.period.start.map { days.string(from: $0) },
                                        to: statement.period.end.map { days.string(from: $0.addingTimeInterval(-1)) })
        var lines = [
            text(.statementOf(account: statement.account.number, title: statement.account.title, currency: currency)),
            text(period),
            text(.openingBalance(money(statement.opening))),
        ]
        if statement.lines.isEmpty {
            lines.append(text(.noPostings))
        } else {
            var table = Table(header: [text(.dateColumn), text(.accountsHeader), text(.counterpartyColumn), text(.purposeColumn),
                                       text(.amountColumn), text(.balance)], rightAligned: [1, 4, 5])
            for line in statement.lines {
                let counterparty = [line.counterpartyName, line.counterpartyAccount].filter { !$0.isEmpty }.joined(separator: ", ")
                let amount = (line.amount > 0 ? "+" : "") + Amount.shown(line.amount, currency: currency, language, code: false)
                table.rows.append([times.string(from: date(line.postedAtMilliseconds)), String(line.sequence), counterparty,
                                   line.purpose, amount, Amount.shown(line.balanceAfter, currency: currency, language, code: false)])
            }
            lines.append(table.render())
        }
        let debits = statement.lines.filter { $0.direction == .debit }.count
        lines.append(text(.totals(debits: money(statement.totalDebit), debitCount: debits,
                                  credits: money(statement.totalCredit), creditCount: statement.lines.count - debits)))
        lines.append(text(.closingBalance(money(statement.closing))))
        return lines.joined(separator: "\n")
    }

    private static func date(_ milliseconds: Int64) -> Date { Timestamp.date(milliseconds: milliseconds) }
}
