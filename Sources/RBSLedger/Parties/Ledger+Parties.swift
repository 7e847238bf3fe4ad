import Foundation

extension Ledger {
    /// The party the host's own signer is: its key id from the data folder (nil before `keys init`).
    public func hostParty() throws(LedgerError) -> Party {
        do {
            return .host(keyId: try keys.load().keyId)
        } catch KeyStoreError.notInitialized {
            return .host(keyId: nil)
        } catch {
            throw .keys(error)
        }
    }

    /// The accounts `party` may debit and sees, in the order every account picker numbers them: a customer's own
    /// accounts; for the host's signer the accounts of no customer and those mandated to its key.
    public func accounts(of party: Party) throws(LedgerError) -> [Account] {
        let rows = try database.read { db in try db.rows(Self.accountsQuery(party), arguments: Self.arguments(party)) }
        var accounts: [Account] = []
        for row in rows { accounts.append(try EmbeddedBank.account(from: row, path: database.place)) }
        return accounts
    }

    /// The SQL selecting `party`'s accounts (columns of `accounts`), ordered by position.
    static func accountsQuery(_ party: Party) -> String {
        switch party {
        case .customer:
            "SELECT a.* FROM accounts a JOIN customer_accounts c ON c.number = a.number WHERE c.customer_id = ? ORDER BY a.position"
        case .host(nil):
            "SELECT a.* FROM accounts a WHERE a.number NOT IN (SELECT number FROM customer_accounts) ORDER BY a.position"
        case .host:
            """
            SELECT a.* FROM accounts a WHERE a.number NOT IN (SELECT number FROM customer_accounts)
                OR a.number IN (SELECT number FROM mandates WHERE key_id = ? AND revoked_ms IS NULL)
            ORDER BY a.position
            """
        }
    }

    static func arguments(_ party: Party) -> [SQLValue] {
        switch party {
        case .customer(let holder): [.integer(holder)]
        case .host(nil): []
        case .host(let keyId?): [.text(keyId)]
        }
    }

    /// Lets the host's signer (`keyId`, named `keyName`) debit account `number` of the customer whose `credentials`
    /// these are, until revoked: the customer consents with their current one-time `code` (checked, its attempt
    /// counted and the mandate written in one transaction). The account must be the customer's — refused before the
    /// code is looked at. Granting a live mandate again changes nothing but still takes a right code.
    public func grantMandate(account number: String, of credentials: CustomerCredentials, code: String,
                             to keyId: String, keyName: String) throws(MandateError) {
        let customer = credentials.customer
        let now = Timestamp.milliseconds(clock())
        let verifier = customers.codeVerifier(for: credentials)
        enum Answer { case notTheirs, wrongCode(OneTimeCodeError), granted }
        let answer: Answer
        do {
            answer = try database.write { db -> Answer in
                guard try db.value(Int64.self, "SELECT customer_id FROM customer_accounts WHERE number = ?", number) == customer.holderId else {
                    return .notTheirs
                }
                if case .failure(let error) = try verifier.check(code, subject: nil, expectedSubject: nil, in: db) {
                    return .wrongCode(error)
                }
                if let row = try db.row("SELECT revoked_ms FROM mandates WHERE number = ? AND key_id = ?", number, keyId) {
                    let revoked: Int64? = try row["revoked_ms"]
                    if revoked == nil { return .granted }
                    try db.execute("UPDATE mandates SET revoked_ms = NULL, granted_ms = ?, key_name = ? WHERE number = ? AND key_id = ?",
                                   now, keyName, number, keyId)
                } else {
                    try db.execute("INSERT INTO mandates (number, key_id, key_name, granted_ms, revoked_ms) VALUES (?, ?, ?, ?, NULL)",
                                   number, keyId, keyName, now)
                }
                return .granted
            }
        } catch {
            throw .storage(error)
        }
        switch answer {
        case .notTheirs: throw .notCustomersAccount(account: number, customer: customer.name)
        case .wrongCode(let error): throw .code(error)
        case .granted: return
        }
    }

    /// Ends the mandate of `keyId` on `number`; refused when there is no live one.
    public func revokeMandate(account number: String, from keyId: String) throws(MandateError) {
        let now = Timestamp.milliseconds(clock())
        let revoked: Bool
        do {
            revoked = try database.write { db -> Bool in
                guard try db.value(Int64.self, "SELECT COUNT(*) FROM mandates WHERE number = ? AND key_id = ? AND revoked_ms IS NULL",
                                   number, keyId) ?? 0 > 0 else { return false }
                try db.execute("UPDATE mandates SET revoked_ms = ? WHERE number = ? AND key_id = ?", now, number, keyId)
                return true
            }
        } catch {
            throw .storage(error)
        }
        guard revoked else { throw .noMandate(account: number) }
    }

    /// The mandates on `customer`'s accounts, live and revoked, oldest first.
    public func mandates(of customer: Customer) throws(MandateError) -> [Mandate] {
        let rows: [SQLRow]
        do {
            rows = try database.read { db in
                try db.rows("""
                    SELECT m.* FROM mandates m JOIN customer_accounts c ON c.number = m.number
                    WHERE c.customer_id = ? ORDER BY m.granted_ms, m.number
                    """, customer.holderId)
            }
        } catch {
            throw .storage(error)
        }
        do {
            return try rows.map { row throws(SQLRowError) in
                Mandate(number: try row["number"], keyId: try row["key_id"], keyName: try row["key_name"],
                        grantedAtMilliseconds: try row["granted_ms"], revokedAtMilliseconds: try row["revoked_ms"])
            }
        } catch {
            throw .storage(.corruptDatabase(path: database.place, detail: "a mandate row cannot be read: \(error)"))
        }
    }
}

/// Why a mandate could not be granted, revoked or read.
public enum MandateError: Error, Sendable, CustomStringConvertible {
    case notCustomersAccount(account: String, customer: String)
    case noMandate(account: String)
    /// The customer's one-time code was not accepted (wrong, used, or signing locked): nothing was granted.
    case code(OneTimeCodeError)
    case storage(LedgerError)

    public var description: String {
        switch self {
        case .notCustomersAccount(let account, let customer):
            "account \(account) is not one of \(customer)'s accounts (see `rbs-host customers list`)"
        case .noMandate(let account): "this host's signer has no mandate on account \(account)"
        case .code(let error): "the mandate was not granted: \(error.description)"
        case .storage(let error): error.description
        }
    }
}
