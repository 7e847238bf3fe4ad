import Crypto
import Foundation

/// A basket's OCRA challenge issued by `basket sign … --challenge` and waiting for its response.
public struct PendingBasket: Sendable, Hashable {
    /// The basket id the challenge was issued for.
    public let id: String
    /// The documents the challenge was derived from (their nonces and times are reused when the response comes).
    public let documents: [Document]
    public let challenge: String
    public let issuedAt: Date
}

extension Ledger {
    /// Checks the one code (TOTP) or the one response to the basket's challenge (OCRA), signs the basket's list
    /// and every document, and journals and posts each document on its own — a rejected one does not stop the
    /// others — in ONE transaction with the code's step recorded once. Each entry names the basket; the list and
    /// its signature are stored once.
    ///
    /// The same basket again (or a `request` id answered before) returns the first outcomes: the code is not
    /// looked at and nothing is posted. `expectedBasketId` (from ``pendingBasket(id:)``) requires, as for one
    /// document, that the basket is the one the challenge was issued for.
    ///
    /// `forms[i]`, when given, is the form document `i` was filled in, recorded with its new entry (`repeat N`).
    public func signAndPost(basket: Basket, code: String, request: LedgerRequest? = nil,
                            expectedBasketId: String? = nil, forms: [FormTemplate?] = []) throws(LedgerError) -> BasketOutcome {
        let identity = try identity()
        return try process(basket: basket, code: code, request: request, identity: identity, expectedBasketId: expectedBasketId,
                           forms: forms,
                           verifier: CodeVerifier(database: database, authenticator: identity.authenticator, clock: clock),
                           customer: request?.customer ?? LedgerRequest.local)
    }

    /// ``signAndPost(basket:code:request:expectedBasketId:)`` for a customer of `serve`: their code, their attempt
    /// count and lock, the key the host keeps for them.
    public func signAndPost(basket: Basket, code: String, as customer: CustomerCredentials,
                            request: LedgerRequest? = nil, forms: [FormTemplate?] = []) throws(LedgerError) -> BasketOutcome {
        let identity: SigningIdentity
        do { identity = try customer.identity() } catch { throw .keys(error) }
        return try process(basket: basket, code: code, request: request, identity: identity, expectedBasketId: nil, forms: forms,
                           verifier: customers.codeVerifier(for: customer), customer: String(customer.customer.id))
    }

    /// The signed basket `id`, or `nil`.
    public func basket(id: String) throws(LedgerError) -> BasketRecord? {
        let row = try database.read { db in try db.row("SELECT * FROM baskets WHERE basket_id = ?", id) }
        return try row.map { row throws(LedgerError) in try BasketRecord(row: row) }
    }

    /// The first outcomes of basket `id`, or `nil` when it was never signed.
    public func outcome(ofBasket id: String) throws(LedgerError) -> BasketOutcome? {
        try database.read { db in try Self.basketOutcome(id, in: db) }
    }

    /// What a basket's `request` id was first answered with, or `nil` when it was never journaled.
    public func basketOutcome(of request: LedgerRequest) throws(LedgerError) -> BasketOutcome? {
        try database.read { db in try Self.basketOutcome(of: request, in: db) }
    }

    /// The OCRA challenge of `basket` under the enrolled suite, or `nil` with TOTP.
    public func challenge(for basket: Basket) throws(LedgerError) -> String? {
        guard case .ocra(let suite, _) = try authenticator() else { return nil }
        return suite.challenge(forDocumentId: basket.id)
    }

    /// Records `basket` as waiting for the response to its challenge (`basket sign … --challenge`, answered by
    /// another process) and returns the challenge. Challenges older than a day are forgotten on the way.
    public func issueChallenge(for basket: Basket) throws(LedgerError) -> String {
        guard let challenge = try challenge(for: basket) else {
            throw .code(.wrongMethod(enrolled: .totp, detail: "there is no challenge; sign the basket with the 6-digit code (`--code CODE`)"))
        }
        var documents = Data()
        for document in basket.documents {
            let bytes = document.canonicalBytes
            withUnsafeBytes(of: UInt32(bytes.count).bigEndian) { documents.append(contentsOf: $0) }
            documents.append(bytes)
        }
        let now = Timestamp.milliseconds(clock())
        try database.write { db in
            try db.execute("DELETE FROM basket_pending WHERE issued_ms < ?", now - 86_400_000)
            try db.execute(
                """
                INSERT INTO basket_pending (basket_id, documents, challenge, issued_ms) VALUES (?, ?, ?, ?)
                ON CONFLICT (basket_id) DO UPDATE SET documents = excluded.documents, challenge = excluded.challenge,
                    issued_ms = excluded.issued_ms
                """, basket.id, documents, challenge, now)
        }
        return challenge
    }

    /// The basket challenge waiting under basket id `id`. Refuses when there is none, it was answered, or it is
    /// older than ``challengeLifetimeSeconds``.
    public func pendingBasket(id: String) throws(LedgerError) -> PendingBasket {
        let (row, answered) = try database.read { db in
            (try db.row("SELECT * FROM basket_pending WHERE basket_id = ?", id),
             try db.exists("SELECT 1 FROM baskets WHERE basket_id = ?", id))
        }
        if answered { throw .code(.challengeUsed) }
        guard let row else { throw .code(.noPendingChallenge("basket \(id)")) }
        let pending: PendingBasket
        do {
            let bytes = try row.decode(Data.self, forColumn: "documents")
            var documents: [Document] = []
            var offset = bytes.startIndex
            while offset < bytes.endIndex {
                guard bytes.endIndex - offset >= 4 else { throw DocumentError.malformed(line: 0, reason: "a truncated length") }
                let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
                offset += 4
                guard bytes.endIndex - offset >= length else { throw DocumentError.malformed(line: 0, reason: "a truncated document") }
                documents.append(try CanonicalEncoding.decode(Data(bytes[offset..<offset + length])))
                offset += length
            }
            let issued = try row.decode(Int64.self, forColumn: "issued_ms")
            pending = PendingBasket(id: id, documents: documents, challenge: try row.decode(String.self, forColumn: "challenge"),
                                    issuedAt: Timestamp.date(milliseconds: issued))
        } catch let error as DocumentError {
            throw .corruptDatabase(path: database.place, detail: "a waiting basket's documents do not parse: \(error.description)")
        } catch {
            throw .corruptDatabase(path: database.place, detail: "a waiting basket cannot be read: \(error)")
        }
        try checkLifetime(issuedAt: pending.issuedAt)
        return pending
    }

    /// A document for the enrolled key with these fields and the time and nonce of `earlier` (the document a waiting
    /// challenge was issued for, or one of a waiting basket's), so the same fields give the same document and any
    /// change another one.
    public func draft(
        operation: String, plugin: String, pluginVersion: String, fields: [DocumentField], like earlier: Document
    ) throws(LedgerError) -> Document {
        let keyId = try identity().keyId
        let fields = try bank.quoted(fields)  // as ``draft(operation:plugin:pluginVersion:fields:keyId:)``
        do {
            return try Document(
                operation: operation, plugin: plugin, pluginVersion: pluginVersion, fields: fields,
                createdAtMilliseconds: earlier.createdAtMilliseconds, nonce: earlier.nonce, keyId: keyId)
        } catch {
            throw .document(error)
        }
    }

    private func process(basket: Basket, code: String, request: LedgerRequest?, identity: SigningIdentity,
                         expectedBasketId: String?, forms: [FormTemplate?], verifier: CodeVerifier,
                         customer: String) throws(LedgerError) -> BasketOutcome {
        guard basket.keyId == identity.keyId else {
            throw .keys(.signingFailed("the basket names key \(basket.keyId), but this key is \(identity.keyId)"))
        }
        let list = basket.list
        let listBytes = list.canonicalBytes
        let basketId = list.id
        let basketSignature: Data
        do { basketSignature = try identity.privateKey.signature(for: listBytes) } catch {
            throw .keys(.signingFailed(String(describing: error)))
        }
        let signer = BatchSigner(key: identity.privateKey, documents: basket.documents)
        defer { signer.finish() }
        let publicKey = identity.publicKey.rawRepresentation
        let bank = self.bank
        let now = Timestamp.milliseconds(clock())
        let result: Result<BasketOutcome, OneTimeCodeError>
        do {
            result = try database.write { db in
                // Repeats first, before the code: a request or a basket signed before only reads its outcomes.
                if let request, let first = try Self.basketOutcome(of: request, in: db) { return .success(first) }
                if let first = try Self.basketOutcome(basketId, in: db) { return .success(first) }
                switch try verifier.check(code, subject: basketId, expectedSubject: expectedBasketId, in: db) {
                case .failure(let error):
                    // A document that cannot be signed is refused before the code is looked at: roll back.
                    if let failure = signer.firstFailure() { throw LedgerError.keys(failure) }
                    return .failure(error)  // committed: the wrong attempt counts
                case .success(let authorization):
                    try db.execute(
                        """
                        INSERT INTO baskets (basket_id, list, signature, key_id, customer, recorded_ms, document_times)
                        VALUES (?, ?, ?, ?, ?, ?, ?)
                        """,
                        basketId, listBytes, basketSignature, identity.keyId, customer, now,
                        Self.documentTimes(basket.documents.map(\.createdAtMilliseconds)))
                    let tip = try Journal.tip(db).sequence
                    let outcomes = try bank.apply(count: basket.documents.count, publicKey: publicKey, authorization: authorization,
                                                  basketId: basketId, in: db) { index in
                        switch signer.signed(index) {
                        case .success(let done):
                            return (SignedDocument(document: basket.documents[index], canonicalBytes: done.canonicalBytes,
                                                   signature: done.signature), done.id)
                        case .failure(let error):
                            throw LedgerError.keys(error)
                        }
                    }
                    if let failure = signer.firstFailure() { throw LedgerError.keys(failure) }
                    // The forms go with the entries made now (a document journaled before keeps its own).
                    for (index, outcome) in outcomes.enumerated() where outcome.sequence > tip && index < forms.count {
                        if let form = forms[index] { try Self.record(form, sequence: outcome.sequence, in: db) }
                    }
                    if let request, let first = outcomes.first {
                        try request.insert(documentId: basketId, sequence: first.sequence, in: db)
                    }
                    return .success(BasketOutcome(list: list, outcomes: outcomes, repeated: false))
                }
            }
        } catch {
            if let failure = signer.firstFailure() { throw .keys(failure) }
            throw error
        }
        switch result {
        case .success(let outcome): return outcome
        case .failure(let error): throw .code(error)
        }
    }

    /// The first outcomes of basket `id` inside a transaction, or `nil` when it was never signed.
    static func basketOutcome(_ id: String, in db: any SQLTransaction) throws -> BasketOutcome? {
        guard let row = try db.row("SELECT * FROM baskets WHERE basket_id = ?", id) else { return nil }
        let record = try BasketRecord(row: row)
        // The entries journaled in this basket, by its own index (each document's first); a document journaled before
        // the basket (answered with its first outcome) by its document key, from the `created_at` times the basket
        // row keeps (``documentTimes(_:)``), since a key leads with its document's time.
        var journaled: [String: SQLRow] = [:]
        for entry in try db.rows("SELECT * FROM journal WHERE basket_id = ? ORDER BY seq", id) {
            let documentId: String = try entry["document_id"]
            if journaled[documentId] == nil { journaled[documentId] = entry }
        }
        let times = Self.documentTimes(in: try row["document_times"])
        var outcomes: [Outcome] = []
        for (offset, documentId) in record.list.documentIds.enumerated() {
            var entry = journaled[documentId]
            if entry == nil, offset < times.count {
                let key = JournalEntry.documentKey(of: documentId, createdAtMilliseconds: times[offset])
                entry = try db.rows("SELECT * FROM journal WHERE document_key = ? AND document_id = ? ORDER BY seq",
                                    arguments: [.integer(key), .text(documentId)]).first
            }
            guard let entry else {
                throw LedgerError.unreadableEntry(sequence: 0, detail: "document \(offset + 1) of basket \(id) (\(documentId)) has no journal entry")
            }
            outcomes.append(try EmbeddedBank.outcome(of: try JournalEntry(row: entry), in: db))
        }
        return BasketOutcome(list: record.list, outcomes: outcomes, repeated: true)
    }

    /// A basket's `document_times` column: its documents' `created_at` in milliseconds, in list order, separated by
    /// spaces (what finds the entry of a document journaled before the basket by its key).
    static func documentTimes(_ times: [Int64]) -> String {
        times.map(String.init).joined(separator: " ")
    }

    /// The times of a `document_times` column (none when it is empty or not in that form).
    static func documentTimes(in text: String?) -> [Int64] {
        let times = (text ?? "").split(separator: " ").map { Int64($0) }
        return times.contains(nil) ? [] : times.compactMap { $0 }
    }

    /// The first outcomes of the basket a request id was answered with, or `nil` when the request is new. A request
    /// id first used for one document (`run --request-id`) is refused: it cannot name a basket.
    static func basketOutcome(of request: LedgerRequest, in db: any SQLTransaction) throws -> BasketOutcome? {
        guard let answered = try db.value(String.self, "SELECT document_id FROM requests WHERE customer = ? AND request_id = ?",
                                          request.customer, request.id) else { return nil }
        guard let outcome = try basketOutcome(answered, in: db) else { throw LedgerError.requestNamesDocument(request.id) }
        return outcome
    }
}
