import Foundation
import RBSLedger
import RBSMoney

/// The sign step of a signing basket: several filled documents reviewed together — every document's amount and
/// payee, then the total per currency — and signed with ONE code (TOTP) or one response to the basket's challenge
/// (OCRA: the challenge derives from the basket id, so it covers the total and every payee). Each document is then
/// posted or rejected on its own (``Ledger/signAndPost(basket:code:request:expectedBasketId:)``). Nothing reaches
/// the journal or the core until `sign(code:)` succeeds.
public final class BasketModule {
    /// The documents, in review order (created-at, nonce and key id filled in).
    public let basket: Basket
    public let drafts: [DocumentDraft]
    /// What the core would decide for each document were the basket posted now, one after another
    /// (``EmbeddedBank/validate(batch:)``): `nil` for one it would post, else why it would refuse it. A basket
    /// with a refusal is still offered (each document stands on its own); one where every document would be
    /// refused is not (``allRefused``).
    public let refusals: [Rejection?]
    /// For each document, the posted entry of the last 24 hours it repeats (same payee, account, amount and purpose:
    /// ``Ledger/recentDuplicate(of:keyId:)``), or nil: a front end asks before signing it again (the REPL when the
    /// document is added, `basket sign` refuses unless `--confirm-duplicate`, the review names it).
    public let duplicates: [JournalEntry?]
    /// For each document, what it repeats — a posted payment (as ``duplicates``) or an earlier document of this
    /// basket — or nil (``Ledger/duplicates(of:)``): signing refuses unless the person confirmed the repeat.
    public let repeats: [DuplicateOf?]
    public let method: SigningMethod
    /// The basket's OCRA challenge (`nil` with TOTP).
    public let challenge: String?
    private let ledger: Ledger
    private let directory: BankDirectory?
    private let customer: CustomerCredentials?
    private let pending: PendingBasket?

    /// Builds the basket's documents from `drafts` and runs the core's checks on them in order.
    /// - Parameter customer: sign with this customer's key after their code (`serve`); nil: the host's key.
    /// - Parameter pending: the documents take that waiting basket's times and nonces (in order), so the same
    ///   fields give the same basket, and signing requires that it is that basket (`basket sign … --response`).
    public init(drafts: [DocumentDraft], ledger: Ledger, directory: BankDirectory?, customer: CustomerCredentials? = nil,
                answering pending: PendingBasket? = nil) throws(LedgerError) {
        self.drafts = drafts
        self.ledger = ledger
        self.directory = directory
        self.customer = customer
        self.pending = pending
        if let customer {
            guard customer.passkey == nil else {
                throw .code(.wrongMethod(enrolled: .passkey, detail: "this customer signs with their passkey, one document at a time; "
                    + "a basket is signed with a one-time code"))
            }
            method = .totp
        } else {
            method = try ledger.authenticator().method
        }
        if let pending, pending.documents.count != drafts.count {
            throw .code(.noPendingChallenge("a basket of \(drafts.count) documents (the waiting one has \(pending.documents.count))"))
        }
        var documents: [Document] = []
        for (index, draft) in drafts.enumerated() {
            let fields = draft.fields.map { DocumentField($0.key, $0.value) }
            if let customer {
                documents.append(try ledger.draft(operation: draft.operation, plugin: draft.plugin, pluginVersion: draft.pluginVersion,
                                                  fields: fields, keyId: customer.customer.keyId))
            } else if let pending {
                documents.append(try ledger.draft(operation: draft.operation, plugin: draft.plugin, pluginVersion: draft.pluginVersion,
                                                  fields: fields, like: pending.documents[index]))
            } else {
                documents.append(try ledger.draft(operation: draft.operation, plugin: draft.plugin, pluginVersion: draft.pluginVersion,
                                                  fields: fields))
            }
        }
        do { basket = try Basket(documents) } catch { throw .basket(error) }
        refusals = try ledger.bank.validate(batch: documents)
        repeats = try ledger.duplicates(of: documents)
        duplicates = repeats.map { if case .entry(let entry) = $0 { entry } else { nil } }
        challenge = customer == nil ? try ledger.challenge(for: basket) : nil
    }

    /// True when the core would refuse every document: the basket is not offered for signing.
    public var allRefused: Bool { refusals.allSatisfy { $0 != nil } }

    /// One document of the review: its lines (amount, payee, payee's INN, account and bank first, as a single
    /// document's review), when the core would refuse it now, why, and the posted entry it repeats.
    public struct ReviewedDocument: Sendable {
        public let position: Int
        public let operation: String
        public let lines: [SignModule.Line]
        public let refusal: Rejection?
        public let duplicate: JournalEntry?
    }

    /// Every document of the basket as the person reviews it, in order.
    public func documents(in language: HostLanguage) -> [ReviewedDocument] {
        drafts.enumerated().map { index, draft in
            ReviewedDocument(position: index + 1, operation: draft.operation,
                             lines: SignModule.fieldLines(draft, document: basket.documents[index], directory: directory,
                                                          language: language), refusal: refusals[index],
                             duplicate: duplicates[index])
        }
    }

    /// The basket's own lines after its documents: the total per currency (grouped), the basket id, the challenge
    /// (OCRA) and the signing method.
    public func summary(in language: HostLanguage) -> [SignModule.Line] {
        var lines = basket.totals.map { total in
            SignModule.Line(caption: HostMessage.basketTotal(documents: documentCount(in: total.currency)).text(language),
                            value: Amount.shown(total.amount, currency: total.currency, language), prominent: true)
        }
        lines.append(SignModule.Line(caption: HostMessage.basketId.text(language), value: basket.id, prominent: false))
        if let challenge {
            // After every amount and payee and the totals: the challenge is derived from exactly this basket.
            lines.append(SignModule.Line(caption: HostMessage.challenge.text(language), value: OCRASuite.grouped(challenge), prominent: true))
        }
        lines.append(SignModule.Line(caption: HostMessage.signedWith.text(language),
                                     value: HostMessage.basketSigningMethod(method).text(language), prominent: false))
        return lines
    }

    private func documentCount(in currency: String) -> Int {
        basket.documents.filter { Payment.of($0)?.amount.currency.code == currency }.count
    }

    /// Checks the one code (TOTP) or response (OCRA), signs the basket and every document, and posts or rejects
    /// each on its own — one transaction. Refused before the code is looked at when the core would now refuse
    /// every document. With `request`, a request id answered before returns the first outcomes.
    ///
    /// A document that repeats a payment posted in the last 24 hours or an earlier document of the basket is refused
    /// with ``LedgerError/unconfirmedDuplicate(_:)`` (asked now, not at the review) unless `confirmDuplicate`.
    public func sign(code: String, request: LedgerRequest? = nil, confirmDuplicate: Bool) throws(LedgerError) -> BasketOutcome {
        let now = try ledger.bank.validate(batch: basket.documents)
        if now.allSatisfy({ $0 != nil }), let first = now.compactMap({ $0 }).first { throw .wouldBeRejected(first) }
        if !confirmDuplicate {
            let retrying = try request.map { r throws(LedgerError) in try ledger.basketOutcome(of: r) != nil } ?? false
            try ledger.checkDuplicates(basket.documents, confirmed: false, retrying: retrying)
        }
        let forms = drafts.map(\.form)
        let outcome = if let customer {
            try ledger.signAndPost(basket: basket, code: code, as: customer, request: request, forms: forms)
        } else {
            try ledger.signAndPost(basket: basket, code: code, request: request, expectedBasketId: pending?.id, forms: forms)
        }
        if !outcome.repeated {
            for (document, each) in zip(basket.documents, outcome.outcomes) { VersionCount.record(each, of: document) }
        }
        return outcome
    }

    /// Records the basket as waiting for the response to its challenge (`basket sign … --challenge`).
    public func issueChallenge() throws(LedgerError) -> String {
        try ledger.issueChallenge(for: basket)
    }
}
