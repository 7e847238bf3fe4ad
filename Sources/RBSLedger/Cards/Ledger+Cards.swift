import Foundation
import RBSMoney

extension Ledger {
    /// Issues a card to the customer named `customerName` on their account `account`: the bank's side (`rbs-host
    /// customers add-card`). Only the masked number, the last four digits and the scheme are kept; the card starts
    /// active.
    public func issueCard(to customerName: String, account: String, number: String) throws(CardError) -> Card {
        let card: CardNumber
        do {
            card = try CardNumber(number)
        } catch {
            throw .invalidNumber(error.description)
        }
        let now = Timestamp.milliseconds(clock())
        let issued: Result<Card, CardError>
        do {
            issued = try database.write { db -> Result<Card, CardError> in
                guard let holder = try db.value(Int64.self, "SELECT COALESCE(member_of, id) FROM customers WHERE name = ?", customerName) else {
                    return .failure(.unknownCustomer(customerName))
                }
                guard try db.value(Int64.self, "SELECT customer_id FROM customer_accounts WHERE number = ?", account) == holder else {
                    return .failure(.notCustomersAccount(account: account, customer: customerName))
                }
                // The core finds a holder's card by its masked number: two of one holder's must differ in it.
                if try db.exists("SELECT 1 FROM cards WHERE customer_id = ? AND masked = ?", holder, card.masked) {
                    return .failure(.sameMaskedNumber(masked: card.masked, customer: customerName))
                }
                guard let id = try db.value(
                    Int64.self,
                    """
                    INSERT INTO cards (customer_id, account, masked, last_four, scheme, issued_ms, blocked, block_reason, changed_ms, changed_seq)
                    VALUES (?, ?, ?, ?, ?, ?, ?, NULL, NULL, NULL) RETURNING id
                    """,
                    holder, account, card.masked, card.lastFour, card.scheme.rawValue, now, false) else {
                    throw LedgerError.database(path: database.place, detail: "issuing a card gave no id")
                }
                return .success(Card(id: id, holderId: holder, account: account, masked: card.masked, lastFour: card.lastFour,
                                     scheme: card.scheme.rawValue, issuedAtMilliseconds: now, blocked: false, blockReason: nil,
                                     changedAtMilliseconds: nil, changedBySequence: nil))
            }
        } catch {
            throw .storage(error)
        }
        return try issued.get()
    }

    /// The cards `party` holds, oldest first: a customer's cards; for the host's own signer the cards on accounts of
    /// no customer. What the cards service offers and the only cards whose state `party`'s key can change.
    public func cards(of party: Party) throws(CardError) -> [Card] {
        guard case .customer(let holder) = party else { return try readCards("SELECT * FROM cards WHERE customer_id IS NULL ORDER BY id") }
        return try readCards("SELECT * FROM cards WHERE customer_id = ? ORDER BY id", holder)
    }

    /// The cards of the customer named `customerName` (the bank's view: `customers cards`).
    public func cards(ofCustomer customerName: String) throws(CardError) -> [Card] {
        let holder: Int64?
        do {
            holder = try database.read { db in
                try db.value(Int64.self, "SELECT COALESCE(member_of, id) FROM customers WHERE name = ?", customerName)
            }
        } catch {
            throw .storage(error)
        }
        guard let holder else { throw .unknownCustomer(customerName) }
        return try cards(of: .customer(holder))
    }

    private func readCards(_ sql: String, _ arguments: any SQLArgument...) throws(CardError) -> [Card] {
        let rows: [SQLRow]
        do {
            rows = try database.read { db in try db.rows(sql, arguments: arguments.map(\.sqlValue)) }
        } catch {
            throw .storage(error)
        }
        do {
            return try rows.map(Card.from)
        } catch {
            throw .storage(.corruptDatabase(path: database.place, detail: "a card row cannot be read: \(error)"))
        }
    }
}
