import Crypto
import Foundation
import RBSMoney

/// The bank's customers who use `rbs-host serve`, their accounts in the embedded core, and what the host keeps to
/// sign for them. Everything is in `rbs.sqlite` (tables of ``CustomerSchema``); adding a customer writes the
/// customer, the accounts and the code state in one transaction.
public struct Customers: Sendable {
    let database: LedgerDatabase
    let clock: @Sendable () -> Date

    /// An account a new customer opens: currency, opening balance, title.
    public struct Opening: Sendable {
        public var currency: String
        public var balance: Decimal
        public var title: String

        public init(currency: String, balance: Decimal, title: String) {
            self.currency = currency
            self.balance = balance
            self.title = title
        }
    }

    /// What a new customer gets unless told otherwise: two RUB accounts and a USD one.
    public static let standardOpenings: [Opening] = [
        Opening(currency: "RUB", balance: 150_000, title: "Текущий счёт"),
        Opening(currency: "RUB", balance: 500_000, title: "Накопительный счёт"),
        Opening(currency: "USD", balance: 2_500, title: "Валютный счёт"),
    ]

    /// Whether `name` can be a customer's name (it appears in URLs, logs and the otpauth URI).
    public static func isValidName(_ name: String) -> Bool {
        (1...64).contains(name.count) && name.unicodeScalars.allSatisfy {
            ($0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._-".unicodeScalars.contains($0)))
        }
    }

    /// Adds a customer with a new signing key, a new TOTP secret and accounts in the core.
    /// - Parameter passwordRecord: the password KDF's record of the customer's login secret.
    /// - Returns: the customer and the enrolment to show once (the otpauth URI for the authenticator app).
    public func add(name: String, passwordRecord: String,
                    openings: [Opening] = Customers.standardOpenings) throws(CustomerError) -> (Customer, Enrolment) {
        guard Self.isValidName(name) else { throw .invalidName(name) }
        let now = Timestamp.milliseconds(clock())
        let result: (Int64, Enrolment)?
        do {
            result = try database.write { db -> (Int64, Enrolment)? in
                if try Self.isNameTaken(name, in: db) { return nil }
                let (id, enrolment) = try Self.insertLogin(name: name, passwordRecord: passwordRecord, memberOf: nil, now: now, in: db)
                var position = try db.value(Int.self, "SELECT COALESCE(MAX(position), 0) FROM accounts") ?? 0
                for (index, opening) in openings.enumerated() {
                    position += 1
                    let number = try Self.newAccountNumber(customer: id, index: index, currency: opening.currency, in: db)
                    let scale = Currency(code: opening.currency)?.minorUnits ?? 2
                    // Money is never rounded: an opening balance with more decimals than the currency is refused.
                    guard let balance = DecimalText.format(opening.balance, scale: scale) else {
                        throw LedgerError.corruptDatabase(
                            path: "", detail: "opening balance \(opening.balance) has more decimals than \(opening.currency) has")
                    }
                    try db.execute(
                        "INSERT INTO accounts (number, currency, balance, opening, owner, title, blocked, position) VALUES (?, ?, ?, ?, ?, ?, 0, ?)",
                        number, opening.currency, balance, balance, name, opening.title, position)
                    try db.execute("INSERT INTO customer_accounts (number, customer_id) VALUES (?, ?)", number, id)
                }
                return (id, enrolment)
            }
        } catch {
            throw .storage(error)
        }
        guard let result else { throw .exists(name) }
        let (id, enrolment) = result
        return (Customer(id: id, name: name, keyId: enrolment.keyId, createdAtMilliseconds: now), enrolment)
    }

    /// Writes a new login (a customer's first user, or with `memberOf` another user of that customer): a new
    /// signing key, a new TOTP secret and its own code state. Inside the caller's transaction.
    static func insertLogin(name: String, passwordRecord: String, memberOf: Int64?, now: Int64,
                            in db: any SQLTransaction) throws -> (id: Int64, enrolment: Enrolment) {
        let key = Curve25519.Signing.PrivateKey()
        var generator = SystemRandomNumberGenerator()
        let secret = Data((0..<20).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let keyId = SigningIdentity.keyId(of: key.publicKey)
        // The next id above every id ever given (schema step v28-customer-ids-never-reused), and above the highest
        // row's, which a host without the step may have added.
        let greatest = db.dialect == .postgres ? "GREATEST" : "max"
        guard let id = try db.value(
            Int64.self,
            "UPDATE customer_ids SET last = \(greatest)(last, (SELECT coalesce(max(id), 0) FROM customers)) + 1 RETURNING last") else {
            throw LedgerError.database(path: "", detail: "adding \(name): the ledger's customer_ids row is missing")
        }
        try db.execute(
            "INSERT INTO customers (id, name, password, totp_secret, signing_key, key_id, created_ms, member_of) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            id, name, passwordRecord, secret, key.rawRepresentation, keyId, now, memberOf)
        try db.execute("INSERT INTO customer_code_state (customer_id, last_step, failures, locked_until_ms) VALUES (?, NULL, 0, NULL)", id)
        return (id, Enrolment(name: name, keyId: keyId, publicKey: key.publicKey.rawRepresentation, totpSecret: secret))
    }

    /// Every customer, by name.
    public func list() throws(CustomerError) -> [Customer] {
        do {
            return try database.read { db in
                try db.rows("SELECT id, name, key_id, created_ms, member_of FROM customers ORDER BY name").map(Self.customer)
            }
        } catch {
            throw .storage(error)
        }
    }

    /// The customer named `name`, or nil.
    public func customer(named name: String) throws(CustomerError) -> Customer? {
        try credentials(named: name)?.customer
    }

    /// What the host needs to check `name`'s login and to sign for them, or nil for an unknown name. A name is found
    /// in any case (`Alice` is alice: no two names differ only in case, and a phone's keyboard capitalises the first
    /// letter) — but only when one name matches so: a ledger from before that rule, holding `ACME` beside `acme`,
    /// answers the exact name alone.
    public func credentials(named name: String) throws(CustomerError) -> CustomerCredentials? {
        let row: SQLRow?
        do {
            row = try database.read { db in
                if let exact = try db.row("SELECT * FROM customers WHERE name = ?", name) { return exact }
                let folded = try db.rows("SELECT * FROM customers WHERE lower(name) = lower(?) LIMIT 2", name)
                return folded.count == 1 ? folded[0] : nil
            }
        } catch {
            throw .storage(error)
        }
        guard let row else { return nil }
        do {
            let customer = try Self.customer(row)
            return CustomerCredentials(customer: customer, passwordRecord: try row.decode(String.self, forColumn: "password"),
                                       totpSecret: try row.decode(Data.self, forColumn: "totp_secret"),
                                       signingKey: try row.decode(Data.self, forColumn: "signing_key"),
                                       passkey: try passkey(of: customer))
        } catch let error as CustomerError {
            throw error
        } catch {
            throw .storage(.corruptDatabase(path: database.place, detail: "customer \(name) cannot be read: \(error)"))
        }
    }

    /// Removes `name`'s login, code state, passkeys and signing key. Their accounts stay in the core, blocked, and the
    /// journal keeps every entry they signed (it is append-only and still verifies: the public key is registered).
    /// Removing a customer's first user removes the customer: their other users too. Removing another user
    /// removes that login alone; the accounts stay open.
    /// Returns the names of the customer's users removed with it (none for a user removed alone).
    @discardableResult
    public func remove(name: String) throws(CustomerError) -> [String] {
        enum Removal { case removed([String]), unknown, pending([Int64]) }
        let removal: Removal
        do {
            removal = try database.write { db in
                guard let row = try db.row("SELECT id, member_of FROM customers WHERE name = ?", name) else { return .unknown }
                let id: Int64 = try row["id"]
                let memberOf: Int64? = try row["member_of"]
                var logins = [id]
                var users: [String] = []
                if memberOf == nil {
                    // A payment awaiting its second signature is approved or declined by one of the customer's users:
                    // once they are gone no one could, and it would await for ever.
                    let pending = try db.rows(Self.awaitingOfHolder("j.seq"), arguments: Self.awaitingArguments(id))
                        .map { row -> Int64 in try row["seq"] }
                    if !pending.isEmpty { return .pending(pending) }
                    try db.execute("UPDATE accounts SET blocked = 1 WHERE number IN (SELECT number FROM customer_accounts WHERE customer_id = ?)",
                                   id)
                    for member in try db.rows("SELECT id, name AS login FROM customers WHERE member_of = ? ORDER BY id", id) {
                        logins.append(try member["id"])
                        users.append(try member["login"])
                    }
                    try db.execute("DELETE FROM customer_policies WHERE customer_id = ?", id)
                }
                for login in logins {
                    try db.execute("DELETE FROM customer_code_state WHERE customer_id = ?", login)
                    try db.execute("DELETE FROM customer_passkeys WHERE customer_id = ?", login)
                    try db.execute("DELETE FROM customers WHERE id = ?", login)
                }
                return .removed(users)
            }
        } catch {
            throw .storage(error)
        }
        switch removal {
        case .removed(let users): return users
        case .unknown: throw .unknown(name)
        case .pending(let entries): throw .awaitingSecondSignatures(name, entries: entries)
        }
    }

    /// The customer's accounts in the core, in the order they were opened.
    public func accounts(of customer: Customer) throws(CustomerError) -> [Account] {
        do {
            let rows = try database.read { db in
                try db.rows("""
                    SELECT a.* FROM accounts a JOIN customer_accounts c ON c.number = a.number
                    WHERE c.customer_id = ? ORDER BY a.position
                    """, customer.holderId)
            }
            var accounts: [Account] = []
            for row in rows { accounts.append(try EmbeddedBank.account(from: row, path: database.place)) }
            return accounts
        } catch {
            throw .storage(error)
        }
    }

    /// The journal entries any user of the customer signed (with the key the host keeps or with a passkey), first
    /// or second signatures, oldest first.
    public func journal(of customer: Customer) throws(CustomerError) -> [JournalEntry] {
        do {
            let rows = try database.read { db in
                try db.rows("SELECT * FROM journal WHERE key_id IN (\(Self.keysOfHolder)) ORDER BY seq", customer.holderId, customer.holderId)
            }
            var entries: [JournalEntry] = []
            for row in rows { entries.append(try JournalEntry(row: row)) }
            return entries
        } catch {
            throw .storage(error)
        }
    }

    /// The customer's journal entries that `filter` takes (their history searched: payee, purpose or amount,
    /// an account, a period, an outcome), oldest first.
    public func journal(of customer: Customer, matching filter: JournalFilter) throws(CustomerError) -> [JournalEntry] {
        let decided: Set<Int64>
        do {
            decided = filter.asksAwaiting ? try Journal(database: database).decidedEntries() : []
        } catch {
            throw .storage(error)
        }
        return try journal(of: customer).filter {
            filter.matches($0, document: try? CanonicalEncoding.decode($0.document), decided: decided)
        }
    }

    /// The customer's newest passkey, or nil when they registered none.
    public func passkey(of customer: Customer) throws(CustomerError) -> Passkey? {
        let row: SQLRow?
        do {
            row = try database.read { db in
                try db.row("SELECT * FROM customer_passkeys WHERE customer_id = ? ORDER BY created_ms DESC, rowid DESC LIMIT 1",
                                 customer.id)
            }
        } catch {
            throw .storage(error)
        }
        guard let row else { return nil }
        do {
            let key = try PasskeyKey(suite: try row.decode(String.self, forColumn: "suite"), raw: try row.decode(Data.self, forColumn: "public_key"))
            return Passkey(credentialId: try row.decode(Data.self, forColumn: "credential_id"), key: key,
                           signCount: UInt32(clamping: try row.decode(Int64.self, forColumn: "sign_count")),
                           createdAtMilliseconds: try row.decode(Int64.self, forColumn: "created_ms"))
        } catch {
            throw .storage(.corruptDatabase(path: database.place, detail: "a passkey of customer \(customer.name) cannot be read: \(error)"))
        }
    }

    /// Registers `passkey` for `customer` (checked by ``Passkey/register(attestationObject:clientDataJSON:challenge:relyingParty:now:)``):
    /// from now on it signs their documents. A credential id registered before is refused.
    ///
    /// Enrolling an authenticator through a remote channel is an action that may imply a risk of fraud (PSD2 art.
    /// 97(1)(c)): it takes the customer's current strong authentication, their one-time `code`, checked (its attempt
    /// counted towards the lock) in the same transaction that stores the passkey — whatever front end asks.
    public func register(_ passkey: Passkey, for credentials: CustomerCredentials, code: String) throws(CustomerError) {
        let added = try steppedUp(.registerPasskey, credentials, code: code) { db in
            .success(try Self.insert(passkey, for: credentials.customer, in: db))
        }
        guard added else { throw .passkeyInUse }
    }

    /// Checks `code` of `credentials` (the step-up of `action`) and, when it is accepted, makes the change `body`
    /// in the same transaction. A refused code is committed all the same (its attempt counts towards the lock), and
    /// nothing of the change is made; a change `body` refuses (`.failure`) makes nothing either (the code is spent).
    func steppedUp<T>(_ action: StepUpAction, _ credentials: CustomerCredentials, code: String,
                      _ body: (any SQLTransaction) throws -> Result<T, CustomerError>) throws(CustomerError) -> T {
        let verifier = codeVerifier(for: credentials)
        let answer: Result<T, CustomerError>
        do {
            answer = try database.write { db -> Result<T, CustomerError> in
                if case .failure(let error) = try verifier.check(code, subject: nil, expectedSubject: nil, in: db) {
                    return .failure(.stepUp(action, error))  // committed: the attempt counts
                }
                return try body(db)
            }
        } catch {
            throw .storage(error)
        }
        return try answer.get()
    }

    /// Inserts the passkey row; false when its credential id is registered already.
    private static func insert(_ passkey: Passkey, for customer: Customer, in db: any SQLTransaction) throws -> Bool {
        if try db.value(Bool.self, "SELECT 1 FROM customer_passkeys WHERE credential_id = ?", passkey.credentialId) == true {
            return false
        }
        try db.execute("""
            INSERT INTO customer_passkeys (credential_id, customer_id, suite, public_key, key_id, sign_count, created_ms)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """, passkey.credentialId, customer.id, passkey.key.suite, passkey.key.raw, passkey.key.keyId,
                            Int64(passkey.signCount), passkey.createdAtMilliseconds)
        return true
    }

    /// The one-time code verifier of this customer (their secret, their own attempt count and lock).
    func codeVerifier(for credentials: CustomerCredentials) -> CodeVerifier {
        CodeVerifier(database: database, authenticator: .totp(secret: credentials.totpSecret), clock: clock, state: .customer(credentials.customer.id))
    }

    static func customer(_ row: SQLRow) throws -> Customer {
        Customer(id: try row.decode(Int64.self, forColumn: "id"), name: try row.decode(String.self, forColumn: "name"),
                 keyId: try row.decode(String.self, forColumn: "key_id"),
                 createdAtMilliseconds: try row.decode(Int64.self, forColumn: "created_ms"),
                 memberOf: try row.decode(Int64?.self, forColumn: "member_of"))
    }

    /// A 20-digit number at the demo bank, with a valid control key, that no account has yet:
    /// balance account 40817, the currency's numeric code, the key, branch 3801, then seven digits.
    private static func newAccountNumber(customer: Int64, index: Int, currency: String, in db: any SQLTransaction) throws -> String {
        let numeric = ["RUB": "810", "USD": "840", "EUR": "978", "CNY": "156"][currency] ?? "810"
        var serial = customer * 10 + Int64(index)
        while true {
            let personal = String(serial)
            let padded = String(repeating: "0", count: max(0, 7 - personal.count)) + personal
            let raw = "40817" + numeric + "0" + "3801" + padded.suffix(7)
            guard let number = AccountKey.withKey(account: raw, bic: DemoBank.bic) else {
                throw LedgerError.corruptDatabase(path: "", detail: "cannot make an account number from \(raw)")
            }
            if try db.value(Bool.self, "SELECT 1 FROM accounts WHERE number = ?", number) == nil { return number }
            serial += 1_000_000
        }
    }
}

extension Customers {
    /// The one-time code `name`'s authenticator app shows at `date` (for development and demos, as `keys code`).
    public func code(for name: String, at date: Date) throws(CustomerError) -> String {
        guard let credentials = try credentials(named: name) else { throw .unknown(name) }
        return TOTP.code(secret: credentials.totpSecret, at: date)
    }
}
