import Crypto
import Foundation
import RBSMoney

/// The append-only, hash-chained record of every signed document and its outcome.
///
/// Entries are only ever inserted, in the same transaction as the posting they record; SQLite triggers refuse
/// UPDATE and DELETE. Each entry's hash covers its content and the previous entry's hash (see ``JournalEntry``),
/// and the public keys that signed are kept by key id in the `keys` table, so ``verify(authenticator:)`` can re-check every
/// signature without the signer's files.
public struct Journal: Sendable {
    let database: LedgerDatabase

    /// All entries in sequence order.
    public func entries() throws(LedgerError) -> [JournalEntry] {
        // With their hashes: every entry stored is chained first (PostgreSQL, schema step v29).
        try database.integrate()
        let rows = try database.read { db in try db.rows("SELECT * FROM journal \(Self.chainOrder(db))") }
        var entries: [JournalEntry] = []
        entries.reserveCapacity(rows.count)
        for row in rows { entries.append(try JournalEntry(row: row)) }
        return entries
    }

    /// The entry that gave (or declined) the second signature the awaiting entry `sequence` waited for, or nil while
    /// it still waits.
    public func decision(of sequence: Int64) throws(LedgerError) -> Int64? {
        try database.read { db in try db.value(Int64.self, "SELECT seq FROM journal WHERE second_of = ?", sequence) }
    }

    /// All entries as a JSON array (see ``JournalEntry``'s `encode(to:)` for the form), for `rbs-host journal --json`.
    public func json() throws(LedgerError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(try entries())
        } catch let error as LedgerError {
            throw error
        } catch {
            throw .database(path: database.place, detail: "journal JSON: \(error)")
        }
    }

    /// Recomputes every hash and chain link, re-checks every signature with the stored public key, and names the
    /// first bad entry: a missing sequence number, a broken link, an altered document, a bad signature or a hash
    /// that does not match the content.
    ///
    /// Entries removed from the end cannot be told from a shorter journal by the journal alone; compare the
    /// count or the last hash with one kept elsewhere for that.
    ///
    /// Each entry's recorded ``Authorization`` is checked too: a known method; for OCRA, that the recorded challenge
    /// is the one the stored document gives under the recorded suite, and — when `authenticator` is the enrolled
    /// OCRA secret that answered (same secret id) — that the recorded response answers it; for a passkey, that the
    /// customer's own signature holds: the recorded assertion is for this document's hash, and its signature verifies
    /// with the passkey's public key registered under the entry's key id.
    public func verify(authenticator: Authenticator? = nil) throws(LedgerError) -> VerifyResult {
        // On PostgreSQL (schema step v29) every entry stored is chained first; entries stored after that and read
        // below without their hashes yet are chained here as integration will chain them, and checked as any.
        try database.integrate()
        let (rows, positioned, keyRows, basketRows) = try database.read { db in
            (try db.rows("SELECT * FROM journal \(Self.chainOrder(db))"), db.journalPositions,
             try db.rows("SELECT key_id, public_key FROM keys"),
             try db.rows("SELECT basket_id, list, signature, key_id FROM baskets"))
        }
        var baskets = BasketCheck(rows: basketRows)
        var keys: [String: Data] = [:]
        for row in keyRows {
            if let id = try? row.decode(String.self, forColumn: "key_id"), let key = try? row.decode(Data.self, forColumn: "public_key") {
                keys[id] = key
            }
        }
        var expected: Int64 = 1
        var previousHash = JournalEntry.genesisHash
        // Entries awaiting a second signature, and the ones a second signature completed.
        var awaiting: [Int64: JournalEntry] = [:]
        var completed: Set<Int64> = []
        // The documents journaled so far other than by a second signature: each is journaled once (the database's
        // once-only index, schema step v23-journal-unique-index, refuses a second entry; this proves it held).
        var journaled: Set<String> = []
        journaled.reserveCapacity(rows.count)
        // Entries not chained yet (PostgreSQL, v29) are only ever the journal's last: once one is, all after it are.
        var unintegratedFrom: Int64?
        for row in rows {
            var entry: JournalEntry
            do {
                entry = try JournalEntry(row: row)
            } catch {
                return .bad(sequence: expected, reason: "the entry cannot be read: \(error.description)")
            }
            if entry.isUnintegrated {
                if unintegratedFrom == nil { unintegratedFrom = entry.sequence }
                entry = entry.chained(after: previousHash)
            } else if let from = unintegratedFrom {
                return .bad(sequence: entry.sequence, reason: "the entry is chained, but entry \(from) before it is not (an entry's hashes were removed)")
            }
            if positioned {
                // Ids may have gaps (a refused commit's); the chain's positions may not. An entry not integrated yet
                // takes the next position, as integration will give it.
                let position = try? row.decode(Int64?.self, forColumn: "position")
                if let position, position != expected {
                    return .bad(sequence: entry.sequence, reason: position > expected
                        ? "position \(expected) of the chain is missing (entry \(entry.sequence), next, is at \(position))"
                        : "entry \(entry.sequence) is at position \(position), out of order (\(expected) expected)")
                }
            } else if entry.sequence != expected {
                return .bad(sequence: expected, reason: entry.sequence > expected
                    ? "entry \(expected) is missing (the next entry is \(entry.sequence))"
                    : "sequence number \(entry.sequence) is out of order")
            }
            var first: JournalEntry?
            if let secondOf = entry.secondOf {
                guard let found = awaiting[secondOf], found.documentId == entry.documentId, found.document == entry.document else {
                    return .bad(sequence: entry.sequence, reason: "it says it completes entry \(secondOf), which is no entry of the same document awaiting a second signature")
                }
                guard !completed.contains(secondOf) else {
                    return .bad(sequence: entry.sequence, reason: "entry \(secondOf) was already completed by an earlier second signature")
                }
                guard found.keyId != entry.keyId else {
                    return .bad(sequence: entry.sequence, reason: "the second signature is by the key that signed first (\(entry.keyId)): a second signer is another user")
                }
                guard entry.kind != .awaiting else {
                    return .bad(sequence: entry.sequence, reason: "a second signature cannot await another one")
                }
                completed.insert(secondOf)
                first = found
            } else if !journaled.insert(entry.documentId).inserted {
                return .bad(sequence: entry.sequence, reason: "document \(entry.documentId) is journaled twice: a document is journaled once (and once more only by the second signature completing it)")
            }
            if let reason = Self.problem(with: entry, previousHash: previousHash, keys: keys, firstSigner: first?.keyId)
                ?? entry.reasonFactsProblem
                ?? baskets.problem(with: entry, keys: keys)
                ?? Self.authorizationProblem(with: entry, authenticator: authenticator) {
                return .bad(sequence: entry.sequence, reason: reason + baskets.context(of: entry))
            }
            if entry.kind == .awaiting { awaiting[entry.sequence] = entry }
            // The lookup key is not part of the hash: a wrong one would hide the entry from the idempotency check.
            if (try? row.decode(Int64.self, forColumn: "document_key")) != JournalEntry.documentKey(of: entry.documentId, canonical: entry.document) {
                return .bad(sequence: entry.sequence, reason: "the entry's document key does not match its document id (the lookup column was altered)")
            }
            previousHash = entry.hash
            expected += 1
        }
        if let (sequence, reason) = baskets.totalsProblem() { return .bad(sequence: sequence, reason: reason) }
        if let (sequence, reason) = try formsProblem() { return .bad(sequence: sequence, reason: reason) }
        if let problem = try reconcile() { return .unreconciled(reason: problem) }
        return .ok(rows.count)
    }

    /// The first recorded form (`entry_forms`, what `repeat N` opens) that is not of its entry: no such entry, or
    /// another operation or plugin version than the entry's signed document names. (Its values are the plugin's
    /// atoms, not the document's fields, and are not covered by the hashes: `repeat N` as recorded compares the
    /// document they build with the signed one before it signs, ``Ledger/checkRepeat(of:operation:pluginVersion:fields:)``.)
    func formsProblem() throws(LedgerError) -> (Int64, String)? {
        let rows = try database.read { db in
            try db.rows("""
                SELECT f.journal_seq, f.operation, f.plugin_version, j.document FROM entry_forms f
                LEFT JOIN journal j ON j.seq = f.journal_seq ORDER BY f.journal_seq
                """)
        }
        for row in rows {
            guard let sequence = try? row.decode(Int64.self, forColumn: "journal_seq") else { continue }
            let operation = try? row.decode(String.self, forColumn: "operation")
            let version = try? row.decode(String.self, forColumn: "plugin_version")
            guard let bytes = try? row.decode(Data.self, forColumn: "document"), let document = try? CanonicalEncoding.decode(bytes) else {
                return (sequence, "a form is recorded for entry \(sequence), which the journal does not hold (entry_forms was altered)")
            }
            if operation != document.operation || version != document.pluginVersion {
                return (sequence, "its recorded form (what repeat opens) is of \(operation ?? "?") \(version ?? "?"), but the entry "
                        + "signed \(document.operation) \(document.pluginVersion): entry_forms was altered")
            }
        }
        return nil
    }

    /// What does not add up between the journal, the postings and the balances, or `nil`: every posting has its
    /// `posted` journal entry with the same document, accounts, amount and currency; every `posted` entry has
    /// exactly one posting, two for a conversion, one more for a fee (which is the fee its signed document carries, paid
    /// to the bank's fee income account of its currency); every account's balance and every fee income account's is its opening balance (the seed's, or the one `customers add`
    /// opened it with) minus what it paid plus
    /// what it received.
    func reconcile() throws(LedgerError) -> String? {
        let (postings, posted, accounts, exchanges, positions, fees, incomes) = try database.read { db in
            (try db.rows("""
                SELECT p.id, p.document_id, p.debit, p.credit, p.amount, p.currency, p.journal_seq,
                       j.kind AS j_kind, j.document_id AS j_document, j.debit AS j_debit, j.credit AS j_credit,
                       j.amount AS j_amount, j.currency AS j_currency
                FROM postings p LEFT JOIN journal j ON j.seq = p.journal_seq ORDER BY p.id
                """),
             try db.rows("""
                SELECT j.seq, (SELECT count(*) FROM postings p WHERE p.journal_seq = j.seq) AS n,
                       (SELECT count(*) FROM exchanges e WHERE e.journal_seq = j.seq) AS legs
                FROM journal j WHERE j.kind = 'posted' AND (SELECT count(*) FROM postings p WHERE p.journal_seq = j.seq)
                    != 1 + (SELECT count(*) FROM exchanges e WHERE e.journal_seq = j.seq)
                         + (SELECT count(*) FROM fees f WHERE f.journal_seq = j.seq)
                """),
             try db.rows("SELECT number, currency, balance, opening FROM accounts ORDER BY position"),
             try db.rows("SELECT journal_seq, credit_amount, credit_currency FROM exchanges"),
             try db.rows("SELECT currency, number, balance FROM exchange_positions ORDER BY currency"),
             try db.rows("""
                SELECT f.journal_seq, f.amount, f.currency, f.account, j.kind AS j_kind, j.currency AS j_currency, j.document
                FROM fees f LEFT JOIN journal j ON j.seq = f.journal_seq ORDER BY f.journal_seq
                """),
             try db.rows("SELECT currency, number, balance FROM fee_income ORDER BY currency"))
        }
        // A row of the wrong shape (a damaged file) is reported as such, naming the column.
        func column<T: SQLColumn>(_ row: SQLRow, _ name: String) throws(LedgerError) -> T {
            do { return try row.decode(T.self, forColumn: name) } catch {
                throw .corruptDatabase(path: database.place, detail: "a posting or account cannot be read: \(error.description)")
            }
        }
        // A conversion's entry has two postings, through the bank's positions (``ExchangePosition``): the debit
        // account pays the entry's amount to its currency's position, the credited currency's position pays the
        // credit account what `exchanges` says was credited.
        var converted: [Int64: [String?]] = [:]
        for row in exchanges {
            let sequence: Int64 = try column(row, "journal_seq")
            converted[sequence] = [try column(row, "credit_amount"), try column(row, "credit_currency")]
        }
        var positionNumbers: [String: String] = [:]
        for row in positions {
            let currency: String = try column(row, "currency")
            positionNumbers[currency] = try column(row, "number")
        }
        // A fee is one more posting of its entry: the debit account pays the bank's fee income account of the entry's
        // currency the fee its signed document carries (``FeeIncome``).
        var feeLegs: [Int64: [String?]] = [:]
        for row in fees {
            let sequence: Int64 = try column(row, "journal_seq")
            let amount: String = try column(row, "amount"), currency: String = try column(row, "currency")
            let account: String = try column(row, "account")
            guard (try column(row, "j_kind") as String?) == JournalEntry.Kind.posted.rawValue else {
                return "the fee of journal entry \(sequence) names an entry that is not a posted one"
            }
            let bytes: Data? = try column(row, "document")
            let signed = bytes.flatMap { try? CanonicalEncoding.decode($0) }.flatMap { Payment.of($0)?.fee }
            guard let signed, signed.plain == amount, signed.currency.code == currency,
                  (try column(row, "j_currency") as String?) == currency else {
                return "the fee \(amount) \(currency) of journal entry \(sequence) is not the fee its signed document carries"
            }
            guard account == FeeIncome.number(of: currency) else {
                return "the fee of journal entry \(sequence) went to \(account), not the bank's \(currency) fee income account"
            }
            feeLegs[sequence] = [amount, currency, account]
        }
        var movement: [String: Decimal] = [:]
        for row in postings {
            let id: Int64 = try column(row, "id")
            let sequence: Int64 = try column(row, "journal_seq")
            let fields: [String?] = [try column(row, "document_id"), try column(row, "debit"), try column(row, "credit"), try column(row, "amount"), try column(row, "currency")]
            let journaled: [String?] = [try column(row, "j_document"), try column(row, "j_debit"), try column(row, "j_credit"), try column(row, "j_amount"), try column(row, "j_currency")]
            guard (try column(row, "j_kind") as String?) == JournalEntry.Kind.posted.rawValue else {
                return "posting \(id) names journal entry \(sequence), which is not a posted entry: the posting has no journal entry"
            }
            if let fee = feeLegs[sequence], fields == [journaled[0], journaled[1], fee[2], fee[0], fee[1]] {
                // The entry's fee leg (checked against its document above).
            } else if let credited = converted[sequence] {
                let currencies = [journaled[4], credited[1]]
                let legs: [[String?]] = [
                    [journaled[0], journaled[1], currencies[0].flatMap { positionNumbers[$0] }, journaled[3], journaled[4]],
                    [journaled[0], currencies[1].flatMap { positionNumbers[$0] }, journaled[2], credited[0], credited[1]],
                ]
                guard legs.contains(fields) else {
                    return "posting \(id) (\(fields.map { $0 ?? "NULL" }.joined(separator: " "))) is neither leg of the conversion of journal entry \(sequence)"
                }
            } else if fields != journaled {
                return "posting \(id) (\(fields.map { $0 ?? "NULL" }.joined(separator: " "))) differs from its journal entry \(sequence)"
            }
            guard let debit = fields[1], let credit = fields[2], let amount = fields[3].flatMap(DecimalText.parse) else {
                return "posting \(id) cannot be read"
            }
            movement[debit, default: 0] -= amount
            movement[credit, default: 0] += amount
        }
        if let row = posted.first {
            let sequence: Int64 = try column(row, "seq")
            let count: Int64 = try column(row, "n")
            let legs: Int64 = try column(row, "legs")
            let fee = feeLegs[sequence] == nil ? "" : " and one for its fee"
            return "journal entry \(sequence) is posted but has \(count) postings (it should have exactly \(legs == 0 ? "one" : "two, the legs of its conversion")\(fee))"
        }
        // The bank's own accounts, opened at zero by the core: each holds exactly what its postings give.
        for (rows, what) in [(positions, "position"), (incomes, "fee income")] {
            for row in rows {
                let currency: String = try column(row, "currency")
                let number: String = try column(row, "number")
                let text: String = try column(row, "balance")
                guard let balance = DecimalText.parse(text), balance == movement[number] ?? 0 else {
                    return "the bank's \(currency) \(what) \(number) holds \(text) \(currency), but its postings give \(movement[number] ?? 0) \(currency)"
                }
            }
        }
        for row in accounts {
            let number: String = try column(row, "number")
            let currency: String = try column(row, "currency")
            let text: String = try column(row, "balance")
            guard let balance = DecimalText.parse(text) else { return "account \(number) has balance \"\(text)\", not a decimal" }
            let openingText: String? = try column(row, "opening")
            guard let start = openingText.flatMap(DecimalText.parse) else {
                return "account \(number) has no opening balance: it is not one the core opened"
            }
            let expected = start + (movement[number] ?? 0)
            if balance != expected {
                let scale = Currency(code: currency)?.minorUnits ?? 2
                func shown(_ value: Decimal) -> String { DecimalText.format(value, scale: scale) ?? value.description }
                return "account \(number) holds \(shown(balance)) \(currency), but its opening "
                    + "balance \(shown(start)) plus its postings give \(shown(expected)) \(currency)"
            }
        }
        return nil
    }

    /// What is wrong with one entry, or `nil`. `firstSigner`: for a second signature, the key that signed first
    /// (the one the document names).
    static func problem(with entry: JournalEntry, previousHash: Data, keys: [String: Data], firstSigner: String? = nil) -> String? {
        if entry.previousHash != previousHash {
            return "the chain is broken: its previous-hash is not the hash of the entry before it"
        }
        if Document.id(ofCanonical: entry.document) != entry.documentId {
            return "the document bytes were altered: they no longer hash to document id \(entry.documentId)"
        }
        let document: Document
        do {
            document = try CanonicalEncoding.decode(entry.document)
        } catch {
            return "the stored document does not parse: \(error.description)"
        }
        if document.keyId != (firstSigner ?? entry.keyId) {
            return "the document names key \(document.keyId) but the entry says \(firstSigner ?? entry.keyId)"
        }
        guard let raw = keys[entry.keyId], SigningIdentity.keyId(ofRaw: raw) == entry.keyId else {
            return "the public key \(entry.keyId) is not registered (or altered), so the signature cannot be checked"
        }
        if let authorization = entry.authorization, authorization.method == .passkey {
            // The customer's passkey signed authenticatorData ‖ SHA-256(clientDataJSON), whose challenge is the
            // document's hash: re-checked with the customer's registered public key.
            if let problem = PasskeyAssertion.problem(documentId: entry.documentId, signature: entry.signature,
                                                      authorization: authorization, raw: raw) {
                return problem
            }
        } else {
            guard let publicKey = try? Curve25519.Signing.PublicKey(rawRepresentation: raw) else {
                return "the public key \(entry.keyId) is not an Ed25519 key, so the signature cannot be checked"
            }
            if !publicKey.isValidSignature(entry.signature, for: entry.signedMessage) {
                return "the signature does not verify with key \(entry.keyId)"
            }
        }
        if entry.computedHash != entry.hash {
            return "the entry's content does not match its hash (an outcome field was altered)"
        }
        return nil
    }

    /// What is wrong with the authorization an entry records, or `nil`.
    static func authorizationProblem(with entry: JournalEntry, authenticator: Authenticator?) -> String? {
        guard let authorization = entry.authorization else { return nil }
        switch authorization.method {
        case .totp:
            guard authorization.suite == SigningMethod.totpSuite, authorization.challenge == nil else {
                return "the entry says TOTP but records \(authorization.suite) and a challenge"
            }
            return nil
        case .passkey:
            return nil  // checked with the signature (``problem(with:previousHash:keys:)``): it is the signature
        case .ocra:
            let suite: OCRASuite
            do { suite = try OCRASuite(authorization.suite) } catch { return "the recorded OCRA suite is invalid: \(error.description)" }
            // One response answers a whole basket: its challenge derives from the basket id, not the document id.
            let challenge = suite.challenge(forDocumentId: entry.basketId ?? entry.documentId)
            let what = entry.basketId == nil ? "document" : "basket"
            guard authorization.challenge == challenge else {
                return "the recorded OCRA challenge \(authorization.challenge ?? "(none)") is not the \(what)'s challenge \(challenge): the authorization was not for this \(what)"
            }
            guard let response = authorization.response, response.utf8.count == suite.digits else {
                return "the recorded OCRA response is missing or not \(suite.digits) digits"
            }
            if let authenticator, case .ocra(let enrolled, let secret) = authenticator,
               authenticator.secretId == authorization.secretId, enrolled == suite {
                let expected = try? OCRA.response(suite: suite, secret: secret, input: .init(challenge: challenge))
                guard expected.map({ CodeVerifier.constantTimeEqual($0, response) }) == true else {
                    return "the recorded OCRA response does not answer the \(what)'s challenge with the enrolled secret"
                }
            }
            return nil
        }
    }

    /// The query of ``tip(_:)``: PostgreSQL's one-call writes answer it with a provisional tip when the server
    /// numbers the entries at commit (``SpeculativeTransaction``).
    static let tipQuery = "SELECT seq, hash FROM journal ORDER BY seq DESC LIMIT 1"

    /// With ids and positions apart (``SQLTransaction/journalPositions``): the highest id, and the hash of the
    /// entry at the last position — what the next entry is numbered after and chained to. Only the classic write
    /// asks it there, holding the ledger's lock exclusively after integrating, so every entry has its position.
    static let idTipQuery = """
        SELECT coalesce((SELECT max(j.seq) FROM journal j), 0) AS seq,
               (SELECT j.hash FROM journal j WHERE j.position IS NOT NULL ORDER BY j.position DESC LIMIT 1) AS hash
        """
    /// The chain's end where entries have positions: the last position and its entry's hash.
    static let positionTipQuery = "SELECT position AS seq, hash FROM journal WHERE position IS NOT NULL ORDER BY position DESC LIMIT 1"

    /// The number the next entry follows and the hash it chains to (0 and the genesis hash for an empty journal):
    /// the last entry's number and hash; with ids and positions apart, the highest id and the last position's hash.
    static func tip(_ db: any SQLTransaction) throws -> (sequence: Int64, hash: Data) {
        guard let row = try db.rows(db.journalPositions ? idTipQuery : tipQuery, arguments: []).first else {
            return (0, JournalEntry.genesisHash)
        }
        return (try row.decode(Int64.self, forColumn: "seq"), try row.decode(Data?.self, forColumn: "hash") ?? JournalEntry.genesisHash)
    }

    /// The chain's end — how many entries it holds and the last one's hash — as `ledger-tip` records it and a start
    /// compares it: the last entry's number, or with positions apart the last position.
    static func chainTip(_ db: any SQLTransaction) throws -> (sequence: Int64, hash: Data) {
        guard db.journalPositions else { return try tip(db) }
        guard let row = try db.rows(positionTipQuery, arguments: []).first else { return (0, JournalEntry.genesisHash) }
        return (try row.decode(Int64.self, forColumn: "seq"), try row.decode(Data.self, forColumn: "hash"))
    }

    /// The journal's rows in chain order: by number, or with positions apart by position, the entries not
    /// integrated yet last, in id order (the order integration will give them).
    static func chainOrder(_ db: any SQLTransaction) -> String {
        db.journalPositions ? "ORDER BY position NULLS LAST, seq" : "ORDER BY seq"
    }
}
