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
        var lines = Self.fieldLines(draft, directory: directory, language: language)
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
    /// documents too.
    static func fieldLines(_ draft: DocumentDraft, directory: BankDirectory?, language: HostLanguage) -> [Line] {
        var lines: [Line] = []
        var shown: Set<String> = []
        /// The first non-empty field with `role`.
        func field(_ role: DocumentFieldRole) -> (key: String, value: String)? {
            draft.fields.first { draft.presentation(of: $0.key).role == role && !$0.value.isEmpty }
        }
        if let amount = field(.amount) {
            let currency = field(.currency)
            lines.append(Line(caption: Self.caption(.amount, language),
                              value: Amount.shown(amount.value, currency: currency?.value ?? "", language), prominent: true,
                              atom: draft.presentation(of: amount.key).atom?.id))
            shown.insert(amount.key)
            if let currency { shown.insert(currency.key) }
        }
        for role in [DocumentFieldRole.payee, .payeeTaxID, .payeeAccount, .payeeBank, .debitAccount] {
            for (key, value) in draft.fields where !value.isEmpty && !shown.contains(key)
                && draft.presentation(of: key).role == role {
                var text = CardNumberMask.masked(value)
                if role == .payeeBank {
                    let bic = HostMessage.bic.text(language)
                    text = directory?.bank(bic: value).map { "\($0.name), \(bic) \(value)" } ?? "\(bic) \(value)"
                }
                lines.append(Line(caption: Self.caption(role, language), value: text, prominent: role != .debitAccount,
                                  atom: draft.presentation(of: key).atom?.id))
                shown.insert(key)
            }
        }
        for role in [DocumentFieldRole.cardNumber, .purpose, .other, .currency] {
            for (key, value) in draft.fields where !value.isEmpty && !shown.contains(key)
                && draft.presentation(of: key).role == role {
                let presentation = draft.presentation(of: key)
                let caption = role == .cardNumber || role == .purpose ? Self.caption(role, language) : presentation.label
                lines.append(Line(caption: caption, value: Self.shown(value, presentation, language), prominent: role == .cardNumber,
                                  atom: presentation.atom?.id))
                shown.insert(key)
            }
        }
        return lines
    }

    /// The host's caption for a role's line of the review.
    static func caption(_ role: DocumentFieldRole, _ language: HostLanguage) -> String {
        let message: HostMessage = switch role {
        case .amount: .amount
        case .currency: .currency
        case .payee: .payee
        case .payeeTaxID: .payeeTaxID
        case .payeeAccount: .payeeAccount
        case .payeeBank: .bank
        case .debitAccount: .debitAccount
        case .cardNumber: .card
        case .purpose: .purpose
        case .other: .document  // never asked: a field of another role is headed by its own label
        }
        return message.text(language)
    }

    /// A field's value as a person reads it: an enum's option title, yes/no for a toggle, card numbers masked.
    static func shown(_ value: String, _ presentation: FieldPresentation, _ language: HostLanguage = .en) -> String {
        if presentation.role == .cardNumber {
            let digits = value.filter { $0.isASCII && $0.isNumber }
            return digits.count > 10 && !value.contains("*") ? CardNumberMask.mask(String(digits)) : value
        }
        guard let atom = presentation.atom else { return CardNumberMask.masked(value) }
        switch atom.kind {
        case .enumeration:
            return atom.options.first { $0.value == value }?.title ?? CardNumberMask.masked(value)
        case .toggle:
            return ["yes", "true", "1"].contains(value.lowercased()) ? HostMessage.yes.text(language)
                : ["no", "false", "0"].contains(value.lowercased()) ? HostMessage.no.text(language) : value
        case .input where atom.inputType == .date:
            return language == .ru ? HostMessage.date(iso: value) : value
        default:
            return CardNumberMask.masked(value)
        }
    }

    /// Checks the one-time code (TOTP) or the response to the challenge (OCRA), signs, journals and submits to the core — one transaction. The core's check is
    /// run again first (the balance may have moved since the review): a document it would refuse is refused
    /// with ``LedgerError/wouldBeRejected(_:)`` before the code is looked at.
    /// With `request`, a request id already journaled returns its first outcome and nothing is posted again.
    public func sign(code: String, request: LedgerRequest? = nil) throws(LedgerError) -> Outcome {
        if let refusal = try ledger.bank.validate(document) { throw .wouldBeRejected(refusal) }
        if method == .passkey {
            throw .code(.wrongMethod(enrolled: .passkey, detail: "this customer signs with their passkey; a one-time code does not sign for them"))
        }
        if let customer { return try ledger.signAndPost(document, code: code, as: customer, request: request, form: draft.form) }
        return try ledger.signAndPost(document, code: code, request: request, expectedDocumentId: pending?.document.id,
                                      form: draft.form)
    }

    /// Posts the document signed by the customer's passkey (``method`` is ``SigningMethod/passkey``): `assertion`
    /// answers the WebAuthn challenge that is ``document``'s id. The core's check runs again first, as for a code.
    /// See ``Ledger/signAndPost(_:assertion:as:relyingParty:request:form:onRefusal:)``.
    public func sign(assertion: PasskeyAssertion, relyingParty: RelyingParty, request: LedgerRequest? = nil,
                     onRefusal: (PasskeyError) -> Void = { _ in }) throws(LedgerError) -> Outcome {
        if let refusal = try ledger.bank.validate(document) { throw .wouldBeRejected(refusal) }
        guard let customer, method == .passkey else {
            throw .code(.wrongMethod(enrolled: method, detail: "only a customer with a registered passkey signs with one; use the one-time code"))
        }
        return try ledger.signAndPost(document, assertion: assertion, as: customer, relyingParty: relyingParty,
                                      request: request, form: draft.form, onRefusal: onRefusal)
    }

    /// What the person is asked about a ``duplicate``: which entry it repeats and when that was posted.
    public static func duplicateNotice(_ entry: JournalEntry) -> String {
        "this payment repeats journal entry \(entry.sequence), posted \(EntryReport.time(entry.recordedAtMilliseconds)): "
            + "the same payee, account, amount and purpose within 24 hours"
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
