import ArgumentParser
import Foundation
import RBSCore
import RBSLedger
import RBSMoney

/// `run --json`: what became of a non-interactive run.
struct RunReport: Encodable {
    struct DocumentJSON: Encodable {
        var id: String
        var operation: String
        var plugin: String
        var pluginVersion: String
        var createdAt: String
        var keyId: String
        var fields: [String: String]
    }

    struct PostingJSON: Encodable {
        var debit: String
        var credit: String
        var amount: String
        var currency: String
        var balanceAfter: String
        /// The fee posted with the amount, the bank's fee income account it went to and the amount plus the fee:
        /// the same keys as the web API's receipt, absent when the document carried no fee.
        var fee: String? = nil
        var feeAccount: String? = nil
        var totalDebited: String? = nil
    }

    /// What became of the run; `run --json` writes the raw value. Exit 0 only when posted. `unknown` is
    /// `journal --request-id`'s answer for a request id that was never journaled (nothing was posted for it).
    enum Status: String, Encodable {
        case posted, rejected, invalid, unknown
        /// Signed by one user of a customer with a second signer: nothing posted yet.
        case awaiting = "awaiting-second-signature"
    }

    var status: Status
    var journal: Int64?
    var document: DocumentJSON?
    var errors: [AtomIssue]
    var posting: PostingJSON?
    /// The journal's kind of the outcome, for the word people read (``HostMessage/status(_:)``): a card block is
    /// `posted` in the JSON (its contract) and `accepted` on screen, as in `journal` and its receipt.
    var kind: JournalEntry.Kind?
    /// The caption of each atom an error names, in the person's language: the text names fields as the person
    /// knows them, the JSON by `atom` (its message unchanged).
    var captions: [String: String] = [:]

    private enum CodingKeys: String, CodingKey { case status, journal, document, errors, posting }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(status, forKey: .status)
        try container.encode(journal, forKey: .journal)
        try container.encode(document, forKey: .document)
        try container.encode(errors, forKey: .errors)
        try container.encodeIfPresent(posting, forKey: .posting)
    }

    static func document(_ document: Document) -> DocumentJSON {
        DocumentJSON(id: document.id, operation: document.operation, plugin: document.plugin,
                     pluginVersion: document.pluginVersion,
                     createdAt: ISO8601DateFormatter().string(from: document.createdAt), keyId: document.keyId,
                     fields: Dictionary(document.fields.map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a }))
    }
}

extension RunReport {
    /// The report of a journaled outcome (a run's, or a request id's first one).
    /// - Parameter language: the core's reason for a rejection is said in it (as every message of `run` is).
    init(outcome: Outcome, document: Document, language: HostLanguage = .en) {
        let json = Self.document(document)
        switch outcome {
        case .posted(let receipt):
            let posting = receipt.posting
            self.init(status: .posted, journal: receipt.sequence, document: json, errors: [],
                      posting: .init(debit: posting.debit, credit: posting.credit,
                                     amount: posting.amount.plain,
                                     currency: posting.amount.currency.code,
                                     balanceAfter: Amount.text(receipt.debitBalance, currency: posting.amount.currency.code),
                                     fee: posting.fee?.amount.plain, feeAccount: posting.fee?.account,
                                     totalDebited: posting.fee.map { _ in posting.totalDebited.plain }))
        case .acknowledged(_, let sequence):
            self.init(status: .posted, journal: sequence, document: json, errors: [], kind: .acknowledged)
        case .rejected(_, let sequence, let reason):
            self.init(status: .rejected, journal: sequence, document: json, errors: [AtomIssue(atom: nil, message: HostMessage.describe(reason, language))])
        case .awaiting(_, let sequence):
            self.init(status: .awaiting, journal: sequence, document: json, errors: [])
        }
    }

    /// What a request id's first run became (`journal --request-id`, a retried `run --request-id`), or `nil`
    /// when it was never journaled. Throws when the entry's document cannot be read back.
    static func first(of request: LedgerRequest, in ledger: Ledger) throws -> RunReport? {
        guard let (outcome, entry) = try ledger.outcome(of: request) else { return nil }
        return RunReport(outcome: outcome, document: try CanonicalEncoding.decode(entry.document))
    }
}

/// `run --challenge --json`: the OCRA challenge of the document, which nothing has posted yet.
struct ChallengeReport: Encodable {
    var challenge: String
    var document: RunReport.DocumentJSON
}

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run", abstract: "Fill an operation's form, submit it, sign it with a one-time code and post it.",
        discussion: """
            Exit 0 only when the document was posted (or, with --challenge, when the challenge was issued).
            TOTP: --code CODE. OCRA (dynamic linking): --challenge prints the challenge of the document and posts
            nothing; then the same --set values with --response R post it when R answers that challenge (within
            5 minutes). A changed amount, payee account or payee name gives another document, which R does not answer.
            """)

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The operation id (see `list`), or @NAME for a template; none with --qr or --qr-image.") var operation: String?
    @Option(help: ArgumentHelp("A payment QR code's text (ГОСТ Р 56042-2014, ST0001…): opens the budget payment when it carries budget fields, else the payment order, prefilled; --set values go over its values.",
                               valueName: "TEXT"))
    var qr: String?
    @Option(name: .customLong("qr-image"),
            help: ArgumentHelp("A picture of a payment QR code, read with ZBar (zbarimg); as --qr.", valueName: "FILE"))
    var qrImage: String?
    @OptionGroup var signing: RunOptions

    func validate() throws {
        guard [operation != nil, qr != nil, qrImage != nil].filter({ $0 }).count == 1 else {
            throw ValidationError("give one of OPERATION, --qr TEXT or --qr-image FILE")
        }
    }

    func run() throws {
        if let operation {
            let source: RunOptions.Source = operation.hasPrefix("@") ? .template(String(operation.dropFirst())) : .operation(operation)
            try signing.perform(source, global: global, shownAs: "run \(operation)")
            return
        }
        let code: PaymentQR
        if let qr {
            do throws(PaymentQRError) { code = try PaymentQR.parse(text: qr) } catch {
                Terminal.error("--qr: " + HostMessage.describe(error, global.language))
                throw ExitCode.failure
            }
        } else {
            do throws(QRImageError) { code = try QRImageReader().paymentQR(ofImageAt: qrImage ?? "") } catch {
                Terminal.error("--qr-image: " + HostMessage.describe(error, global.language))
                throw ExitCode.failure
            }
        }
        let prefill = PaymentQRPrefill(code)
        // What no atom takes is said, never dropped silently: the person reads it beside the report.
        if let shown = HostMessage.paymentQRShownOnly(prefill.shownOnly, global.language) { Terminal.note(shown) }
        try signing.perform(.paymentQR(prefill), global: global,
                            shownAs: qr != nil ? "run --qr TEXT" : "run --qr-image \(qrImage ?? "")")
    }
}

/// `rbs-host repeat N`: `run` on the operation of journal entry N, prefilled with the values entered then.
struct RepeatCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "repeat", abstract: "Run the operation of journal entry N again, prefilled with the values entered then.",
        discussion: """
            The --set values go over the recorded ones. A recorded value whose atom the plugin's current version no
            longer has is named on standard error as dropped. Signing is as for `run` (--code, or OCRA's
            --challenge/--response); the same payment within 24 hours needs --confirm-duplicate.
            """)

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The journal entry's number (see `journal`).") var entry: Int64
    @OptionGroup var signing: RunOptions

    func validate() throws {
        guard entry >= 1 else { throw ValidationError("N is a journal entry's number, 1 or more (see `rbs-host journal`)") }
    }

    func run() throws {
        try signing.perform(.entry(entry), global: global, shownAs: "repeat \(entry)")
    }
}

/// What `run` and `repeat` share: the values, the signing and the report.
struct RunOptions: ParsableArguments {
    @Option(name: .customLong("set"), help: ArgumentHelp(
        "Commit VALUE to atom ID. An enum takes its option's value or title; an account picker its list number or the account number; a date ДД.ММ.ГГГГ or YYYY-MM-DD.",
        valueName: "ID=VALUE"))
    var assignments: [String] = []
    @Option(help: "TOTP: the 6-digit one-time code from the authenticator app.") var code: String?
    @Flag(help: "OCRA: print the document's challenge ({challenge, document} with --json) and post nothing.")
    var challenge = false
    @Option(help: "OCRA: the authenticator's response to the challenge --challenge printed; posts the document.")
    var response: String?
    @Option(name: .customLong("document"),
            help: "With --response: the document id --challenge printed (default: the latest challenge for this operation).")
    var documentId: String?
    @Option(name: .customLong("request-id"),
            help: ArgumentHelp("Post at most once for ID: a retry with the same ID returns the first outcome.", valueName: "ID"))
    var requestId: String?
    @Flag(name: .customLong("confirm-duplicate"),
          help: "Post even when the same payee, account, amount and purpose was posted in the last 24 hours.")
    var confirmDuplicate = false
    @Option(name: .customLong("as"), help: ArgumentHelp(
        "Sign as USER, a user of a customer of `serve` (their key after their one-time code, their customer's accounts and second signer).",
        valueName: "USER"))
    var user: String?
    @Flag(help: "Print {status, journal, document, errors}.") var json = false

    /// Where the form's operation and first values come from.
    enum Source {
        case operation(String)
        /// `run @NAME`: a template's operation and values.
        case template(String)
        /// `repeat N`: journal entry N's operation and the values entered then.
        case entry(Int64)
        /// `run --qr`: the operation a payment QR code opens and its values.
        case paymentQR(PaymentQRPrefill)
    }

    func validate() throws {
        guard [code != nil, challenge, response != nil].filter({ $0 }).count == 1 else {
            throw ValidationError("give one of --code CODE (TOTP), --challenge or --response R (OCRA)")
        }
        if documentId != nil, response == nil { throw ValidationError("--document goes with --response") }
        if user != nil, code == nil { throw ValidationError("--as USER signs with that user's one-time code: give --code CODE") }
    }

    /// Fills, signs and posts; prints the report. `shown` is the command ("run OP", "repeat N") the challenge's
    /// instructions repeat.
    func perform(_ source: Source, global: GlobalOptions, shownAs shown: String) throws {
        let parsed = try assignments.map(Assignment.init(parsing:))
        let runtime = try global.makeRuntime(runs: true)
        Listing.printFailures(runtime.registry, language: global.language)
        let report = execute(source, runtime: runtime, assignments: parsed, language: global.language)
        if case .challenge(let issued, let module) = report {
            if json {
                JSONOutput.print(issued)
            } else {
                print(RunText.render(challenge: issued, review: module.review(in: global.language), command: shown, language: global.language))
            }
            return
        }
        guard case .run(let report) = report else { return }
        if json {
            JSONOutput.print(report)
        } else {
            print(RunText.render(report, language: global.language))
        }
        if report.status != .posted && report.status != .awaiting { throw ExitCode.failure }
    }

    private enum Execution {
        case run(RunReport)
        case challenge(ChallengeReport, SignModule)
    }

    private func execute(_ source: Source, runtime: Runtime, assignments: [Assignment], language: HostLanguage) -> Execution {
        func invalid(_ issues: [AtomIssue]) -> Execution {
            .run(RunReport(status: .invalid, journal: nil, document: nil, errors: issues))
        }
        // A missing, replaced or damaged ledger is said as itself, before any form is filled.
        let ledger: Ledger
        do { ledger = try runtime.ledger() } catch { return invalid([AtomIssue(atom: nil, message: error.description)]) }
        // --as USER: that user signs, from their customer's accounts only.
        var signer: CustomerCredentials?
        if let user {
            do {
                guard let found = try ledger.customers.credentials(named: user) else { throw CustomerError.unknown(user) }
                signer = found
                runtime.party = .customer(found.customer.holderId)
            } catch {
                return invalid([AtomIssue(atom: nil, message: HostMessage.describe(any: error, language))])
            }
        }
        // A request id journaled before answers with its first outcome: nothing is filled, signed or posted again.
        var request: LedgerRequest?
        if let requestId {
            do {
                request = try LedgerRequest(signer: signer?.customer, id: requestId)
                if let request, let first = try RunReport.first(of: request, in: ledger) { return .run(first) }
            } catch {
                return invalid([AtomIssue(atom: nil, message: HostMessage.describe(any: error, language))])
            }
        }
        // run @NAME, repeat N: the template's or the entry's operation and values, then the --set values.
        let operation: String
        var filled: (form: FormTemplate, source: String)?
        do {
            switch source {
            case .operation(let id): operation = id
            case .template(let name):
                let form = try TemplateStore(dataDirectory: runtime.paths.data).load(name)
                (operation, filled) = (form.operation, (form, "template \(name)"))
            case .entry(let sequence):
                let form = try ledger.repeatableForm(ofEntry: sequence)
                (operation, filled) = (form.operation, (form, "journal entry \(sequence)"))
            case .paymentQR(let prefill):
                (operation, filled) = (prefill.form.operation, (prefill.form, "the QR code"))
            }
        } catch {
            return invalid([AtomIssue(atom: nil, message: HostMessage.describe(any: error, language))])
        }
        let session: FormSession
        do { session = try runtime.open(operation) } catch { return invalid([AtomIssue(atom: nil, message: HostMessage.describe(error, language, listing: "rbs-host list"))]) }
        defer { session.close() }
        session.language = language
        func refused(_ issues: [AtomIssue]) -> Execution {
            var report = RunReport(status: .invalid, journal: nil, document: nil, errors: issues)
            for id in issues.compactMap(\.atom) { report.captions[id] = session.atom(id)?.caption }
            return .run(report)
        }
        var issues = RawArguments.refusedAssignments().map { AtomIssue(atom: $0.id, message: $0.message) }
        guard issues.isEmpty else { return refused(issues) }
        var values = assignments
        if let filled {
            let (kept, dropped) = filled.form.split(for: session.operation.descriptor)
            if !dropped.isEmpty { Terminal.error(TemplateText.dropped(dropped, from: filled.source, session: session)) }
            values = kept.map { Assignment(id: $0.id, value: $0.value) } + assignments
        }
        for assignment in values {
            do { try session.commit(assignment.id, text: assignment.value) } catch {
                issues.append(AtomIssue(atom: assignment.id, message: session.describeCommitRefusal(error)))
            }
        }
        guard issues.isEmpty else { return refused(issues) }
        let draft: DocumentDraft
        switch session.submit() {
        case .ready(let ready): draft = ready
        case .needsAttention(let attention): return refused(attention)
        case .failed(let why): return refused([AtomIssue(atom: nil, message: why)])
        }
        // `repeat N` as recorded signs without a review: it must pay what entry N signed (the core's check).
        if case .entry(let sequence) = source, assignments.isEmpty {
            do { try ledger.checkRepeat(of: sequence, operation: draft.operation, pluginVersion: draft.pluginVersion, fields: draft.fields) } catch {
                return invalid([AtomIssue(atom: nil, message: HostMessage.describe(error, language))])
            }
        }
        do {
            let directory = runtime.locator.optional(BankDirectory.self)
            switch (try signer == nil ? ledger.authenticator().method : SigningMethod.totp, code) {
            case (.ocra, .some):
                throw LedgerError.code(.wrongMethod(enrolled: .ocra, detail: "ask for the document's challenge with --challenge, then post it with --response R"))
            case (.totp, nil):
                throw LedgerError.code(.wrongMethod(enrolled: .totp, detail: "its code is not bound to the document; sign with --code CODE (or enrol OCRA: `rbs-host keys init --method ocra --force`)"))
            default: break
            }
            let sign: SignModule
            if let signer {
                sign = try SignModule(draft: draft, ledger: ledger, directory: directory, customer: signer)
            } else if response != nil {
                let pending = try ledger.pendingChallenge(documentId: documentId, operation: draft.operation, plugin: draft.plugin)
                sign = try SignModule(draft: draft, ledger: ledger, directory: directory, answering: pending)
            } else {
                sign = try SignModule(draft: draft, ledger: ledger, directory: directory)
            }
            // The core's own check before a challenge is issued or a code looked at: a code is never spent on a
            // document it refuses.
            if let refusal = sign.refusal {
                return .run(RunReport(status: .invalid, journal: nil, document: RunReport.document(sign.document),
                                      errors: [AtomIssue(atom: nil, message: HostMessage.wouldRefuse(refusal, language))]))
            }
            // The same payment again within 24 hours is posted only when the person says so.
            if let duplicate = sign.duplicate, !confirmDuplicate {
                let message = SignModule.duplicateNotice(duplicate)
                    + "; nothing was signed or posted — run it again with --confirm-duplicate to post it anyway"
                return .run(RunReport(status: .invalid, journal: nil, document: RunReport.document(sign.document),
                                      errors: [AtomIssue(atom: nil, message: message)]))
            }
            if challenge {
                let issued = try sign.issueChallenge()
                return .challenge(ChallengeReport(challenge: issued, document: RunReport.document(sign.document)), sign)
            }
            let outcome = try sign.sign(code: code ?? response ?? "", request: request, confirmDuplicate: confirmDuplicate)
            #if DEBUG
            // Tests widen the moment between the commit and the report, to kill a run exactly there.
            if let pause = HostEnvironment.current.pauseAfterCommitMilliseconds {
                usleep(pause * 1000)
            }
            #endif
            // A concurrent run with the same request id may have been first: its document is the one reported.
            if let request, outcome.documentId != sign.document.id, let first = try? RunReport.first(of: request, in: ledger) {
                return .run(first)
            }
            return .run(RunReport(outcome: outcome, document: sign.document, language: language))
        } catch let error as LedgerError {
            return invalid([AtomIssue(atom: nil, message: HostMessage.describe(error, language))])
        } catch {
            return invalid([AtomIssue(atom: nil, message: HostMessage.describe(any: error, language))])
        }
    }
}

/// The receipt: one rendering for `run` and for the REPL's sign step.
enum RunText {
    /// `run --challenge` without --json: the review (amount and payee with the challenge) and how to answer.
    /// `command` is how the run was asked for ("run pay.pp.quick", "repeat 5"), to say how to answer.
    static func render(challenge report: ChallengeReport, review: [SignModule.Line], command: String,
                       language: HostLanguage = .en) -> String {
        var lines = [HostMessage.challengeIssued(Terminal.bold(OCRASuite.grouped(report.challenge))).text(language)]
        for line in review { lines.append("  \(line.caption): \(line.value)") }
        lines.append(HostMessage.challengeHowTo(report.challenge).text(language))
        lines.append("  rbs-host \(command) --set … (the same values) --response RESPONSE --document \(report.document.id)")
        return lines.joined(separator: "\n")
    }


    /// `issue`'s message with its field named once, by the caption the person knows (as the REPL names it; the
    /// atom's id is for --json): a message that starts with the id or the caption loses it, one that names the
    /// caption inside ("required: Сумма") keeps its own words.
    static func named(_ issue: AtomIssue, captions: [String: String]) -> String {
        guard let id = issue.atom else { return issue.message }
        let caption = captions[id].flatMap { $0.isEmpty ? nil : $0 } ?? id
        let body = HostMessage.fieldMessage(issue.message, id: id, caption: caption)
        return body.contains(caption) ? String(body) : "\(caption): \(body)"
    }

    /// A run's outcome for people, in `language` (the REPL's, or `run`'s `--lang`).
    static func render(_ report: RunReport, language: HostLanguage = .en) -> String {
        var lines: [String] = []
        let entry = report.journal.map { HostMessage.journalEntry($0).text(language) } ?? ""
        switch report.status {
        case .posted: lines.append(Terminal.green(HostMessage.status(report.kind ?? .posted).text(language)) + entry)
        case .rejected: lines.append(Terminal.red(HostMessage.rejected.text(language)) + entry)
        case .invalid: lines.append(Terminal.yellow(HostMessage.notSubmitted.text(language)))
        case .unknown: lines.append(Terminal.yellow(HostMessage.unknown.text(language)))
        case .awaiting: lines.append(Terminal.yellow(HostMessage.awaitingSecondSignature.text(language)) + entry)
        }
        if let posting = report.posting {
            // A conversion: what the credit account received, in its currency (the signed document's, as reviewed).
            let fields = report.document?.fields ?? [:]
            let credited = fields[Conversion.Key.creditAmount].flatMap { amount in
                fields[Conversion.Key.creditCurrency].map { " → " + Amount.shown(amount, currency: $0, language) }
            } ?? ""
            // A fee: the amount, the fee and what left the account in all, as the review showed them.
            let fee = posting.fee.map { fee in
                " + \(HostMessage.fee.text(language).lowercased()) \(Amount.shown(fee, currency: posting.currency, language))"
                    + (posting.totalDebited.map { " = " + Amount.shown($0, currency: posting.currency, language) } ?? "")
            } ?? ""
            lines.append("  \(posting.debit) → \(posting.credit): \(Amount.shown(posting.amount, currency: posting.currency, language))"
                + "\(fee)\(credited); \(HostMessage.balanceNow.text(language)) \(Amount.shown(posting.balanceAfter, currency: posting.currency, language))")
        }
        for issue in report.errors { lines.append("  ⚠ " + named(issue, captions: report.captions)) }
        return lines.joined(separator: "\n")
    }
}
