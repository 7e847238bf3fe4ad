import Foundation
import RBSCore
import RBSLedger

/// Submitting a run for review and signing it: the review, the core's refusal before any code, the duplicate
/// question, the signing with the customer's key after their code, and the receipt.
extension OnlineBank {
    /// How a customer authorises the reviewed document.
    enum Authorisation: Sendable {
        /// A TOTP code: the host then signs with the key it keeps for the customer.
        case code(String)
        /// The customer's own signature: their passkey's WebAuthn assertion over the document's hash.
        case passkey(PasskeyAssertion)
    }

    /// Checks the form and builds the document; answers the review the customer signs.
    func submit(run id: String, language: HostLanguage = .en, for customer: Customer) async throws(Problem) -> API.Review {
        let run = try find(id, customer)
        let ledger = self.ledger
        let directory = runtime.locator.optional(BankDirectory.self)
        let party = relyingParty
        return try await onLane(run) { () throws(Problem) -> API.Review in
            let session = try Self.editable(run)
            session.language = language
            let draft: DocumentDraft
            switch session.submit() {
            case .ready(let ready): draft = ready
            case .needsAttention(let issues):
                throw Problem("needs-attention", "The form needs attention", status: 422,
                              detail: issues.map { ($0.atom.map { "\($0): " } ?? "") + $0.message }.joined(separator: "; "),
                              atom: issues.first?.atom, errors: issues.map { Problem.Issue(atom: $0.atom, message: $0.message) })
            case .failed(let why):
                throw Problem("refused", "The operation refused the document", status: 422, detail: why)
            }
            let credentials = try Self.credentials(of: customer, in: ledger)
            let sign: SignModule
            do throws(LedgerError) {
                sign = try SignModule(draft: draft, ledger: ledger, directory: directory, customer: credentials)
            } catch {
                throw Self.storageProblem("the document could not be prepared", error)
            }
            // The core's own check before any code is asked for: a document it would refuse is never offered.
            if let refusal = sign.refusal { throw Self.refusedProblem(refusal, language, draft: draft) }
            run.sign = sign
            run.set(.review)
            return Self.review(sign, passkey: credentials.passkey, party: party, language: language)
        }
    }

    /// The customer's request id (`requestId` of a signing), or nil; one the ledger refuses is a 422 problem.
    static func request(_ requestId: String?, of customer: Customer) throws(Problem) -> LedgerRequest? {
        do throws(LedgerError) {
            return try requestId.map { id throws(LedgerError) in try LedgerRequest(signer: customer, id: id) }
        } catch {
            throw Problem("invalid-request-id", "The request id is not accepted", status: 422, detail: error.description, atom: "requestId")
        }
    }

    /// What the host keeps to sign for `customer` (their key, code secret, passkey).
    static func credentials(of customer: Customer, in ledger: Ledger) throws(Problem) -> CustomerCredentials {
        do {
            guard let found = try ledger.customers.credentials(named: customer.name), found.customer.id == customer.id else {
                throw Problem.unauthorized
            }
            return found
        } catch let problem as Problem {
            throw problem
        } catch {
            throw Self.storageProblem("the customer could not be read", error)
        }
    }

    /// Checks the customer's code or passkey assertion and signs (with a code), journals and posts the reviewed
    /// document; answers the receipt. With `requestId`, a retry answers the first receipt and never posts twice.
    /// A document that repeats the customer's payment posted in the last 24 hours is answered 409 `duplicate`
    /// (naming that entry) before the code or passkey is looked at, unless `confirmDuplicate`. With `reviewed` (the
    /// review's document hash the client showed), a run reviewed again since is answered 409 `review-changed`.
    func sign(run id: String, with authorisation: Authorisation, requestId: String? = nil, confirmDuplicate: Bool = false,
              reviewed: String? = nil, address: String, language: HostLanguage = .en, for customer: Customer) async throws(Problem) -> API.Receipt {
        let run = try find(id, customer)
        let request = try Self.request(requestId, of: customer)
        // A retry sent while the first signing of the run is still under way (a client that timed out) waits for its
        // outcome, so it is answered as a retry after it would be — never "submit the run first", which would send
        // the client to pay again. Two requests that both find the run reviewed race for it: the one that loses
        // waits for the winner's outcome the same way.
        let keys = Self.codeKeys(customer, address)
        var waited = 0
        while true {
            while run.state == .signing, waited < Self.signingWait {
                try? await Task.sleep(for: .milliseconds(20))
                waited += 1
            }
            // A retry of a signing that went through (its answer lost) gets the same receipt.
            if let requestId, run.state == .signed, run.requestId == requestId, let receipt = run.receipt { return receipt }
            try await checkCodeAttempts(keys, language: language)
            if run.transition(from: .review, to: .signing) { break }
            if run.state == .signing, waited < Self.signingWait { continue }
            if run.state == .signed {
                throw Problem("already-signed", "The run is already signed", status: 409,
                              detail: "this run was signed and posted (journal entry \(run.receipt?.journal ?? 0)); open a new run")
            }
            if run.state == .signing {
                throw Problem("signing", "The run is being signed", status: 409,
                              detail: "another request is signing this run; its outcome will be at GET /api/v1/runs/\(id) "
                                  + "(or sign again with the same requestId)")
            }
            throw Problem("not-submitted", "Nothing to sign yet", status: 409,
                          detail: "submit the run first (POST /api/v1/runs/\(id)/submit), then sign its review", atom: nil)
        }
        signingStarted()
        defer { signingEnded() }
        let sign: SignStep? = try await onLane(run) { () throws(Problem) in run.sign.map(SignStep.init) }
        guard let sign else {
            run.set(.open)
            throw Problem("not-submitted", "Nothing to sign yet", status: 409, detail: "submit the run first")
        }
        // The duplicate rule is the core's (asked at signing: the same payment may have been posted since the review,
        // in another run): an unconfirmed repeat comes back as a 409 `duplicate` before the code is looked at.
        let outcome: Outcome
        let party = relyingParty
        let note = self.note
        let who = customer.name
        do {
            outcome = try await Self.blocking {
                switch authorisation {
                case .code(let code):
                    return try sign.module.sign(code: code, request: request, confirmDuplicate: confirmDuplicate, reviewed: reviewed)
                case .passkey(let assertion):
                    guard let party else { throw LedgerError.code(.storage("the server has no origin for passkeys yet")) }
                    return try sign.module.sign(assertion: assertion, relyingParty: party, request: request,
                                                confirmDuplicate: confirmDuplicate, reviewed: reviewed) {
                        note("rbs-host serve: passkey of customer \(who) refused: \($0.description)")
                    }
                }
            }
        } catch let error as LedgerError {
            run.set(.review)
            throw await codeProblem(error, keys: keys, language: language)
        } catch {
            run.set(.review)
            throw .internalError("\(error)")
        }
        await clearAttempts(keys)
        let receipt = Self.receipt(of: outcome)
        await finish(run, with: receipt, requestId: requestId)
        return receipt
    }

    /// The receipt of an outcome: `posted` (with the posting and the balance after), `rejected` (with the reason) or
    /// `awaiting-second-signature` (nothing posted yet).
    static func receipt(of outcome: Outcome) -> API.Receipt {
        switch outcome {
        case .posted(let posted):
            let posting = posted.posting
            return API.Receipt(status: "posted", journal: posted.sequence, documentHash: posted.documentId,
                               posting: API.Posting(debit: posting.debit, credit: posting.credit,
                                                    amount: posting.amount.plain,
                                                    currency: posting.amount.currency.code,
                                                    balanceAfter: Amount.text(posted.debitBalance, currency: posting.amount.currency.code),
                                                    fee: posting.fee?.amount.plain, feeAccount: posting.fee?.account,
                                                    totalDebited: posting.fee.map { _ in posting.totalDebited.plain }),
                               reason: nil)
        case .acknowledged(let document, let sequence):
            return API.Receipt(status: "posted", journal: sequence, documentHash: document, posting: nil, reason: nil)
        case .rejected(let document, let sequence, let reason):
            return API.Receipt(status: "rejected", journal: sequence, documentHash: document, posting: nil, reason: reason.message)
        case .awaiting(let document, let sequence):
            return API.Receipt(status: JournalEntry.Kind.awaiting.rawValue, journal: sequence, documentHash: document,
                               posting: nil, reason: nil)
        }
    }

    /// How many 20-ms turns a signing waits for another request's signing of the same run to end (30 s: a statement's
    /// deadline on PostgreSQL).
    static let signingWait = 1_500

    func signingStarted() { signingLock.withLock { signingsInFlight += 1 } }

    func signingEnded() { signingLock.withLock { signingsInFlight -= 1 } }

    /// The core's refusal before any code, in `language`; a refusal about the amount (insufficient funds, too many
    /// decimals, not positive) names the atom of `draft` the amount came from, so the page shows it at that field.
    static func refusedProblem(_ refusal: Rejection, _ language: HostLanguage = .en, draft: DocumentDraft? = nil) -> Problem {
        let aboutAmount: Set<Rejection.Code> = [.insufficientFunds, .amountNotPositive, .tooManyDecimals]
        let atom = aboutAmount.contains(refusal.code) ? draft.flatMap { draft in
            draft.fields.lazy.compactMap { field in
                let presentation = draft.presentation(of: field.key)
                return presentation.role == .amount ? presentation.atom?.id : nil
            }.first
        } : nil
        return Problem("would-be-rejected", "The bank would refuse this document", status: 422,
                       detail: HostMessage.wouldRefuse(refusal, language), atom: atom)
    }

    private static func review(_ sign: SignModule, passkey: Passkey?, party: RelyingParty?, language: HostLanguage) -> API.Review {
        // The typed payment the signed document makes (nil for a document that moves no money, or one the core
        // refuses: the review's lines then say why).
        let payment = Payment.of(sign.document)
        return API.Review(fields: sign.review(in: language).map {
                              API.ReviewLine(caption: $0.caption, value: $0.value, prominent: $0.prominent, atom: $0.atom)
                          },
                          amount: payment?.amount.plain, currency: payment?.amount.currency.code,
                          fee: payment?.fee?.plain, totalDebited: payment?.fee.map { _ in payment?.totalDebited.plain } ?? nil, payee: payment?.payee.name,
                          heading: payment == nil ? DocumentPresentation.heading(sign.document.fields.map { (key: $0.key, value: $0.value) },
                                                                                 language: language) : nil,
                          documentHash: sign.document.id, method: sign.method.rawValue,
                          passkey: sign.method == .passkey ? passkey.flatMap { key in
                              party.map {
                                  API.PasskeyRequest(challenge: PasskeyAssertion.challenge(forDocumentId: sign.document.id), rpId: $0.id,
                                                     credentialIds: [Base64URL.encode(key.credentialId)], userVerification: "required")
                              }
                          } : nil,
                          duplicate: sign.duplicate.map { duplicate($0, language) })
    }

    /// The earlier posted entry a document repeats, as the API shows it.
    static func duplicate(_ entry: JournalEntry, _ language: HostLanguage = .en) -> API.Duplicate {
        let payment = Payment.of(try? CanonicalEncoding.decode(entry.document))
        return API.Duplicate(journal: entry.sequence, postedAt: iso(milliseconds: entry.recordedAtMilliseconds),
                             status: entry.kind.rawValue, amount: entry.amount, currency: entry.currency, payee: payment?.payee.name, account: entry.credit,
                             purpose: payment?.purpose, message: SignModule.duplicateNotice(entry, language))
    }

    /// The core's refusal of an unconfirmed repeat: 409 `duplicate`, naming what it repeats (a posted entry, or an
    /// earlier document of the same basket); nothing was signed and no code was looked at.
    /// With `repeating` (the document that repeats, in a basket's review), a repeat of a document of the same basket
    /// names the payment too: it is the same payment, by the rule that found it.
    static func duplicateProblem(_ found: Duplicate, repeating: Document? = nil, language: HostLanguage = .en) -> Problem {
        var duplicate: API.Duplicate
        switch found.of {
        case .entry(let entry):
            duplicate = Self.duplicate(entry, language)
        case .document(let earlier):
            let payment = repeating.flatMap(Payment.of)
            duplicate = API.Duplicate(journal: nil, postedAt: nil, amount: payment?.amount.plain, currency: payment?.amount.currency.code,
                                      payee: payment?.payee.name, account: payment?.creditAccount, purpose: payment?.purpose,
                                      message: SignModule.repeatNotice(found.of, language))
            duplicate.document = earlier
        }
        duplicate.position = found.position
        let title = found.position == nil ? "This payment repeats an earlier one" : "A payment of the basket repeats an earlier one"
        var problem = Problem("duplicate", title, status: 409,
                              detail: (found.position.map { language.pick("document \($0): ", "документ \($0): ") } ?? "") + duplicate.message
                                  + language.pick("; nothing was signed — to send it again, sign with confirmDuplicate: true",
                                                  "; ничего не подписано — чтобы отправить его всё же, подпишите с confirmDuplicate: true"))
        problem.duplicate = duplicate
        return problem
    }
}

/// A prepared sign step handed from the plugin's lane to the signing thread: everything in it is immutable (the
/// draft, the document, the ledger, the customer), and only one signing of a run runs at a time.
struct SignStep: @unchecked Sendable {
    let module: SignModule
}
