import Foundation
import RBSMoney

extension Ledger {
    /// The accounts `customer` sees (as `serve` shows them), in list order.
    public func accountOverview(customer: Customer) throws(StatementError) -> [AccountOverview] {
        try accountOverview(of: .customer(customer.holderId))
    }

    /// `party`'s accounts (``accounts(of:)``: what its pickers offer and its key may debit) with their places in
    /// that list and whether each is closed.
    public func accountOverview(of party: Party) throws(StatementError) -> [AccountOverview] {
        let (rows, closed) = try read { db in
            let rows = try db.rows(Self.accountsQuery(party), arguments: Self.arguments(party))
            let closed = try Set(db.values(String.self, """
                SELECT number FROM customer_accounts WHERE customer_id NOT IN (SELECT id FROM customers)
                """))
            return (rows, closed)
        }
        var overview: [AccountOverview] = []
        for (index, row) in rows.enumerated() {
            let account: Account
            do { account = try EmbeddedBank.account(from: row, path: database.place) } catch { throw .storage(error) }
            overview.append(AccountOverview(position: index + 1, account: account, closed: closed.contains(account.number)))
        }
        return overview
    }

    /// The statement of `account` for `period`: the balance at its start (the opening balance plus every earlier
    /// posting), each posting in it with its counterparty and purpose from the signed document, and the balance
    /// at its end. A statement that runs to now must end at the stored balance, or it is refused as
    /// ``StatementError/doesNotReconcile(account:balance:postings:currency:)``.
    /// - Parameter customer: when given, the account must be theirs (`serve`).
    public func statement(account number: String, period: StatementPeriod = .all,
                          customer: Customer? = nil) throws(StatementError) -> AccountStatement {
        if let start = period.start, let end = period.end, end <= start {
            throw .emptyPeriod(start: Timestamp.format(milliseconds: Timestamp.milliseconds(start)),
                               end: Timestamp.format(milliseconds: Timestamp.milliseconds(end)))
        }
        let (accountRow, owned, postings, holders, incomes) = try read { db in
            let accountRow = try db.row("SELECT * FROM accounts WHERE number = ?", number)
            let owned = try customer.map { customer in
                try db.value(Bool.self, "SELECT 1 FROM customer_accounts WHERE number = ? AND customer_id = ?",
                                  number, customer.id) ?? false
            } ?? true
            let postings = try db.rows("""
                SELECT p.journal_seq, p.document_id, p.debit, p.credit, p.amount, p.currency, p.time_ms, j.document
                FROM postings p JOIN journal j ON j.seq = p.journal_seq
                WHERE p.debit = ? OR p.credit = ? ORDER BY p.journal_seq
                """, number, number)
            var holders: [String: String] = [:]
            for row in try db.rows("SELECT number, owner FROM accounts") { holders[try row["number"]] = try row["owner"] }
            let incomes = Set(try db.rows("SELECT number FROM fee_income").map { row in try row["number"] as String })
            return (accountRow, owned, postings, holders, incomes)
        }
        guard let accountRow else { throw .unknownAccount(number) }
        // A row of the wrong shape (a damaged file) is reported as such, naming the column.
        func column<T: SQLColumn>(_ row: SQLRow, _ name: String) throws(StatementError) -> T {
            do { return try row.decode(T.self, forColumn: name) } catch {
                throw .storage(.corruptDatabase(path: database.place, detail: "account \(number)'s postings cannot be read: \(error.description)"))
            }
        }
        guard owned else { throw .notYours(account: number, customer: customer?.name ?? "") }
        let account: Account
        do { account = try EmbeddedBank.account(from: accountRow, path: database.place) } catch { throw .storage(error) }
        let openingText: String? = try column(accountRow, "opening")
        guard let accountOpening = openingText.flatMap(DecimalText.parse) else {
            throw .storage(.corruptDatabase(path: database.place, detail: "account \(number) has no opening balance"))
        }
        var opening = accountOpening
        var running = accountOpening
        var lines: [StatementLine] = []
        var moved: Decimal = 0  // the sum of the lines so far
        for row in postings {
            let sequence: Int64 = try column(row, "journal_seq")
            let amountText: String = try column(row, "amount")
            guard let amount = DecimalText.parse(amountText) else {
                throw .storage(.unreadableEntry(sequence: sequence, detail: "its posting's amount \"\(amountText)\" is not a decimal"))
            }
            let debit: String = try column(row, "debit"), credit: String = try column(row, "credit")
            let direction: StatementLine.Direction = debit == number ? .debit : .credit
            let signed = direction == .debit ? -amount : amount
            let time: Int64 = try column(row, "time_ms")
            running += signed
            if period.precedes(milliseconds: time) {
                opening += signed
                continue
            }
            guard period.contains(milliseconds: time) else { continue }
            let bytes: Data = try column(row, "document")
            let document: Document
            do { document = try CanonicalEncoding.decode(bytes) } catch {
                throw .storage(.unreadableEntry(sequence: sequence, detail: "its document does not parse: \(error.description)"))
            }
            moved += signed
            var counterparty = direction == .debit ? credit : debit
            // A conversion's leg runs through the bank's position: the person's counterparty is their other account.
            let payment = Payment.of(document)
            if Conversion(document: document) != nil, let payment {
                counterparty = direction == .debit ? payment.creditAccount : payment.debitAccount
            }
            // The fee leg of a payment goes to the bank's income account: its counterparty is the bank, not the payee.
            let isFee = direction == .debit && incomes.contains(credit)
            if isFee { counterparty = credit }
            let name = isFee ? "" : direction == .debit ? (payment?.payee.name ?? holders[counterparty] ?? "") : (holders[counterparty] ?? "")
            var line = StatementLine(
                sequence: sequence, postedAtMilliseconds: time, documentId: try column(row, "document_id"), operation: document.operation,
                direction: direction, counterpartyAccount: counterparty, counterpartyName: name,
                purpose: payment?.purpose ?? "", amount: signed, balanceAfter: opening + moved)
            line.isFee = isFee
            lines.append(line)
        }
        let closing = opening + moved
        if period.end == nil, running != account.balance.amount {
            let scale = account.balance.currency.minorUnits
            throw .doesNotReconcile(account: number, balance: account.balance.plain,
                                    postings: DecimalText.format(running, scale: scale) ?? "\(running)", currency: account.currency)
        }
        return AccountStatement(account: account, period: period, opening: opening, closing: closing, lines: lines)
    }

    private func read<T>(_ body: (any SQLTransaction) throws -> T) throws(StatementError) -> T {
        do { return try database.read(body) } catch { throw .storage(error) }
    }
}
