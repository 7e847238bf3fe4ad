import Crypto
import Foundation
import RBSMoney

extension Customers {
    /// Adds user `name` to the customer of `credentials`: a login of its own (password, signing key, TOTP secret, its
    /// own code state and attempt count) acting on that customer's accounts — the second signer of maker–checker.
    /// A new person who can sign for the accounts: the customer consents with the current one-time `code` of the
    /// user named (a step-up, checked in the transaction that adds the user).
    /// - Returns: the user and the enrolment to show once (the otpauth URI).
    public func addUser(to credentials: CustomerCredentials, name: String, passwordRecord: String,
                        code: String) throws(CustomerError) -> (Customer, Enrolment) {
        guard Self.isValidName(name) else { throw .invalidName(name) }
        // A name already taken is refused before the step-up looks at the code: a refused change spends no code.
        let taken: Bool
        do { taken = try database.read { db in try Self.isNameTaken(name, in: db) } } catch {
            throw .storage(error)
        }
        if taken { throw .exists(name) }
        let now = Timestamp.milliseconds(clock())
        let holder = credentials.customer.holderId
        return try steppedUp(.addUser, credentials, code: code) { db in
            try Self.insertUser(name, passwordRecord: passwordRecord, holder: holder, now: now, in: db)
        }
    }

    /// Adds user `name` to the customer `customerName` without asking the customer (the tests' fixtures).
    func addUser(to customerName: String, name: String, passwordRecord: String) throws(CustomerError) -> (Customer, Enrolment) {
        guard Self.isValidName(name) else { throw .invalidName(name) }
        let now = Timestamp.milliseconds(clock())
        let added: Result<(Customer, Enrolment), CustomerError>
        do {
            added = try database.write { db in
                guard let holder = try db.value(Int64.self, "SELECT COALESCE(member_of, id) FROM customers WHERE name = ?", customerName) else {
                    return .failure(.unknown(customerName))
                }
                return try Self.insertUser(name, passwordRecord: passwordRecord, holder: holder, now: now, in: db)
            }
        } catch {
            throw .storage(error)
        }
        return try added.get()
    }

    private static func insertUser(_ name: String, passwordRecord: String, holder: Int64, now: Int64,
                                   in db: any SQLTransaction) throws -> Result<(Customer, Enrolment), CustomerError> {
        if try isNameTaken(name, in: db) { return .failure(.exists(name)) }
        let login = try insertLogin(name: name, passwordRecord: passwordRecord, memberOf: holder, now: now, in: db)
        return .success((Customer(id: login.id, name: name, keyId: login.enrolment.keyId, createdAtMilliseconds: now, memberOf: holder),
                         login.enrolment))
    }

    /// The users of `customer`'s customer (its first user first, then in the order they were added).
    public func users(of customer: Customer) throws(CustomerError) -> [Customer] {
        do {
            return try database.read { db in
                try db.rows("SELECT id, name, key_id, created_ms, member_of FROM customers WHERE COALESCE(member_of, id) = ? ORDER BY id",
                            customer.holderId).map(Self.customer)
            }
        } catch {
            throw .storage(error)
        }
    }

    /// Changes when the customer of `credentials` needs a second signer: for each currency of `thresholds`, payments
    /// above its amount (nil: no threshold in that currency; with none at all, one user signs alone). Once any
    /// threshold is set, a payment in a currency without one always needs the second signer: no exchange rate is
    /// assumed. A lower threshold or none lets one user sign more alone, so the change takes the current one-time
    /// `code` of the user named (a step-up, checked in the transaction that makes the change).
    public func setSecondSigner(_ thresholds: [String: Decimal?], of credentials: CustomerCredentials,
                                code: String) throws(CustomerError) {
        let rows = try Self.policyRows(thresholds)
        let holder = credentials.customer.holderId
        try steppedUp(.changeSecondSigner, credentials, code: code) { db in .success(try Self.write(rows, holder: holder, in: db)) }
    }

    /// Sets one currency's threshold without asking the customer (the tests' fixtures).
    func setSecondSigner(of customer: Customer, above: Decimal?, currency: String) throws(CustomerError) {
        let rows = try Self.policyRows([currency: above])
        do {
            try database.write { db in try Self.write(rows, holder: customer.holderId, in: db) }
        } catch {
            throw .storage(error)
        }
    }

    /// The thresholds as stored (the amount as decimal text in the currency's scale), each checked first.
    private static func policyRows(_ thresholds: [String: Decimal?]) throws(CustomerError) -> [(currency: String, above: String?)] {
        var rows: [(currency: String, above: String?)] = []
        for (currency, above) in thresholds.sorted(by: { $0.key < $1.key }) {
            guard let code = Currency(code: currency) else { throw .secondSigner(.invalidThreshold("\(currency) is not an ISO 4217 currency")) }
            var text: String?
            if let above {
                guard above >= 0 else { throw .secondSigner(.invalidThreshold("the amount must not be negative")) }
                // Money is never rounded: more decimals than the currency has is refused.
                guard let formatted = DecimalText.format(above, scale: code.minorUnits) else {
                    throw .secondSigner(.invalidThreshold("\(above) has more decimals than \(currency) has (\(code.minorUnits))"))
                }
                text = formatted
            }
            rows.append((currency, text))
        }
        return rows
    }

    private static func write(_ rows: [(currency: String, above: String?)], holder: Int64, in db: any SQLTransaction) throws {
        for row in rows {
            try db.execute("DELETE FROM customer_policies WHERE customer_id = ? AND currency = ?", holder, row.currency)
            if let above = row.above {
                try db.execute("INSERT INTO customer_policies (customer_id, currency, above) VALUES (?, ?, ?)", holder, row.currency, above)
            }
        }
    }

    /// `customer`'s second-signer thresholds: currency → the amount above which a payment needs a second signer.
    public func secondSigner(of customer: Customer) throws(CustomerError) -> [String: Decimal] {
        do {
            let rows = try database.read { db in
                try db.rows("SELECT currency, above FROM customer_policies WHERE customer_id = ?", customer.holderId)
            }
            var thresholds: [String: Decimal] = [:]
            for row in rows {
                guard let above = DecimalText.parse(try row["above"]) else {
                    throw LedgerError.corruptDatabase(path: database.place, detail: "a second-signer threshold is not a decimal")
                }
                thresholds[try row["currency"]] = above
            }
            return thresholds
        } catch let error as LedgerError {
            throw .storage(error)
        } catch {
            throw .storage(.database(path: database.place, detail: "\(error)"))
        }
    }

    // MARK: - Inside the ledger's transactions

    /// SQL selecting the key ids of every user of one customer (the host's keys and the passkeys); binds the
    /// customer's id twice.
    static let keysOfHolder = """
        SELECT key_id FROM customers WHERE COALESCE(member_of, id) = ?
        UNION SELECT p.key_id FROM customer_passkeys p JOIN customers c ON c.id = p.customer_id WHERE COALESCE(c.member_of, c.id) = ?
        """

    /// SQL selecting `columns` of one customer's journal entries that await a second signature no later entry has
    /// given or declined, oldest first; binds the awaiting kind, then the customer's id twice (``awaitingArguments(_:)``).
    static func awaitingOfHolder(_ columns: String) -> String {
        """
        SELECT \(columns) FROM journal j
        WHERE j.kind = ? AND NOT EXISTS (SELECT 1 FROM journal f WHERE f.second_of = j.seq)
          AND j.key_id IN (\(keysOfHolder))
        ORDER BY j.seq
        """
    }

    /// The arguments ``awaitingOfHolder(_:)`` binds for customer `holder`.
    static func awaitingArguments(_ holder: Int64) -> [SQLValue] {
        [.text(JournalEntry.Kind.awaiting.rawValue), .integer(holder), .integer(holder)]
    }

    /// Whether a customer or user is named `name` in any case (names are told apart by more than case: `ACME` beside
    /// `acme` would be two logins a person takes for one).
    static func isNameTaken(_ name: String, in db: any SQLTransaction) throws -> Bool {
        try db.exists("SELECT 1 FROM customers WHERE lower(name) = lower(?)", name)
    }

    /// The user whose key (the host's for them, or a passkey) is `keyId`: their id, name and customer; nil when none is.
    static func user(ofKey keyId: String, in db: any SQLTransaction) throws -> (id: Int64, name: String, holder: Int64)? {
        guard let row = try db.row("""
            SELECT id, name, COALESCE(member_of, id) AS holder FROM customers WHERE key_id = ?
            UNION SELECT c.id, c.name, COALESCE(c.member_of, c.id) AS holder
                FROM customer_passkeys p JOIN customers c ON c.id = p.customer_id WHERE p.key_id = ?
            """, keyId, keyId) else { return nil }
        return (try row["id"], try row["name"], try row["holder"])
    }

    /// Customer `holder`'s second-signer thresholds: `nil` when it has none (no payment needs a second signer). Read
    /// once per customer by a batch, which changes no customer: the same answer for each of its documents as asking
    /// for each.
    static func secondSignerPolicy(holder: Int64, in db: any SQLTransaction) throws -> SecondSignerPolicy? {
        let rows = try db.rows("SELECT currency, above FROM customer_policies WHERE customer_id = ?", holder)
        guard !rows.isEmpty else { return nil }
        var above: [String: String] = [:]
        for row in rows {
            let currency: String = try row["currency"]
            if above[currency] == nil { above[currency] = try row["above"] }
        }
        return SecondSignerPolicy(above: above)
    }
}

/// A customer's second-signer thresholds (`customer_policies`), by currency.
struct SecondSignerPolicy: Sendable {
    /// The threshold of each currency, as stored (decimal text).
    let above: [String: String]

    /// Whether a payment of `amount` in `currency` needs a second signer: above that currency's threshold, or in a
    /// currency with no threshold while others have one, or under a damaged threshold (the safe side).
    func requiresSecondSigner(amount: Decimal, currency: String) -> Bool {
        guard let text = above[currency] else { return true }
        guard let threshold = DecimalText.parse(text) else { return true }
        return amount > threshold
    }
}
