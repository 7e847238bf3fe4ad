import Crypto
import Foundation
import GRDB

/// The embedded core bank: the customer's accounts and the postings between them, in `rbs.sqlite`.
///
/// ``submit(signed:publicKey:)`` checks the signature, then in ONE write transaction journals the document
/// with its outcome and applies the posting, so a process killed at any moment leaves either all of it or
/// none of it. Submitting the same signed document again returns the first outcome and posts nothing.
public struct Core: Sendable {
    let database: LedgerDatabase
    let clock: @Sendable () -> Date

    /// The customer's accounts in their seeded order.
    public func accounts() throws(LedgerError) -> [Account] {
        let rows = try database.read { db in try Row.fetchAll(db, sql: "SELECT * FROM accounts ORDER BY position") }
        var accounts: [Account] = []
        for row in rows { accounts.append(try Self.account(from: row, path: database.path)) }
        return accounts
    }

    /// The account with this number, or `nil`.
    public func account(number: String) throws(LedgerError) -> Account? {
        let row = try database.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM accounts WHERE number = ?", arguments: [number])
        }
        guard let row else { return nil }
        return try Self.account(from: row, path: database.path)
    }

    /// Verifies, journals and posts one signed document in its own transaction.
    public func submit(signed: SignedDocument, publicKey: Curve25519.Signing.PublicKey) throws(LedgerError) -> Outcome {
        let outcomes = try submit(batch: [signed], publicKey: publicKey)
        return outcomes[0]
    }

    /// Group commit: verifies every signature first (any bad one refuses the whole batch before anything is
    /// written), then journals and posts all documents in ONE transaction. The outcomes are returned only after
    /// the commit, in the order given.
    public func submit(batch: [SignedDocument], publicKey: Curve25519.Signing.PublicKey) throws(LedgerError) -> [Outcome] {
        try checkSignatures(batch, publicKey: publicKey)
        let raw = publicKey.rawRepresentation
        return try database.write { db in
            try batch.map { signed in try apply(signed, publicKey: raw, in: db) }
        }
    }

    func checkSignatures(_ batch: [SignedDocument], publicKey: Curve25519.Signing.PublicKey) throws(LedgerError) {
        let keyId = SigningIdentity.keyId(of: publicKey)
        for signed in batch {
            guard signed.document.keyId == keyId else {
                throw .wrongSigner(documentKeyId: signed.document.keyId, keyId: keyId)
            }
            guard signed.isValid(publicKey: publicKey) else { throw .badSignature(documentId: signed.id) }
        }
    }

    /// Journals and posts one verified document inside the caller's transaction; returns the stored outcome if
    /// the document was already journaled.
    func apply(_ signed: SignedDocument, publicKey: Data, in db: Database) throws -> Outcome {
        let documentId = signed.id
        if try Int64.fetchOne(db.cachedStatement(sql: "SELECT seq FROM journal WHERE document_id = ?"), arguments: [documentId]) != nil,
           let row = try Row.fetchOne(db, sql: "SELECT * FROM journal WHERE document_id = ?", arguments: [documentId]) {
            return try Self.outcome(of: try JournalEntry(row: row), in: db)
        }
        try register(keyId: signed.document.keyId, publicKey: publicKey, in: db)
        let now = Timestamp.milliseconds(clock())
        let tip = try Journal.tip(db)
        let sequence = tip.sequence + 1
        func entry(_ kind: JournalEntry.Kind, rejection: Rejection? = nil, posting: Posting? = nil, balance: String? = nil) -> JournalEntry {
            let scale = posting.flatMap { Currency.minorUnits(of: $0.currency) } ?? 2
            return JournalEntry(
                sequence: sequence, kind: kind, documentId: documentId, document: signed.canonicalBytes,
                signature: signed.signature, keyId: signed.document.keyId, reasonCode: rejection?.code.rawValue,
                reason: rejection?.message, debit: posting?.debit, credit: posting?.credit,
                amount: posting.map { DecimalText.format($0.amount, scale: scale) }, currency: posting?.currency,
                balanceAfter: balance, recordedAtMilliseconds: now, previousHash: tip.hash)
        }

        switch try plan(signed.document, in: db) {
        case .acknowledge:
            let record = entry(.acknowledged)
            try record.insert(db)
            return .acknowledged(documentId: documentId, sequence: sequence)
        case .reject(let rejection):
            let record = entry(.rejected, rejection: rejection)
            try record.insert(db)
            return .rejected(documentId: documentId, sequence: sequence, reason: rejection)
        case .post(let posting, let debitBalance, let creditBalance):
            let scale = Currency.minorUnits(of: posting.currency) ?? 2
            let newDebit = debitBalance - posting.amount
            try db.cachedStatement(sql: "UPDATE accounts SET balance = ? WHERE number = ?").execute(
                           arguments: [DecimalText.format(newDebit, scale: scale), posting.debit])
            if let creditBalance {
                try db.cachedStatement(sql: "UPDATE accounts SET balance = ? WHERE number = ?").execute(
                               arguments: [DecimalText.format(creditBalance + posting.amount, scale: scale), posting.credit])
            }
            try db.cachedStatement(
                sql: "INSERT INTO postings (document_id, debit, credit, amount, currency, time_ms, journal_seq) VALUES (?, ?, ?, ?, ?, ?, ?)"
            ).execute(arguments: [documentId, posting.debit, posting.credit, DecimalText.format(posting.amount, scale: scale),
                            posting.currency, now, sequence])
            let record = entry(.posted, posting: posting, balance: DecimalText.format(newDebit, scale: scale))
            try record.insert(db)
            return .posted(Receipt(documentId: documentId, posting: posting, debitBalance: newDebit, sequence: sequence))
        }
    }

    private static let accountQuery = "SELECT number, currency, balance, owner, title, blocked FROM accounts WHERE number = ?"

    private enum Plan {
        case acknowledge
        case reject(Rejection)
        /// The posting, the debit account's balance before it, and the credit account's when it is our own.
        case post(Posting, Decimal, Decimal?)
    }

    /// Decides what a document does, reading the accounts it names; writes nothing.
    private func plan(_ document: Document, in db: Database) throws -> Plan {
        guard let amountText = document["amount"] else { return .acknowledge }
        guard let from = document["from"] else { return .reject(.missing("from", "the debit account")) }
        guard let credit = document["account"] else { return .reject(.missing("account", "the payee's account")) }
        guard let currency = document["currency"] else { return .reject(.missing("currency", "the currency of the amount")) }
        guard let amount = DecimalText.parse(amountText), let scale = DecimalText.scale(of: amountText) else {
            return .reject(.notPositive(amountText))
        }
        guard amount > 0 else { return .reject(.notPositive(amountText)) }
        guard let minorUnits = Currency.minorUnits(of: currency) else { return .reject(.unknownCurrency(currency)) }
        guard scale <= minorUnits else { return .reject(.tooManyDecimals(amountText, currency: currency, minorUnits: minorUnits)) }

        guard let debitRow = try Row.fetchOne(db.cachedStatement(sql: Self.accountQuery), arguments: [from]) else {
            return .reject(.unknownDebit(from))
        }
        let debit = try Self.account(from: debitRow, path: database.path)
        guard !debit.blocked else { return .reject(.blocked(from)) }
        guard debit.currency == currency else {
            return .reject(.currencyMismatch(document: currency, account: from, accountCurrency: debit.currency))
        }
        guard credit != from else { return .reject(.sameAccount(from)) }
        var creditBalance: Decimal?
        if let creditRow = try Row.fetchOne(db.cachedStatement(sql: Self.accountQuery), arguments: [credit]) {
            let creditAccount = try Self.account(from: creditRow, path: database.path)
            guard creditAccount.currency == currency else {
                return .reject(.currencyMismatch(document: currency, account: credit, accountCurrency: creditAccount.currency))
            }
            creditBalance = creditAccount.balance
        }
        guard debit.balance >= amount else {
            return .reject(.insufficientFunds(
                account: from, balance: DecimalText.format(debit.balance, scale: minorUnits),
                amount: DecimalText.format(amount, scale: minorUnits), currency: currency))
        }
        let posting = Posting(debit: from, credit: credit, amount: amount, currency: currency, internalTransfer: creditBalance != nil)
        return .post(posting, debit.balance, creditBalance)
    }

    /// Stores the public key under its id the first time it signs; a different key under the same id is refused.
    private func register(keyId: String, publicKey: Data, in db: Database) throws {
        if let stored = try Data.fetchOne(db.cachedStatement(sql: "SELECT public_key FROM keys WHERE key_id = ?"), arguments: [keyId]) {
            guard stored == publicKey else { throw LedgerError.keyIdConflict(keyId: keyId) }
            return
        }
        try db.execute(sql: "INSERT INTO keys (key_id, public_key, first_used_ms) VALUES (?, ?, ?)",
                       arguments: [keyId, publicKey, Timestamp.milliseconds(clock())])
    }

    /// The outcome a journal entry recorded (for a repeated submission).
    static func outcome(of entry: JournalEntry, in db: Database) throws -> Outcome {
        switch entry.kind {
        case .acknowledged:
            return .acknowledged(documentId: entry.documentId, sequence: entry.sequence)
        case .rejected:
            let code = entry.reasonCode.flatMap(Rejection.Code.init(rawValue:))
            guard let code, let message = entry.reason else {
                throw LedgerError.unreadableEntry(sequence: entry.sequence, detail: "a rejection without a reason")
            }
            return .rejected(documentId: entry.documentId, sequence: entry.sequence, reason: Rejection(code: code, message: message))
        case .posted:
            guard let debit = entry.debit, let credit = entry.credit, let currency = entry.currency,
                  let amount = entry.amount.flatMap(DecimalText.parse), let balance = entry.balanceAfter.flatMap(DecimalText.parse)
            else {
                throw LedgerError.unreadableEntry(sequence: entry.sequence, detail: "a posting without its amounts")
            }
            // The credit account was our own exactly when it is one of the accounts.
            let internalTransfer = try Bool.fetchOne(db, sql: "SELECT 1 FROM accounts WHERE number = ?", arguments: [credit]) != nil
            return .posted(Receipt(
                documentId: entry.documentId,
                posting: Posting(debit: debit, credit: credit, amount: amount, currency: currency, internalTransfer: internalTransfer),
                debitBalance: balance, sequence: entry.sequence))
        }
    }

    static func account(from row: Row, path: String) throws(LedgerError) -> Account {
        do {
            let number = try row.decode(String.self, forColumn: "number")
            let balanceText = try row.decode(String.self, forColumn: "balance")
            guard let balance = DecimalText.parse(balanceText) else {
                throw LedgerError.corruptDatabase(path: path, detail: "account \(number) has balance \"\(balanceText)\", not a decimal")
            }
            return Account(
                number: number, currency: try row.decode(String.self, forColumn: "currency"), balance: balance,
                owner: try row.decode(String.self, forColumn: "owner"), title: try row.decode(String.self, forColumn: "title"),
                blocked: try row.decode(Bool.self, forColumn: "blocked"))
        } catch let error as LedgerError {
            throw error
        } catch {
            throw .corruptDatabase(path: path, detail: "an account row cannot be read: \(error)")
        }
    }
}
