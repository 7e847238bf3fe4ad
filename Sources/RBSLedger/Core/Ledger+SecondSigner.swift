import Crypto
import Foundation

/// A document awaiting its second signature (maker–checker): the `awaiting` journal entry, the document and who
/// signed it first.
public struct PendingSignature: Sendable, Hashable {
    public let entry: JournalEntry
    public let document: Document
    /// The user who signed first (their login name), or their key id when that user was removed since.
    public let signedBy: String
    /// A payment posted in the last 24 hours that this one repeats (the same payee, account, amount and purpose):
    /// its approval then needs the second signer to confirm the repeat.
    public var duplicate: JournalEntry? = nil
    /// When it was signed first: ISO 8601 UTC with milliseconds, as `journal --json` writes times.
    public var signedAt: String { Timestamp.format(milliseconds: entry.recordedAtMilliseconds) }
}

extension Ledger {
    /// The documents of `customer` (any of its users) awaiting a second signature, oldest first: signed by one user
    /// above the customer's threshold, neither approved nor declined yet.
    public func pendingSecondSignatures(of customer: Customer) throws(LedgerError) -> [PendingSignature] {
        let rows = try database.read { db in
            try db.rows(Customers.awaitingOfHolder("j.*"), arguments: Customers.awaitingArguments(customer.holderId))
        }
        var pending: [PendingSignature] = []
        for row in rows {
            let entry = try JournalEntry(row: row)
            let document: Document
            do { document = try CanonicalEncoding.decode(entry.document) } catch {
                throw .unreadableEntry(sequence: entry.sequence, detail: "its document does not parse: \(error.description)")
            }
            let maker = try database.read { db in try Customers.user(ofKey: entry.keyId, in: db) }
            let repeated = try recentDuplicate(of: document, keyId: document.keyId, includingAwaiting: false)
            pending.append(PendingSignature(entry: entry, document: document, signedBy: maker?.name ?? entry.keyId,
                                            duplicate: repeated?.documentId == document.id ? nil : repeated))
        }
        return pending
    }

    /// The second signature: `checker` (another user of the same customer) approves the document of the `awaiting`
    /// entry `sequence` with their own one-time code (their own attempt count, a code used once). In ONE
    /// transaction: the code is checked, the host signs the same document bytes with the checker's key, and the core
    /// decides again now (balance, blocked accounts) — a new entry, `posted` or `rejected`, that names the awaiting one.
    ///
    /// The approval posts the payment, so it meets the rule a single signer meets at signing: a document that repeats
    /// a payment posted in the last 24 hours is refused (``LedgerError/unconfirmedDuplicate(_:)``; nothing signed,
    /// the code not looked at) unless the second signer `confirmedDuplicate`.
    public func approve(entry sequence: Int64, code: String, as checker: CustomerCredentials,
                        confirmedDuplicate: Bool = false) throws(LedgerError) -> Outcome {
        try checkDuplicate(approving: sequence, confirmed: confirmedDuplicate)
        return try secondSignature(entry: sequence, code: code, as: checker, decline: nil)
    }

    /// `checker` declines the document awaiting its second signature with `reason` (their code confirms it): a
    /// `rejected` entry naming the awaiting one, signed by the checker over the declined document; nothing is posted.
    public func decline(entry sequence: Int64, reason: String, code: String, as checker: CustomerCredentials) throws(LedgerError) -> Outcome {
        let reason = reason.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !reason.isEmpty else { throw .secondSignature(.noReason) }
        return try secondSignature(entry: sequence, code: code, as: checker, decline: reason)
    }

    private func secondSignature(entry sequence: Int64, code: String, as checker: CustomerCredentials,
                                 decline reason: String?) throws(LedgerError) -> Outcome {
        let identity: SigningIdentity
        do { identity = try checker.identity() } catch { throw .keys(error) }
        let verifier = customers.codeVerifier(for: checker)
        let bank = self.bank
        let user = checker.customer
        let result: Result<Outcome, OneTimeCodeError> = try database.write { db in
            // Only the customer's own awaiting documents exist for this user: anything else is "not awaiting".
            guard let row = try db.row("SELECT * FROM journal WHERE seq = ? AND kind = ?", sequence, JournalEntry.Kind.awaiting.rawValue)
            else { throw LedgerError.secondSignature(.notAwaiting(sequence)) }
            let awaiting = try JournalEntry(row: row)
            guard let maker = try Customers.user(ofKey: awaiting.keyId, in: db), maker.holder == user.holderId else {
                throw LedgerError.secondSignature(.notAwaiting(sequence))
            }
            if let decided = try db.value(Int64.self, "SELECT seq FROM journal WHERE second_of = ?", sequence) {
                throw LedgerError.secondSignature(.alreadyDecided(sequence, by: decided))
            }
            guard maker.id != user.id, awaiting.keyId != identity.keyId else {
                throw LedgerError.secondSignature(.sameSigner(user: user.name))
            }
            switch try verifier.check(code, for: nil, in: db) {
            case .failure(let error):
                return .failure(error)  // committed: the wrong attempt counts towards this user's lock
            case .success(let authorization):
                let rejection = reason.map { Rejection.declined(by: user.name, reason: $0) }
                let message = rejection == nil ? awaiting.document : JournalEntry.declineMessage(awaiting.document)
                let signature = try identity.privateKey.signature(for: message)
                return .success(try bank.complete(awaiting, signature: signature, keyId: identity.keyId,
                                                  publicKey: identity.publicKey.rawRepresentation,
                                                  authorization: authorization, decline: rejection, in: db))
            }
        }
        switch result {
        case .success(let outcome): return outcome
        case .failure(let error): throw .code(error)
        }
    }
}
