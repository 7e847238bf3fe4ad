import Foundation
import RBSLedger
import RBSMoney

/// The sign step (seed 000's `showSignVC`: signing is itself an operation made of atoms): the document for review
/// with amount, currency and payee prominent, then the one-time code, then the signature. Nothing reaches the
/// journal or the core until `sign(code:)` succeeds; dropping the module cancels with nothing written.
public final class SignModule {
    /// One line of the review.
    public struct Line: Equatable, Sendable {
        public var caption: String
        public var value: String
        /// Amount, currency and payee: what the person must check before signing.
        public var prominent: Bool
        /// The form's atom the value came from, when one did: where a "change" link of the review leads back to.
        public var atom: String? = nil
    }

    public let draft: DocumentDraft
    /// The document that will be signed (created-at, nonce and key id filled in).
    public let document: Document
    private let ledger: Ledger
    private let directory: BankDirectory?
    /// The customer who signs (`rbs-host serve`), or nil for the host's own key (`rbs-host keys`).
    private let customer: CustomerCredentials?

    /// Why the core would refuse ``document`` now (the core's own check, ``EmbeddedBank/validate(_:)``), or nil. A
    /// document with a refusal is never offered for signing: no code is asked for.
    public let refusal: Rejection?

    /// The posted entry of the last 24 hours this document repeats (same payee, account, amount and purpose:
    /// ``Ledger/recentDuplicate(of:keyId:)``), or nil. A front end asks before signing it again: the REPL a yes/no
    /// question, `run` refuses unless `--confirm-duplicate`.
    public let duplicate: JournalEntry?

    /// The signing method: the enrolled one (TOTP or OCRA) for the host's key; for a customer of `serve`, their
    /// passkey when they registered one, TOTP otherwise.
    public let method: SigningMethod
    /// The OCRA challenge derived from ``document`` (`nil` with TOTP, whose code does not depend on the document).
    public let challenge: String?
    /// The challenge this document answers when it was rebuilt for `run … --response`.
    private let pending: PendingChallenge?

    /// Prepares the document for `draft` and runs every check the core will run when it is posted (required
    /// fields, currency, amount, blocked or unknown accounts, balance). Fails when there are no keys yet (run
    /// `rbs-host keys init`).
    /// - Parameter customer: sign with this customer's key after their code (`serve`); nil: the host's key.
    /// - Parameter pending: the document takes that waiting challenge's time and nonce, so the same fields give the
    ///   same document, and signing requires that it is that document (`run … --response`).
    public init(draft: DocumentDraft, ledger: Ledger, directory: BankDirectory?,
                customer: CustomerCredentials? = nil, answering pending: PendingChallenge? = nil) throws(LedgerError) {
        self.draft = draft
        self.ledger = ledger
        self.directory = directory
        self.customer = customer
        self.pending = pending
        let fields = draft.fields.map { DocumentField($0.key, $0.value) }
        if let customer {
            // A customer with a passkey signs on their own device: the document names the passkey's key.
            document = try ledger.draft(operation: draft.operation, plugin: draft.plugin, pluginVersion: draft.pluginVersion,
                                        fields: fields, keyId: customer.passkey?.key.keyId ?? customer.customer.keyId)
        } else if let pending {
            document = try ledger.draft(operation: draft.operation, plugin: draft.plugin, pluginVersion: draft.pluginVersion,
                                        fields: fields, answering: pending)
        } else {
            document = try ledger.draft(operation: draft.operation, plugin: draft.plugin, pluginVersion: draft.pluginVersion,
                                        fields: fields)
        }
        refusal = try ledger.bank.validate(document)
        duplicate = try ledger.recentDuplicate(of: document, keyId: document.keyId)
        // Customers of `serve` sign with their passkey when they registered one, else with TOTP (their own secret);
        // the host's key with the enrolled method.
        if let customer {
            method = customer.passkey == nil ? .totp : .passkey
        } else {
            method = try ledger.authenticator().method
        }
        challenge = customer == nil ? try ledger.challenge(for: document) : nil
    }

    /// The atoms of the sign module: review lines, then the code. The amount (grouped, with its currency), the
    /// payee, the payee's tax id, account and bank come first, then the debit account, card numbers (masked) and
    /// the purpose; then every other field in the order the plugin put it, under its label (`rbs.document-labels/1`,
    /// else the caption of the atom it came from, else its key), an enum's value as its option's title. Every
    /// non-empty field of the document is shown: what is signed is what was seen.
    public var review: [Line] { review(in: .en) }

    /// The review in `language`: the host's captions and formats in it (amounts grouped as its readers write them,
    /// dates as ДД.ММ.ГГГГ in Russian), the plugin's labels as the plugin wrote them.
    public func review(in language: HostLanguage) -> [Line] {
        var lines = Self.fieldLines(draft, document: document, directory: directory, language: language)
        lines.append(Line(caption: HostMessage.document.text(language), value: document.id, prominent: false))
        if let challenge {
            // With the amount and payee above: the challenge is derived from exactly this document.
            lines.append(Line(caption: HostMessage.challenge.text(language), value: OCRASuite.grouped(challenge), prominent: true))
        }
        lines.append(Line(caption: HostMessage.signedWith.text(language), value: HostMessage.signingMethod(method).text(language),
                          prominent: false))
        return lines
    }

    /// The review's lines for the fields of `draft` (see ``review``): what a basket's review shows for each of its
    /// documents too. One presentation for every front end: ``DocumentPresentation``.
    /// The fields the core added to the draft's (a conversion's rate and credited amount, ``Conversion``) are
    /// taken from `document`, the one that is signed.
    static func fieldLines(_ draft: DocumentDraft, document: Document, directory: BankDirectory?, language: HostLanguage) -> [Line] {
        let added = document.fields.filter { field in Conversion.Key.all.contains(field.key) && !draft.fields.contains { $0.key == field.key } }
        return DocumentPresentation.rows(draft.fields + added.map { (key: $0.key, value: $0.value) }, presentation: draft.presentation(of:),
                                         directory: directory, language: language)
            .map { Line(caption: $0.label, value: $0.value, prominent: $0.prominent,
                        atom: $0.field.flatMap { draft.presentation(of: $0).atom?.id }) }
    }

    /// What the person saw is what is signed: `reviewed`, the document id (hash) of the review they authorise, must be
    /// this module's document — a front end that shows a review and signs later (the web client, an API client) passes
    /// the hash it showed, and a review made again since (another window changed the form) is refused before the code
    /// or passkey is looked at. nil: the front end signs in the same step that showed the review (the REPL, `run`).
    public func checkReviewed(_ reviewed: String?) throws(LedgerError) {
        guard let reviewed, reviewed != document.id else { return }
        throw .reviewChanged(reviewed: reviewed, current: document.id)
    }

    /// Checks the one-time code (TOTP) or the response to the challenge (OCRA), signs, journals and submits to the core — one transaction. The core's check is
    /// run again first (the balance may have moved since the review): a document it would refuse is refused
    /// with ``LedgerError/wouldBeRejected(_:)`` before the code is looked at.
    /// With `request`, a request id already journaled returns its first outcome and nothing is posted again.
    ///
    /// A payment that repeats one the signer posted in the last 24 hours is refused with
    /// ``LedgerError/unconfirmedDuplicate(_:)`` before the code is looked at, unless the person `confirmDuplicate`d it.
    public func sign(code: String, request: LedgerRequest? = nil, confirmDuplicate: Bool,
                     reviewed: String? = nil) throws(LedgerError) -> Outcome {
        try checkReviewed(reviewed)
        try checkWithCore()
        try checkDuplicate(confirmed: confirmDuplicate, request: request)
        if method == .passkey {
            throw .code(.wrongMethod(enrolled: .passkey, detail: "this customer signs with their passkey; a one-time code does not sign for them"))
        }
        let outcome = if let customer {
            try ledger.signAndPost(document, code: code, as: customer, request: request, form: draft.form)
        } else {
            try ledger.signAndPost(document, code: code, request: request, expectedDocumentId: pending?.document.id,
                                   form: draft.form)
        }
        VersionCount.record(outcome, of: document)
        return outcome
    }

    /// The core's check of the document as it would post it now; a refusal counts against the plugin version
    /// that made the document (`plugin rollout status`).
    private func checkWithCore() throws(LedgerError) {
        if let refusal = try ledger.bank.validate(document) {
            PluginVersionCounters.shared.refused(VersionCount.version(of: document))
            throw .wouldBeRejected(refusal)
        }
    }

    /// Posts the document signed by the customer's passkey (``method`` is ``SigningMethod/passkey``): `assertion`
    /// answers the WebAuthn challenge that is ``document``'s id. The core's check runs again first, as for a code.
    /// See ``Ledger/signAndPost(_:assertion:as:relyingParty:request:form:onRefusal:)``.
    public func sign(assertion: PasskeyAssertion, relyingParty: RelyingParty, request: LedgerRequest? = nil, confirmDuplicate: Bool,
                     reviewed: String? = nil, onRefusal: (PasskeyError) -> Void = { _ in }) throws(LedgerError) -> Outcome {
        try checkReviewed(reviewed)
        try checkWithCore()
        try checkDuplicate(confirmed: confirmDuplicate, request: request)
        guard let customer, method == .passkey else {
            throw .code(.wrongMethod(enrolled: method, detail: "only a customer with a registered passkey signs with one; use the one-time code"))
        }
        let outcome = try ledger.signAndPost(document, assertion: assertion, as: customer, relyingParty: relyingParty,
                                             request: request, form: draft.form, onRefusal: onRefusal)
        VersionCount.record(outcome, of: document)
        return outcome
    }

    /// The core's duplicate rule, asked at signing (a payment may have been posted since the review); a retry of a
    /// request id journaled before is no new payment.
    private func checkDuplicate(confirmed: Bool, request: LedgerRequest?) throws(LedgerError) {
        guard !confirmed else { return }
        let retrying = try request.map { r throws(LedgerError) in try ledger.outcome(of: r) != nil } ?? false
        try ledger.checkDuplicates([document], confirmed: false, retrying: retrying)
    }

    /// What the person is asked about a ``duplicate``: which entry it repeats and when that was posted.
    public static func duplicateNotice(_ entry: JournalEntry, _ language: HostLanguage = .en) -> String {
        HostMessage.report(.duplicateNotice(entry: entry.sequence, postedAt: EntryReport.time(entry.recordedAtMilliseconds),
                                            awaiting: entry.kind == .awaiting)).text(language)
    }

    /// What the person is told a document repeats: a posted payment (``duplicateNotice(_:_:)``) or an earlier
    /// document of the same basket.
    public static func repeatNotice(_ of: DuplicateOf, _ language: HostLanguage = .en) -> String {
        switch of {
        case .entry(let entry): duplicateNotice(entry, language)
        case .document(let earlier):
            language.pick("this payment repeats document \(earlier) of this basket: the same payee, account, amount and purpose",
                          "этот платёж повторяет документ \(earlier) этой корзины: тот же получатель, счёт, сумма и назначение")
        }
    }

    /// Records this document as waiting for the response to its challenge (`run … --challenge`).
    public func issueChallenge() throws(LedgerError) -> String {
        try ledger.issueChallenge(for: document)
    }

    /// What follows a failed signing attempt.
    public enum NextStep: Equatable, Sendable {
        /// Ask for the code again (the error says how many attempts are left).
        case retry
        /// Leave the sign step (back to the form).
        case leave
    }

    /// What a failed signing attempt leads to, decided from the typed error, never from its text: a wrong,
    /// malformed or already used code asks again while attempts are left; a lock-out, or anything that is not
    /// about the code, leaves the sign step.
    public static func afterFailure(_ error: LedgerError) -> NextStep {
        guard case .code(let codeError) = error else { return .leave }
        switch codeError {
        case .wrong(let left), .malformed(let left), .wrongResponse(let left), .malformedResponse(_, let left), .wrongPasskey(let left):
            return left > 0 ? .retry : .leave
        case .replayed: return .retry
        case .locked, .storage, .challengeUsed, .noPendingChallenge, .challengeExpired, .wrongMethod: return .leave
        }
    }
}
