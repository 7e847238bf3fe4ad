import Crypto
import Foundation
import RBSMoney

/// Signing and posting: one document or a batch, checked against one code, signed with the host's key or a
/// customer's, posted in one transaction; a request id answered before returns its first outcome.
extension Ledger {
    /// Checks the one-time code, signs the document, journals it and posts it — the code state, the journal
    /// entry and the posting in one transaction. A wrong code is recorded (towards the lock) and thrown.
    ///
    /// With `request`: when that request id was journaled before, its first outcome is returned (the code is not
    /// looked at and nothing is posted); otherwise it is recorded in the same transaction as the journal entry.
    ///
    /// With OCRA enrolled, `code` is the response to the document's challenge; `expectedDocumentId` (from
    /// ``pendingChallenge(documentId:operation:plugin:)``) makes it also require that the document is the one the
    /// challenge was issued for — a changed document fails exactly like a wrong response.
    ///
    /// With `form`, the values the person entered are recorded with the new journal entry, in the same
    /// transaction (``form(ofEntry:)``, what `repeat N` opens again).
    public func signAndPost(_ document: Document, code: String, request: LedgerRequest? = nil,
                            expectedDocumentId: String? = nil, form: FormTemplate? = nil) throws(LedgerError) -> Outcome {
        let outcomes = try process(batch: [document], code: code, requests: [request], expectedDocumentId: expectedDocumentId,
                                   forms: [form])
        return outcomes[0]
    }

    /// Checks `customer`'s one-time code (their own attempt count and lock), then signs `document` with the key the
    /// host keeps for them, journals and posts it — in one transaction, as ``signAndPost(_:code:request:expectedDocumentId:)``.
    /// The document must name the customer's key (``draft(operation:plugin:pluginVersion:fields:keyId:)``).
    /// With `request` (whose ``LedgerRequest/customer`` is this customer's id), a request journaled before answers
    /// with its first outcome, as for the local customer.
    public func signAndPost(_ document: Document, code: String, as customer: CustomerCredentials,
                            request: LedgerRequest? = nil, form: FormTemplate? = nil) throws(LedgerError) -> Outcome {
        let identity: SigningIdentity
        do { identity = try customer.identity() } catch { throw .keys(error) }
        // Kept under this customer's id whatever the caller named: one customer's request id never answers another's.
        let request = try request.map { request throws(LedgerError) in try LedgerRequest(signer: customer.customer, id: request.id) }
        let prepared = try prepare([document], identity: identity, after: nil)
        return try process(prepared, code: code, requests: [request], expectedDocumentId: nil, forms: [form],
                           verifier: customers.codeVerifier(for: customer))[0]
    }

    /// The first outcome of `request` and its journal entry, or `nil` when it was never journaled (nothing was
    /// posted for it) — `journal --request-id`, and what a retried `run --request-id` answers.
    public func outcome(of request: LedgerRequest) throws(LedgerError) -> (outcome: Outcome, entry: JournalEntry)? {
        try database.read { db -> (Outcome, JournalEntry)? in
            guard let sequence = try request.sequence(in: db),
                  let row = try db.row("SELECT * FROM journal WHERE seq = ?", sequence) else { return nil }
            let entry = try JournalEntry(row: row)
            return (try EmbeddedBank.outcome(of: entry, in: db), entry)
        }
    }

    /// Group commit: one code authorises the batch; every document is signed, then all are journaled and posted
    /// in ONE transaction, and each outcome is reported only after that commit. An OCRA response answers one
    /// document, so with OCRA the batch has exactly one.
    ///
    /// `requests[i]`, when given, is document `i`'s request id: one journaled before answers with its first
    /// outcome and is not signed, checked against the code or posted again (when every document is such a repeat,
    /// the code is not looked at); a new one is recorded in the same transaction. `forms[i]`, when given, is the
    /// form document `i` was filled in, recorded with its new entry.
    public func process(batch: [Document], code: String, requests: [LedgerRequest?] = [],
                        expectedDocumentId: String? = nil, forms: [FormTemplate?] = []) throws(LedgerError) -> [Outcome] {
        let prepared = try prepare(batch, identity: try identity(), after: nil)
        return try process(prepared, code: code, requests: requests, expectedDocumentId: expectedDocumentId, forms: forms)
    }

    /// Group commit of a batch from ``prepare(batch:after:)``: one code authorises it, and its documents (signed
    /// by now, or waited for one by one) are journaled and posted in ONE transaction, each outcome reported only
    /// after that commit — exactly as ``process(batch:code:requests:expectedDocumentId:forms:)``, whose other
    /// arguments these are.
    public func process(_ prepared: PreparedBatch, code: String, requests: [LedgerRequest?] = [],
                        expectedDocumentId: String? = nil, forms: [FormTemplate?] = []) throws(LedgerError) -> [Outcome] {
        try process(prepared, code: code, requests: requests, expectedDocumentId: expectedDocumentId, forms: forms,
                    verifier: CodeVerifier(database: database, authenticator: prepared.identity.authenticator, clock: clock))
    }

    private func process(_ prepared: PreparedBatch, code: String, requests: [LedgerRequest?], expectedDocumentId: String?,
                         forms: [FormTemplate?], verifier: CodeVerifier) throws(LedgerError) -> [Outcome] {
        let batch = prepared.documents
        let signer = prepared.signer
        defer { signer.finish() }
        let publicKey = prepared.identity.publicKey.rawRepresentation
        let bank = self.bank
        let result: Result<[Outcome], OneTimeCodeError>
        do {
            result = try database.write { db in
                // Repeats first, before the code: a retry of a request that was journaled only reads its outcome.
                var repeated: [Int: Outcome] = [:]
                var firstIndex: [LedgerRequest: Int] = [:]
                var duplicateOf: [Int: Int] = [:]
                for (index, request) in requests.enumerated() where index < batch.count {
                    guard let request else { continue }
                    if let sequence = try request.sequence(in: db) {
                        guard let row = try db.row("SELECT * FROM journal WHERE seq = ?", sequence) else {
                            throw LedgerError.unreadableEntry(sequence: sequence, detail: "request \(request.id) names it, but it is missing")
                        }
                        repeated[index] = try EmbeddedBank.outcome(of: try JournalEntry(row: row), in: db)
                    } else if let first = firstIndex[request] {
                        duplicateOf[index] = first
                    } else {
                        firstIndex[request] = index
                    }
                }
                if !repeated.isEmpty && repeated.count == batch.count {
                    return .success(batch.indices.compactMap { repeated[$0] })
                }
                let fresh = batch.indices.filter { repeated[$0] == nil && duplicateOf[$0] == nil }
                switch try verifier.check(code, for: fresh.count == 1 ? batch[fresh[0]] : nil, expectedDocumentId: expectedDocumentId, in: db) {
                case .failure(let error):
                    // A document that cannot be signed is refused before the code is looked at: roll back.
                    if let failure = signer.firstFailure() { throw LedgerError.keys(failure) }
                    return .failure(error)  // committed: the wrong attempt counts
                case .success(let authorization):
                    let applied = try bank.apply(count: fresh.count, publicKey: publicKey, authorization: authorization, in: db) { position in
                        let index = fresh[position]
                        switch signer.signed(index) {
                        case .success(let done):
                            return (SignedDocument(document: batch[index], canonicalBytes: done.canonicalBytes, signature: done.signature), done.id)
                        case .failure(let error):
                            throw LedgerError.keys(error)
                        }
                    }
                    // Every document is signed before the commit, the ones already journaled included.
                    if let failure = signer.firstFailure() { throw LedgerError.keys(failure) }
                    var outcomes: [Outcome] = []
                    outcomes.reserveCapacity(batch.count)
                    var position = 0
                    for index in batch.indices {
                        if let outcome = repeated[index] { outcomes.append(outcome); continue }
                        if let first = duplicateOf[index] { outcomes.append(outcomes[first]); continue }
                        let outcome = applied[position]
                        position += 1
                        outcomes.append(outcome)
                        // The same request twice in one batch: the first one's entry answers both.
                        if index < requests.count, let request = requests[index], firstIndex[request] == index {
                            try request.insert(documentId: outcome.documentId, sequence: outcome.sequence, in: db)
                        }
                        if index < forms.count, let form = forms[index] {
                            try Self.record(form, sequence: outcome.sequence, in: db)
                        }
                    }
                    return .success(outcomes)
                }
            }
        } catch {
            // A signing failure is what signing in order would have reported, whatever else went wrong after it.
            if let failure = signer.firstFailure() { throw .keys(failure) }
            throw error
        }
        switch result {
        case .success(let outcomes): return outcomes
        case .failure(let error): throw .code(error)
        }
    }

    /// Starts encoding, identifying and signing `batch` with the enrolled key on every core now, for a later
    /// ``process(_:code:requests:expectedDocumentId:forms:)`` — group commit of batch after batch: prepare the next
    /// batch, then process the current one, and the cores sign the next while the current one is journaled and its
    /// commit waits for the disk. With `previous` (a batch prepared before and not yet processed), this batch's
    /// signing starts once every document of `previous` is taken, so batches are signed in the order they commit.
    ///
    /// Throws what ``process(batch:code:requests:expectedDocumentId:forms:)`` would refuse before signing: a document
    /// naming another key, or more than one document with OCRA enrolled. Writes nothing.
    public func prepare(batch: [Document], after previous: PreparedBatch? = nil) throws(LedgerError) -> PreparedBatch {
        try prepare(batch, identity: try identity(), after: previous)
    }

    /// The checks signing in order would refuse first, then the signer started on `batch` (a worker per core: the
    /// committing thread spends much of its turn waiting for the disk, and signs a chunk itself when it gets ahead).
    private func prepare(_ batch: [Document], identity: SigningIdentity,
                         after previous: PreparedBatch?) throws(LedgerError) -> PreparedBatch {
        if case .ocra = identity.authenticator, batch.count != 1 {
            throw .code(.wrongMethod(enrolled: .ocra, detail: "a response answers the challenge of one document; sign the \(batch.count) documents one by one"))
        }
        // What signing in order would refuse first, before anything else happens.
        for document in batch where document.keyId != identity.keyId {
            throw .keys(.signingFailed("the document names key \(document.keyId), but this key is \(identity.keyId)"))
        }
        // Encoded, identified and signed in the background while the transaction journals and posts the
        // documents in order (each waits for its own).
        let signer = BatchSigner(key: identity.privateKey, documents: batch, after: previous?.signer)
        return PreparedBatch(documents: batch, identity: identity, signer: signer)
    }

    func identity() throws(LedgerError) -> SigningIdentity {
        // The keys live in the data folder: when it changed under the host, say that, not that a key file is missing.
        try database.watch.check()
        do {
            return try keys.load()
        } catch {
            throw .keys(error)
        }
    }
}
