import Foundation
import Testing
@testable import RBSLedger

@Suite("Statements")
struct StatementTests {
    static let current = "40817810438000000001"
    static let savings = "40817810738000000002"
    static let external = "40702810900000012345"

    private static func decimal(_ text: String) -> Decimal { Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))! }

    /// Three postings a day apart: out 1 234.56 (external), out 1 000.25 to savings, in 0.01 from savings.
    private func posted() throws -> (Fixture, [Date]) {
        let f = try Fixture()
        var times: [Date] = []
        for (from, to, amount) in [(Self.current, Self.external, "1234.56"), (Self.current, Self.savings, "1000.25"),
                                   (Self.savings, Self.current, "0.01")] {
            f.clock.advance(86_400)
            times.append(f.clock.now)
            let outcome = try f.ledger.signAndPost(try f.payment(from: from, to: to, amount: amount), code: f.nextCode())
            guard case .posted = outcome else { throw LedgerError.corruptDatabase(path: "", detail: "not posted: \(outcome)") }
        }
        // A rejected one posts nothing and is on no statement.
        _ = try f.ledger.signAndPost(try f.payment(amount: "99999999.00"), code: f.nextCode())
        return (f, times)
    }

    @Test("a statement of the whole history closes at the account's balance and opening plus the lines is the closing")
    func reconcilesWithTheLedger() throws {
        let (f, _) = try posted()
        for number in [Self.current, Self.savings] {
            let statement = try f.ledger.statement(account: number)
            let balance = try #require(try f.balance(number))
            #expect(statement.closing == balance)
            #expect(statement.opening + statement.lines.reduce(0) { $0 + $1.amount } == statement.closing)
            #expect(statement.opening + statement.totalCredit - statement.totalDebit == statement.closing)
            #expect(statement.lines.last?.balanceAfter == balance)
        }
        let current = try f.ledger.statement(account: Self.current)
        #expect(current.opening == 150_000)
        #expect(current.lines.map(\.amount) == [Self.decimal("-1234.56"), Self.decimal("-1000.25"), Self.decimal("0.01")])
        #expect(current.lines.map(\.direction) == [.debit, .debit, .credit])
        #expect(current.lines.map(\.counterpartyAccount) == [Self.external, Self.savings, Self.savings])
        // The payee the document names for a debit; the paying account's holder for a credit.
        #expect(current.lines.map(\.counterpartyName) == ["ООО Ромашка", "ООО Ромашка", DemoBank.customer])
        #expect(current.lines.allSatisfy { $0.purpose == "Оплата по счёту 7" })
        #expect(current.totalDebit == Self.decimal("2234.81"))
        #expect(current.totalCredit == Self.decimal("0.01"))
        #expect(current.closing == Self.decimal("147765.20"))
        #expect(try f.ledger.journal.verify() == .ok(4))
    }

    @Test("a period's opening is the balance before its first day, and its lines are only the period's")
    func period() throws {
        let (f, times) = try posted()
        // From the second posting on.
        let middle = try f.ledger.statement(account: Self.current, period: StatementPeriod(start: times[1], end: times[2]))
        #expect(middle.opening == Self.decimal("148765.44"))
        #expect(middle.lines.map(\.amount) == [Self.decimal("-1000.25")])
        #expect(middle.closing == Self.decimal("147765.19"))
        #expect(middle.lines.first?.balanceAfter == middle.closing)
        // After the last posting: nothing moved, opening = closing = balance.
        let later = try f.ledger.statement(account: Self.current, period: StatementPeriod(start: f.clock.now.addingTimeInterval(60)))
        #expect(later.lines.isEmpty)
        let balance = try f.balance(Self.current)
        #expect(later.opening == later.closing && later.closing == balance)
        // Consecutive periods chain: one's closing is the next one's opening.
        let first = try f.ledger.statement(account: Self.current, period: StatementPeriod(end: times[1]))
        let rest = try f.ledger.statement(account: Self.current, period: StatementPeriod(start: times[1]))
        #expect(first.closing == rest.opening)
        #expect(first.opening == 150_000 && rest.closing == balance)
    }

    @Test("an unknown account and a period that ends before it starts are refused by name")
    func refusals() throws {
        let f = try Fixture()
        #expect(throws: StatementError.unknownAccount("40817810000000000000")) {
            try f.ledger.statement(account: "40817810000000000000")
        }
        let now = f.clock.now
        #expect {
            try f.ledger.statement(account: Self.current, period: StatementPeriod(start: now, end: now.addingTimeInterval(-86_400)))
        } throws: { error in
            guard case StatementError.emptyPeriod = error else { return false }
            return (error as? StatementError)?.description.hasPrefix("the period is empty: it ends (") == true
        }
    }

    @Test("accounts lists every account in picker order with blocked and closed states")
    func overview() throws {
        let f = try Fixture()
        let overview = try f.ledger.accountOverview(of: try f.ledger.hostParty())
        #expect(overview.map(\.position) == [1, 2, 3, 4])
        #expect(overview.map(\.account.number) == [Self.current, Self.savings, "40817810038000000003", "40817840638000000004"])
        #expect(overview.map(\.account.blocked) == [false, false, true, false])
        #expect(overview.allSatisfy { !$0.closed })
        // A removed customer's accounts are closed (and blocked); a customer sees only their own, the host's signer none of them.
        let (ann, _) = try f.ledger.customers.add(name: "ann", passwordRecord: "x")
        let (bob, _) = try f.ledger.customers.add(name: "bob", passwordRecord: "x")
        let annAccounts = try f.ledger.accountOverview(customer: ann)
        #expect(annAccounts.map(\.position) == [1, 2, 3])
        try f.ledger.customers.remove(name: "ann")
        #expect(try f.ledger.accountOverview(of: try f.ledger.hostParty()).map(\.account.number) == overview.map(\.account.number))
        let after = try f.ledger.accountOverview(of: .customer(ann.holderId))
        #expect(after.filter(\.closed).map(\.account.number) == annAccounts.map(\.account.number))
        #expect(after.filter(\.closed).allSatisfy { $0.account.blocked })
        #expect(throws: StatementError.notYours(account: annAccounts[0].account.number, customer: "bob")) {
            try f.ledger.statement(account: annAccounts[0].account.number, customer: bob)
        }
    }
}
