import Foundation
import Testing

/// `accounts` and `statement`: the command line, `--json`, and the REPL from a pipe.
@Suite("accounts and statement")
struct AccountsStatementTests {
    struct AccountJSON: Decodable, Equatable {
        var position: Int
        var number: String
        var title: String
        var currency: String
        var balance: String
        var blocked: Bool
        var closed: Bool
    }

    struct StatementJSON: Decodable {
        struct Totals: Decodable, Equatable {
            var debit: String
            var credit: String
            var debits: Int
            var credits: Int
        }

        struct Counterparty: Decodable, Equatable {
            var account: String
            var name: String
        }

        struct Line: Decodable {
            var journal: Int64
            var postedAt: String
            var documentId: String
            var operation: String
            var direction: String
            var counterparty: Counterparty
            var purpose: String
            var amount: String
            var balance: String
        }

        var account: String
        var title: String
        var currency: String
        var from: String?
        var to: String?
        var opening: String
        var closing: String
        var totals: Totals
        var lines: [Line]
    }

    private static func decimal(_ text: String) -> Decimal { Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))! }

    @Test("accounts --json: exactly {position, number, title, currency, balance, blocked, closed}, the balances of the core")
    func accountsJSON() throws {
        let sandbox = try HostSandbox.withTwoPostings()
        let result = try sandbox.host(["accounts", "--json"])
        #expect(result.status == 0, "\(result)")
        let array = try #require(try jsonObject(result.stdout) as? [Any])
        #expect(array.allSatisfy { keys($0) == ["position", "number", "title", "currency", "balance", "blocked", "closed"] })
        let accounts = try decode([AccountJSON].self, result.stdout)
        #expect(accounts == [
            AccountJSON(position: 1, number: Demo.current, title: "Текущий счёт", currency: "RUB", balance: "149499.75", blocked: false, closed: false),
            AccountJSON(position: 2, number: Demo.savings, title: "Накопительный счёт", currency: "RUB", balance: "498999.75", blocked: false, closed: false),
            AccountJSON(position: 3, number: Demo.blocked, title: "Старый счёт", currency: "RUB", balance: "1200.00", blocked: true, closed: false),
            AccountJSON(position: 4, number: Demo.usd, title: "Валютный счёт", currency: "USD", balance: "2500.00", blocked: false, closed: false),
        ])
        let balances = try sandbox.balances()
        for account in accounts { #expect(balances[account.number] == Self.decimal(account.balance)) }

        let text = try sandbox.host(["accounts"])
        let lines = text.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.split(separator: " ", omittingEmptySubsequences: true) == ["#", "ACCOUNT", "TITLE", "BALANCE", "CURRENCY", "STATE"])
        #expect(lines.count == 6)
        #expect(lines[2].split(separator: " ").map(String.init) == ["1", Demo.current, "Текущий", "счёт", "149,499.75", "RUB", "open"])
        #expect(lines[4].hasSuffix("RUB       blocked"))
        // Balances end at the column's right edge, so their digits line up: the character before the two spaces
        // ahead of the CURRENCY column is a balance's last digit on every row.
        let header = Array(lines[0])
        let currencyColumn = try #require((0..<header.count).first { String(header[$0...].prefix(8)) == "CURRENCY" })
        for line in lines[2...5] {
            let characters = Array(line)
            #expect(characters[currencyColumn - 3].isNumber && characters[currencyColumn - 2] == " ", "\(line)")
        }
    }

    @Test("statement --json: opening + lines = closing = the account's balance; counterparty, purpose, totals")
    func statementJSON() throws {
        let sandbox = try HostSandbox.withTwoPostings()
        let result = try sandbox.host(["statement", "1", "--json"])
        #expect(result.status == 0, "\(result)")
        let object = try jsonObject(result.stdout)
        #expect(keys(object) == ["account", "title", "currency", "from", "to", "opening", "closing", "totals", "lines"])
        #expect(keys((object as? [String: Any])?["totals"]) == ["debit", "credit", "debits", "credits"])
        let statement = try decode(StatementJSON.self, result.stdout)
        #expect(statement.account == Demo.current && statement.currency == "RUB" && statement.title == "Текущий счёт")
        #expect(statement.from == nil && statement.to == nil)
        #expect(statement.opening == "150000.00")
        #expect(statement.closing == "149499.75")
        #expect(try sandbox.balances()[Demo.current] == Self.decimal(statement.closing))
        #expect(statement.totals == .init(debit: "1500.50", credit: "1000.25", debits: 1, credits: 1))
        let sum = statement.lines.reduce(Self.decimal(statement.opening)) { $0 + Self.decimal($1.amount) }
        #expect(sum == Self.decimal(statement.closing))
        #expect(statement.lines.map(\.amount) == ["-1500.50", "1000.25"])
        #expect(statement.lines.map(\.balance) == ["148499.50", "149499.75"])
        #expect(statement.lines.map(\.direction) == ["debit", "credit"])
        #expect(statement.lines.map(\.journal) == [1, 2])
        #expect(statement.lines.map(\.counterparty) == [.init(account: Demo.external, name: "ООО Ромашка"),
                                                        .init(account: Demo.savings, name: "Иванов Иван Иванович")])
        #expect(statement.lines.map(\.purpose) == ["Оплата по счёту 7", "Перевод между своими счетами"])
        #expect(statement.lines.map(\.operation) == ["pay.pp.quick", "transfer.own"])
        let journal = try sandbox.journal()
        #expect(statement.lines.map(\.documentId) == journal.map(\.documentId))
        #expect(statement.lines[0].postedAt == "2026-05-28T20:27:10Z")
    }

    @Test("statement --from/--to: days in the host's time zone, both included; the period's opening carries earlier postings")
    func periods() throws {
        let sandbox = try HostSandbox.withTwoPostings()
        let utc: [String: String?] = ["TZ": "UTC"]
        // The payment is on 28.05.2026, the transfer on 29.05.2026 (UTC).
        let second = try decode(StatementJSON.self, try sandbox.host(["statement", Demo.current, "--from", "29.05.2026", "--json"], environment: utc).stdout)
        #expect(second.from == "2026-05-29T00:00:00Z" && second.to == nil)
        #expect(second.opening == "148499.50" && second.closing == "149499.75" && second.lines.map(\.journal) == [2])
        let first = try decode(StatementJSON.self, try sandbox.host(["statement", Demo.current, "--to", "2026-05-28", "--json"], environment: utc).stdout)
        #expect(first.to == "2026-05-29T00:00:00Z")
        #expect(first.opening == "150000.00" && first.closing == second.opening && first.lines.map(\.journal) == [1])
        let none = try decode(StatementJSON.self, try sandbox.host(["statement", "1", "--from", "01.06.2026", "--to", "30.06.2026", "--json"], environment: utc).stdout)
        #expect(none.lines.isEmpty && none.opening == "149499.75" && none.closing == "149499.75")
        #expect(none.totals == .init(debit: "0.00", credit: "0.00", debits: 0, credits: 0))
    }

    @Test("statement text: the period, the opening, one row per posting, totals and the closing")
    func statementText() throws {
        let sandbox = try HostSandbox.withTwoPostings()
        let result = try sandbox.host(["statement", "1", "--from", "28.05.2026"], environment: ["TZ": "UTC"])
        #expect(result.status == 0, "\(result)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines[0] == "Statement of account \(Demo.current) (Текущий счёт), RUB")
        #expect(lines[1] == "Period: 28.05.2026 – now")
        #expect(lines[2] == "Opening balance: 150,000.00 RUB")
        #expect(lines[3].split(separator: " ").map(String.init) == ["DATE", "#", "COUNTERPARTY", "PURPOSE", "AMOUNT", "BALANCE"])
        #expect(lines[5].hasPrefix("28.05.2026 20:27  1  ООО Ромашка, \(Demo.external)"))
        #expect(lines[5].hasSuffix("-1,500.50  148,499.50"))
        #expect(lines[6].hasPrefix("29.05.2026 20:27  2  Иванов Иван Иванович, \(Demo.savings)"))
        #expect(lines[6].hasSuffix("+1,000.25  149,499.75"))
        #expect(lines[7] == "Debits: 1,500.50 RUB (1) · Credits: 1,000.25 RUB (1)")
        #expect(lines[8] == "Closing balance: 149,499.75 RUB")
        #expect(lines.count == 9)
    }

    @Test("accounts and statement in Russian (--lang ru): headers, states, totals and amounts as Russian readers write them")
    func russian() throws {
        let sandbox = try HostSandbox.withTwoPostings()
        let accounts = try sandbox.host(["accounts", "--lang", "ru"])
        #expect(accounts.status == 0, "\(accounts)")
        let rows = accounts.stdout.split(separator: "\n").map(String.init)
        #expect(rows[0].split(separator: " ").map(String.init) == ["№", "СЧЁТ", "НАЗВАНИЕ", "ОСТАТОК", "ВАЛЮТА", "СОСТОЯНИЕ"])
        #expect(rows[2].components(separatedBy: "  ").filter { !$0.isEmpty }.map { $0.trimmingCharacters(in: .whitespaces) }
                == ["1", Demo.current, "Текущий счёт", "149\u{A0}499,75", "RUB", "открыт"])
        #expect(rows[4].hasSuffix("RUB     заблокирован"))

        let statement = try sandbox.host(["statement", "1", "--from", "28.05.2026", "--lang", "ru"], environment: ["TZ": "UTC"])
        #expect(statement.status == 0, "\(statement)")
        let lines = statement.stdout.split(separator: "\n").map(String.init)
        #expect(lines[0] == "Выписка по счёту \(Demo.current) (Текущий счёт), RUB")
        #expect(lines[1] == "Период: 28.05.2026 – по сей день")
        #expect(lines[2] == "Входящий остаток: 150\u{A0}000,00 RUB")
        #expect(lines[3].split(separator: " ").map(String.init) == ["ДАТА", "№", "КОНТРАГЕНТ", "НАЗНАЧЕНИЕ", "СУММА", "ОСТАТОК"])
        #expect(lines[5].hasSuffix("-1\u{A0}500,50  148\u{A0}499,50"))
        #expect(lines[7] == "Списания: 1\u{A0}500,50 RUB (1) · Зачисления: 1\u{A0}000,25 RUB (1)")
        #expect(lines[8] == "Исходящий остаток: 149\u{A0}499,75 RUB")
    }

    @Test("statement refuses an unknown account, a day that does not exist and an empty period, saying which")
    func refusals() throws {
        let sandbox = try HostSandbox()
        let unknown = try sandbox.host(["statement", "40817810000000000000"])
        #expect(unknown.status == 1 && unknown.stdout.isEmpty)
        #expect(unknown.stderr == "error: there is no account 40817810000000000000 (see `accounts` for the account numbers)\n")
        let position = try sandbox.host(["statement", "9"])
        #expect(position.stderr == "error: '9' is neither an account number nor a list number 1–4 (see `accounts`)\n")
        let day = try sandbox.host(["statement", "1", "--from", "31.02.2026"])
        #expect(day.status == 1)
        #expect(day.stderr == "error: --from '31.02.2026' is not a day: write ДД.ММ.ГГГГ (31.03.2026) or YYYY-MM-DD (2026-03-31)\n")
        let empty = try sandbox.host(["statement", "1", "--from", "02.05.2026", "--to", "2026-05-01"], environment: ["TZ": "UTC"])
        #expect(empty.status == 1)
        #expect(empty.stderr == "error: --to 2026-05-01 is before --from 02.05.2026: the period has no days\n")
    }

    @Test("the REPL answers accounts and statement as the commands do, and refuses an unknown option by name")
    func repl() throws {
        let sandbox = try HostSandbox.withTwoPostings()
        let script = "accounts --json\nstatement 1 --to 28.05.2026 --json\nstatement 1 --since 1\nstatement\nquit\n"
        let (status, out, err) = try sandbox.repl(script, environment: ["TZ": "UTC"])
        #expect(status == 0)
        let accounts = try sandbox.host(["accounts", "--json"]).stdout
        let statement = try sandbox.host(["statement", "1", "--to", "28.05.2026", "--json"], environment: ["TZ": "UTC"]).stdout
        #expect(out == accounts + statement)
        #expect(err == """
            error: statement has no option --since (it takes --from, --to, --json)
            error: statement needs one account: statement ACCOUNT [--from DATE] [--to DATE] (ACCOUNT: its number or list number in accounts)

            """)
    }
}
