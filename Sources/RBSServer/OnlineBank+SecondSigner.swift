import Foundation
import RBSCore
import RBSLedger

extension OnlineBank {
    /// The documents of `customer`'s customer awaiting a second signature, oldest first; `canSign` is false for the
    /// ones this user signed first.
    func pending(for customer: Customer) async throws(Problem) -> [API.PendingDocument] {
        let ledger = self.ledger
        do {
            return try await Self.blocking {
                try ledger.pendingSecondSignatures(of: customer).map { pending in
                    let document = pending.document, payment = Payment.of(document)
                    return API.PendingDocument(
                        journal: pending.entry.sequence, documentHash: pending.entry.documentId,
                        signedAt: pending.signedAt, signedBy: pending.signedBy,
                        operation: document.operation, debit: pending.entry.debit, credit: pending.entry.credit,
                        amount: pending.entry.amount, currency: pending.entry.currency, fee: payment?.fee?.plain,
                        totalDebited: payment?.fee.map { _ in payment?.totalDebited.plain } ?? nil, payee: payment?.payee.name,
                        purpose: payment?.purpose, fields: Dictionary(document.fields.map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a }),
                        canSign: pending.entry.keyId != customer.keyId && pending.signedBy != customer.name,
                        duplicate: pending.duplicate?.sequence)
                }
            }
        } catch {
            throw Self.storageProblem("the journal could not be read", error)
        }
    }

    /// The second signature: `customer` (another user of the same customer) approves journal entry `entry` with
    /// their own code (`reason` nil) or declines it with `reason`. Rate-limited as signing is; answers the receipt.
    func decide(entry: Int64, code: String, reason: String?, confirmDuplicate: Bool = false, address: String,
                language: HostLanguage = .en, for customer: Customer) async throws(Problem) -> API.Receipt {
        let keys = Self.codeKeys(customer, address)
        try await checkCodeAttempts(keys)
        let ledger = self.ledger
        let outcome: Outcome
        do {
            outcome = try await Self.blocking {
                guard let credentials = try ledger.customers.credentials(named: customer.name), credentials.customer.id == customer.id else {
                    throw LedgerError.secondSignature(.notAwaiting(entry))
                }
                if let reason { return try ledger.decline(entry: entry, reason: reason, code: code, as: credentials) }
                return try ledger.approve(entry: entry, code: code, as: credentials, confirmedDuplicate: confirmDuplicate)
            }
        } catch let error as LedgerError {
            if case .secondSignature(let refusal) = error { throw Self.problem(refusal) }
            throw await codeProblem(error, keys: keys, language: language)
        } catch {
            throw .internalError("\(error)")
        }
        await clearAttempts(keys)
        return Self.receipt(of: outcome)
    }

    static func problem(_ refusal: SecondSignatureError) -> Problem {
        switch refusal {
        case .notAwaiting: Problem.notFound(refusal.description)
        case .alreadyDecided: Problem("already-decided", "Already approved or declined", status: 409, detail: refusal.description)
        case .sameSigner: Problem("same-signer", "You signed this document first", status: 403, detail: refusal.description)
        case .noReason: Problem("no-reason", "Say why you decline", status: 422, detail: refusal.description, atom: "reason")
        case .invalidThreshold: Problem("invalid-threshold", "The threshold is not accepted", status: 422, detail: refusal.description)
        }
    }
}
