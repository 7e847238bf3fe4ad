import Foundation

extension Ledger {
    /// Posts `document` signed by `customer`'s passkey: `assertion` is the customer's own signature of the document
    /// (its WebAuthn challenge is the document's hash), so the host signs nothing and uses no key of its own for them.
    ///
    /// In ONE transaction, as ``signAndPost(_:code:as:request:)``: a request id journaled before answers with its
    /// first outcome; the customer's lock is checked; the assertion is checked (``PasskeyAssertion/check(documentId:passkey:relyingParty:)``)
    /// and a failure counts towards the lock of five failures in a row; the passkey's counter advances; the entry
    /// is journaled with the assertion's signature as its signature and the passkey's public key registered under
    /// the document's key id, then posted. The entry's hash covers the signature, authenticator data and client
    /// data, so the chain holds the customer's signature; `verify` re-checks it with the registered public key.
    ///
    /// A failed assertion throws ``LedgerError/code(_:)`` with ``OneTimeCodeError/wrongPasskey(attemptsLeft:)``
    /// (which element failed is not said: Art. 4); `onRefusal` receives the ``PasskeyError`` naming it, for the
    /// operator's log.
    public func signAndPost(_ document: Document, assertion: PasskeyAssertion, as customer: CustomerCredentials,
                            relyingParty: RelyingParty, request: LedgerRequest? = nil, form: FormTemplate? = nil,
                            onRefusal: (PasskeyError) -> Void = { _ in }) throws(LedgerError) -> Outcome {
        guard let passkey = customer.passkey else {
            throw .code(.wrongMethod(enrolled: .totp, detail: "customer \(customer.customer.name) has no passkey; sign with the one-time code"))
        }
        guard document.keyId == passkey.key.keyId else {
            throw .keys(.signingFailed("the document names key \(document.keyId), but the customer's passkey is key \(passkey.key.keyId)"))
        }
        // As for the host's signatures (PCI DSS 3.4): a full card number is never journaled, whoever signed.
        for field in document.fields where SigningIdentity.holdsFullCardNumber(key: field.key, value: field.value) {
            throw .keys(.signingFailed("field \"\(field.key)\" holds a full card number; a document names a card by its masked form "
                                       + "(first six and last four digits) or its last four digits, never the whole number"))
        }
        let canonical = document.canonicalBytes
        let documentId = Document.id(ofCanonical: canonical)
        let verifier = customers.codeVerifier(for: customer)
        let bank = self.bank
        let result: Result<Outcome, CodeVerifier.PasskeyFailure> = try database.write { db in
            if let request, let sequence = try request.sequence(in: db) {
                guard let row = try db.row("SELECT * FROM journal WHERE seq = ?", sequence) else {
                    throw LedgerError.unreadableEntry(sequence: sequence, detail: "request \(request.id) names it, but it is missing")
                }
                return .success(try EmbeddedBank.outcome(of: try JournalEntry(row: row), in: db))
            }
            var counter: UInt32 = 0
            let checked = try verifier.checkPasskey(in: db) {
                do throws(PasskeyError) {
                    counter = try assertion.check(documentId: documentId, passkey: passkey, relyingParty: relyingParty)
                    return .success(assertion.authorization(key: passkey.key, documentId: documentId))
                } catch {
                    return .failure(error)
                }
            }
            switch checked {
            case .failure(let failure):
                return .failure(failure)  // committed: the failed attempt counts
            case .success(let authorization):
                try db.execute("UPDATE customer_passkeys SET sign_count = ? WHERE credential_id = ?",
                               Int64(counter), passkey.credentialId)
                let outcome = try bank.apply(count: 1, publicKey: passkey.key.raw, authorization: authorization, in: db) { _ in
                    (SignedDocument(document: document, canonicalBytes: canonical, signature: assertion.signature), documentId)
                }[0]
                try request?.insert(documentId: outcome.documentId, sequence: outcome.sequence, in: db)
                if let form { try Self.record(form, sequence: outcome.sequence, in: db) }
                return .success(outcome)
            }
        }
        switch result {
        case .success(let outcome): return outcome
        case .failure(let failure):
            if let element = failure.element { onRefusal(element) }
            throw .code(failure.code)
        }
    }
}
