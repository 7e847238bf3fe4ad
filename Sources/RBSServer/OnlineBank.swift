import Foundation
import RBSCore
import RBSLedger

/// What `rbs-host serve` does for its customers, apart from HTTP: logins, runs of operations (each call into a
/// plugin on that plugin's lane), the review, signing with the customer's key after their code, the journal and
/// the balances. Every method that takes a customer sees only that customer's runs, accounts and journal.
package final class OnlineBank: @unchecked Sendable {
    package let runtime: Runtime
    let ledger: Ledger
    let lanes = PluginLanes()
    let runs = RunStore()
    let sessions: LoginSessions
    let events: EventHub
    /// Failed logins, and wrong codes, allowed per customer and per address within `attemptWindow` (counted in the
    /// ledger's database: see ``Customers/beginAttempt(_:limit:window:now:)``).
    let loginLimit: Int
    let codeLimit: Int
    let attemptWindow: TimeInterval
    let clock: @Sendable () -> Date
    /// Open runs a customer may hold at once.
    let runLimit: Int
    /// Seconds a run may stay unused before it expires (its plugin instance closed).
    let runIdle: TimeInterval
    private let signingLock = NSLock()
    /// Right logins whose slot the database could not give back yet (see ``settle(clearing:releasing:)``).
    private let unsettledLock = NSLock()
    private var unsettled: [(cleared: [String], released: [String])] = []
    private var signingsInFlight = 0
    let passkeyChallenges = PasskeyChallenges()
    let baskets = BasketStore()
    private let originLock = NSLock()
    private var storedParty: RelyingParty?
    /// Where the operator reads why a passkey was refused (the element that failed; the customer is not told).
    let note: @Sendable (String) -> Void

    package struct Limits: Sendable {
        /// Seconds without a request that end a login (five minutes: Delegated Regulation 2018/389 Art. 4(3)(d)).
        package var sessionIdle: TimeInterval = 5 * 60
        /// Failed logins per customer and per address within `window` seconds.
        package var logins = 5
        /// Wrong codes per customer and per address within `window` seconds (the ledger also locks a customer's
        /// signing for 5 minutes after 5 wrong codes in a row).
        package var codes = 5
        package var window: TimeInterval = 5 * 60
        /// Runs a customer may hold open at once (forms not yet signed or cancelled, and signed ones until they
        /// expire): more are refused 429 `too-many-runs` until one is cancelled or expires (`serve --runs-per-customer`).
        package var runsPerCustomer = 20
        /// Seconds a run stays open unused (no request naming it) before it expires: 30 minutes. An abandoned form
        /// (a closed tab) so frees its plugin instance; a reloaded page within that time resumes it.
        package var runIdle: TimeInterval = 30 * 60
        /// Seconds between keep-alive comments on an idle event stream.
        package var eventKeepAlive: TimeInterval = 15

        package init() {}
    }

    /// - Parameter origin: the origin passkeys are bound to (`http://localhost:8080`); nil: `http://localhost:PORT`
    ///   of the port the server listens on (see ``useDefaultOrigin(port:)``).
    /// - Parameter note: the operator's notes (why a passkey was refused).
    package init(runtime: Runtime, ledger: Ledger, limits: Limits = Limits(), origin: RelyingParty? = nil,
                 clock: @escaping @Sendable () -> Date = { Date() }, note: @escaping @Sendable (String) -> Void = { _ in }) {
        self.runtime = runtime
        self.ledger = ledger
        self.clock = clock
        self.note = note
        storedParty = origin
        sessions = LoginSessions(idle: limits.sessionIdle)
        loginLimit = limits.logins
        codeLimit = limits.codes
        attemptWindow = limits.window
        runLimit = limits.runsPerCustomer
        runIdle = limits.runIdle
        events = EventHub(keepAlive: limits.eventKeepAlive)
        // Plugins and pickers see the accounts of the customer whose call is running, never the host's demo ones.
        runtime.locator.register(CustomerAccounts(), as: (any AccountsService).self)
        runtime.locator.register(CustomerCards(), as: (any CardsService).self)
    }

    var openRuns: Int { runs.count }

    /// The origin and relying-party id passkeys are bound to.
    package var relyingParty: RelyingParty? { originLock.withLock { storedParty } }

    /// Binds passkeys to `http://localhost:PORT` (`https://` over TLS) unless an origin was given (browsers accept `localhost`, never an
    /// IP address, as a relying-party id).
    package func useDefaultOrigin(port: Int, scheme: String = "http") {
        originLock.withLock {
            if storedParty == nil { storedParty = try? RelyingParty(origin: "\(scheme)://localhost:\(port)") }
        }
    }

    // MARK: - Logging in

    /// Checks `password` for `name` (scrypt, off the event loop), rate-limited per customer and per address. The
    /// attempt is counted in the ledger before the password is checked, so of parallel attempts at most the limit
    /// are checked (the rest are 429), and a restart keeps a lock-out.
    func login(name: String, password: String, address: String) async throws(Problem) -> (token: String, expires: Date, customer: Customer) {
        let keys = AttemptKeys(customer: "login:customer:\(name)", address: "login:address:\(address)")
        let ledger = self.ledger
        let (limit, window, now) = (loginLimit, attemptWindow, clock())
        await settleLeftovers()
        // The credentials are read before the attempt takes its slot: a database that fails here costs no slot.
        let credentials: CustomerCredentials?
        do {
            credentials = try await Self.blocking { try ledger.customers.credentials(named: name) }
        } catch {
            throw Self.storageProblem("the customers could not be read", error)
        }
        let wait: Int?
        do {
            wait = try await Self.blocking { try ledger.customers.beginAttempt(keys.both, limit: limit, window: window, now: now) }
        } catch {
            throw Self.storageProblem("the login attempts could not be counted", error)
        }
        if let wait { throw .tooManyAttempts(wait, what: "logins") }
        // An unknown name costs the same KDF work as a known one, so timing does not tell which names exist.
        let record = credentials.flatMap { PasswordRecord($0.passwordRecord) } ?? Self.decoy
        let matches = (try? await Self.blocking { record.matches(password) }) ?? false
        guard matches, let customer = credentials?.customer else {
            throw Problem("wrong-login", "Wrong customer or password", status: 401,
                          detail: "the customer name or the password is wrong")
        }
        await settle(clearing: [keys.customer], releasing: [keys.address])
        let session = sessions.start(customer, now: clock())
        return (session.token, session.expires, customer)
    }

    /// Gives a right login's slot back. When the database cannot be written just then (an outage that began during
    /// the password check), the settlement is kept and made at the next login: a missed one would count a right
    /// password as a failure for the whole window, and enough of them would lock out every customer behind one
    /// address (an office's NAT).
    private func settle(clearing cleared: [String], releasing released: [String]) async {
        let ledger = self.ledger
        do {
            try await Self.blocking { try ledger.customers.settleAttempt(clearing: cleared, releasing: released) }
        } catch {
            unsettledLock.withLock { unsettled.append((cleared, released)) }
        }
    }

    /// Makes the settlements a database outage left over.
    private func settleLeftovers() async {
        let leftovers = unsettledLock.withLock { () -> [(cleared: [String], released: [String])] in
            defer { unsettled.removeAll() }
            return unsettled
        }
        for leftover in leftovers { await settle(clearing: leftover.cleared, releasing: leftover.released) }
    }

    // MARK: - Attempt limits of one-time codes

    /// The counts an attempt is made under: the customer's own and the address's.
    struct AttemptKeys: Sendable {
        let customer: String
        let address: String
        var both: [String] { [customer, address] }
    }

    /// The keys a code attempt of `customer` from `address` counts under.
    static func codeKeys(_ customer: Customer, _ address: String) -> AttemptKeys {
        AttemptKeys(customer: "code:customer:\(customer.id)", address: "code:address:\(address)")
    }

    /// Refuses with 429 when `keys` had too many wrong codes in the window.
    func checkCodeAttempts(_ keys: AttemptKeys) async throws(Problem) {
        let ledger = self.ledger
        let (limit, window, now) = (codeLimit, attemptWindow, clock())
        let wait: Int?
        do {
            wait = try await Self.blocking { try ledger.customers.attemptWait(keys.both, limit: limit, window: window, now: now) }
        } catch {
            throw Self.storageProblem("the signing attempts could not be read", error)
        }
        if let wait { throw .tooManyAttempts(wait, what: "signing attempts") }
    }

    /// Counts a wrong code under `keys`. (The ledger also counts it against the customer's own lock, in the
    /// transaction that checked it: that count is the one that holds under concurrency.)
    func failCodeAttempt(_ keys: AttemptKeys) async {
        let ledger = self.ledger
        let (window, now) = (attemptWindow, clock())
        try? await Self.blocking { try ledger.customers.failAttempt(keys.both, window: window, now: now) }
    }

    /// Forgets the customer's wrong codes after a success (the address's count stays: one customer's right code
    /// must not wipe the wrong codes others tried from the same address).
    func clearAttempts(_ keys: AttemptKeys) async {
        let ledger = self.ledger
        try? await Self.blocking { try ledger.customers.clearAttempts([keys.customer]) }
    }

    /// A record no password matches, checked for unknown names.
    private static let decoy: PasswordRecord = (try? PasswordRecord.make(password: UUID().uuidString))
        ?? PasswordRecord("scrypt$16384$8$1$00$" + String(repeating: "0", count: 64))!

    /// The customer of a live session token, nil when there is none or when the customer or user was removed since
    /// the login (asked of the ledger on every request: then every session of theirs ends).
    func customer(token: String) async throws(Problem) -> Customer? {
        guard let customer = sessions.customer(token: token, now: clock()) else { return nil }
        let ledger = self.ledger
        let active: Bool
        do {
            active = try await Self.blocking { try ledger.customers.isActive(customer) }
        } catch {
            throw Self.storageProblem("the session's customer could not be read", error)
        }
        guard active else {
            sessions.end(customer: customer.id)
            return nil
        }
        return customer
    }

    func logout(token: String) { sessions.end(token: token) }

    // MARK: - What a customer sees

    /// The operations in service, titled in `language` where their plugins translate them (`rbs.texts/1`).
    func operations(language: HostLanguage = .en) -> [API.Operation] {
        runtime.registry.operations.map { $0.localized(language) }.map {
            API.Operation(id: $0.id, title: $0.descriptor.title, category: $0.descriptor.category, plugin: $0.pluginID,
                          pluginVersion: $0.pluginVersion, unavailable: $0.unavailable)
        }
    }

    func accounts(of customer: Customer) async throws(Problem) -> [API.AccountJSON] {
        let ledger = self.ledger
        do {
            return try await Self.blocking {
                try ledger.customers.accounts(of: customer).map {
                    API.AccountJSON(number: $0.number, title: $0.title, currency: $0.currency,
                                    balance: Amount.text($0.balance, currency: $0.currency), blocked: $0.blocked)
                }
            }
        } catch {
            throw Self.storageProblem("the accounts could not be read", error)
        }
    }

    /// The customer's cards (those of the customer the user acts for), masked, oldest first.
    func cards(of customer: Customer) async throws(Problem) -> [Card] {
        let ledger = self.ledger
        do {
            return try await Self.blocking { try ledger.cards(of: .customer(customer.holderId)) }
        } catch {
            throw Self.storageProblem("the cards could not be read", error)
        }
    }

    /// The customer's journal entries `filter` takes (all of them by default), oldest first.
    func journal(of customer: Customer, matching filter: JournalFilter = JournalFilter()) async throws(Problem) -> [API.JournalLine] {
        let ledger = self.ledger
        do {
            return try await Self.blocking { try ledger.customers.journal(of: customer, matching: filter).map(Self.line) }
        } catch {
            throw Self.storageProblem("the journal could not be read", error)
        }
    }

    /// One journal entry as the API lists it: the posting's keys, and the document's operation, payee and purpose.
    static func line(_ entry: JournalEntry) -> API.JournalLine {
        let document = try? CanonicalEncoding.decode(entry.document)
        func field(_ key: String) -> String? { document?[key].flatMap { $0.isEmpty ? nil : $0 } }
        return API.JournalLine(sequence: entry.sequence, kind: entry.kind.rawValue, documentHash: entry.documentId,
                               recordedAt: iso(milliseconds: entry.recordedAtMilliseconds), debit: entry.debit,
                               credit: entry.credit, amount: entry.amount ?? field("amount"), currency: entry.currency ?? field("currency"),
                               balanceAfter: entry.balanceAfter, reason: entry.reason, basket: entry.basketId,
                               operation: document?.operation, payee: field("name"), purpose: field("purpose"))
    }

    // MARK: - Runs

    /// Opens a run of `operation` for `customer`, on the plugin's lane.
    /// - Parameter prefill: a template's or a journal entry's values, committed as typed before the form is
    ///   answered: the values the plugin's current version has no atom for are named in `dropped`, the ones it
    ///   refuses now in `refused` (with why), and the form shows what was filled.
    func open(_ operation: String, language: HostLanguage = .en, prefill: FormTemplate? = nil,
              for customer: Customer) async throws(Problem) -> API.Run {
        await expireIdleRuns()
        guard let listing = runtime.registry.operations.first(where: { $0.id == operation }) else {
            throw Problem("unknown-operation", "No such operation", status: 404,
                          detail: "there is no operation '\(operation)' (GET /api/v1/operations lists them)")
        }
        let runtime = self.runtime
        // Where the run will live, chosen on the plugin's own lane (which loads the plugin if it is not yet): for a
        // plugin in workers, the least busy worker of its pool, whose lane then carries every call of the run — a
        // run never waits for a busy worker other than its own, nor for another plugin.
        let placement = try await onLane(lanes.lane(for: listing.pluginID), for: customer) { () throws(Problem) -> PluginPlacement in
            do throws(RunError) { return try runtime.place(operation) } catch {
                throw Problem("cannot-open", "The operation could not be opened", status: 422, detail: error.description)
            }
        }
        let run = ServerRun(id: Self.newRunID(), customer: customer, lane: lanes.lane(for: placement.lane),
                            pluginID: listing.pluginID, now: clock())
        let answer = try await onLane(run) { () throws(Problem) -> API.Run in
            // The form's account pickers read the customer's accounts from the ledger (once a call): a database that
            // cannot be reached is said as itself, not as a form that offers no account.
            do {
                _ = try CustomerScope.current?.accounts()
            } catch CustomerError.storage(.server(let failure)) {
                throw Self.unavailable(failure)
            } catch {}
            let session: FormSession
            do throws(RunError) { session = try runtime.open(at: placement) } catch {
                throw Problem("cannot-open", "The operation could not be opened", status: 422, detail: error.description)
            }
            session.language = language
            run.session = session
            run.named(operation: session.operation.id, title: session.operation.descriptor.title)
            var dropped: [String] = [], refused: [Problem.Issue] = []
            if let prefill {
                let (kept, gone) = prefill.split(for: session.operation.descriptor)
                dropped = gone.map(\.id)
                for value in kept {
                    do throws(FormSessionError) { _ = try session.commit(value.id, text: value.value, reader: .script) } catch {
                        refused.append(Problem.Issue(atom: value.id, message: session.describe(error)))
                    }
                }
            }
            var described = Self.describe(run, session)
            described.dropped = dropped.isEmpty ? nil : dropped
            described.refused = refused.isEmpty ? nil : refused
            return described
        }
        guard runs.add(run, limit: runLimit) else {
            try? await onLane(run) { () throws(Problem) in run.session?.close(); run.session = nil }
            throw Problem("too-many-runs", "Too many open runs", status: 429,
                          detail: "this customer has \(runLimit) runs open; cancel some (DELETE /api/v1/runs/{run}) or wait until "
                            + "unused ones expire (\(Int(runIdle / 60)) minutes)")
        }
        return answer
    }

    /// The run as it is now.
    func show(_ id: String, language: HostLanguage = .en, for customer: Customer) async throws(Problem) -> API.Run {
        let run = try find(id, customer)
        return try await onLane(run) { () throws(Problem) -> API.Run in
            guard let session = run.session else { return Self.describe(run, nil) }
            session.language = language
            return Self.describe(run, session)
        }
    }

    /// The customer's runs, most recently used first: what a reloaded page offers to resume.
    func listRuns(of customer: Customer) async -> [API.RunSummary] {
        await expireIdleRuns()
        return runs.all.filter { $0.customer.id == customer.id && $0.state != .cancelled }
            .sorted { $0.lastUsed > $1.lastUsed }
            .map { run in
                API.RunSummary(id: run.id, operation: run.operation, title: run.title, state: run.state.rawValue,
                               lastUsedAt: Self.iso(run.lastUsed), expiresAt: Self.iso(run.lastUsed.addingTimeInterval(runIdle)))
            }
    }

    /// Closes every run unused for ``runIdle`` seconds (not one being signed): its plugin instance is freed and
    /// the run forgotten, as a cancel does. Called on each open, each listing and each `/health`.
    func expireIdleRuns() async {
        for run in runs.idle(since: clock().addingTimeInterval(-runIdle)) where run.state != .signing {
            await close(run)
        }
    }

    /// Forgets `run` and frees its plugin instance (a cancel, or an expiry); a signed run keeps its state.
    private func close(_ run: ServerRun) async {
        guard runs.remove(run.id) != nil else { return }
        if run.state != .signed { run.set(.cancelled) }
        try? await onLane(run) { () throws(Problem) in
            run.session?.close()
            run.session = nil
            run.sign = nil
        }
    }

    /// Commits `value` to atom `atom`; answers only the atoms that changed. A commit after a submit drops the review.
    func commit(_ value: JSONValue, atom: String, run id: String, language: HostLanguage = .en,
                for customer: Customer) async throws(Problem) -> API.Changes {
        let run = try find(id, customer)
        let events = self.events
        return try await onLane(run) { () throws(Problem) -> API.Changes in
            let session = try Self.editable(run)
            guard let descriptor = session.operation.descriptor.atoms.first(where: { $0.id == atom }) else {
                throw Problem("unknown-atom", "No such atom", status: 404,
                              detail: "operation \(session.operation.id) has no atom '\(atom)'", atom: atom)
            }
            session.language = language
            let typed = try ValueInput.value(for: value, atom: descriptor, in: session)
            let before = Self.atoms(session)
            do throws(FormSessionError) {
                try session.commit(atom, value: typed)
            } catch {
                throw Self.problem(error, atom: atom)
            }
            return Self.changes(run, session, before: before, events: events)
        }
    }

    /// Presses a button atom (the plugin's action).
    func press(atom: String, run id: String, language: HostLanguage = .en, for customer: Customer) async throws(Problem) -> API.Changes {
        let run = try find(id, customer)
        let events = self.events
        return try await onLane(run) { () throws(Problem) -> API.Changes in
            let session = try Self.editable(run)
            session.language = language
            guard session.operation.descriptor.atoms.contains(where: { $0.id == atom }) else {
                throw Problem("unknown-atom", "No such atom", status: 404,
                              detail: "operation \(session.operation.id) has no atom '\(atom)'", atom: atom)
            }
            let before = Self.atoms(session)
            do throws(FormSessionError) { try session.press(atom) } catch { throw Self.problem(error, atom: atom) }
            return Self.changes(run, session, before: before, events: events)
        }
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
            return try requestId.map { id throws(LedgerError) in try LedgerRequest(customer: String(customer.id), id: id) }
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

    /// How a customer authorises the reviewed document.
    enum Authorisation: Sendable {
        /// A TOTP code: the host then signs with the key it keeps for the customer.
        case code(String)
        /// The customer's own signature: their passkey's WebAuthn assertion over the document's hash.
        case passkey(PasskeyAssertion)
    }

    /// Checks the customer's code or passkey assertion and signs (with a code), journals and posts the reviewed
    /// document; answers the receipt. With `requestId`, a retry answers the first receipt and never posts twice.
    /// A document that repeats the customer's payment posted in the last 24 hours is answered 409 `duplicate`
    /// (naming that entry) before the code or passkey is looked at, unless `confirmDuplicate`.
    func sign(run id: String, with authorisation: Authorisation, requestId: String? = nil, confirmDuplicate: Bool = false,
              address: String, language: HostLanguage = .en, for customer: Customer) async throws(Problem) -> API.Receipt {
        let run = try find(id, customer)
        let request = try Self.request(requestId, of: customer)
        // A retry of a signing that went through (its answer lost) gets the same receipt.
        if let requestId, run.state == .signed, run.requestId == requestId, let receipt = run.receipt { return receipt }
        let keys = Self.codeKeys(customer, address)
        try await checkCodeAttempts(keys)
        guard run.transition(from: .review, to: .signing) else {
            if run.state == .signed {
                throw Problem("already-signed", "The run is already signed", status: 409,
                              detail: "this run was signed and posted (journal entry \(run.receipt?.journal ?? 0)); open a new run")
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
                case .code(let code): return try sign.module.sign(code: code, request: request, confirmDuplicate: confirmDuplicate)
                case .passkey(let assertion):
                    guard let party else { throw LedgerError.code(.storage("the server has no origin for passkeys yet")) }
                    return try sign.module.sign(assertion: assertion, relyingParty: party, request: request,
                                                confirmDuplicate: confirmDuplicate) {
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
        run.finish(receipt, requestId: requestId)
        try? await onLane(run) { () throws(Problem) in
            run.session?.close()
            run.session = nil
            run.sign = nil
        }
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
                                                    amount: Amount.text(posting.amount, currency: posting.currency),
                                                    currency: posting.currency,
                                                    balanceAfter: Amount.text(posted.debitBalance, currency: posting.currency)),
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

    /// Cancels a run: the plugin's instance is freed and the run forgotten.
    func cancel(run id: String, for customer: Customer) async throws(Problem) {
        let run = try find(id, customer)
        guard run.state != .signing else {
            throw Problem("signing", "The run is being signed", status: 409, detail: "a signing of this run is in progress")
        }
        await close(run)
    }

    // MARK: - Shutting down

    /// Tells every open client the server is going, waits (up to `timeout` seconds) for signings in progress to
    /// finish, then closes every run's plugin instance on its lane.
    package func shutdown(timeout: TimeInterval = 30) async {
        events.shutdown(message: "the server is shutting down; open runs end — sign again after it is back")
        let deadline = Date().addingTimeInterval(timeout)
        while signingLock.withLock({ signingsInFlight }) > 0, Date() < deadline {
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
        for run in runs.all {
            runs.remove(run.id)
            try? await onLane(run) { () throws(Problem) in
                run.session?.close()
                run.session = nil
            }
        }
    }

    /// Tells every open client that plugins were reloaded (open runs finish on the version they started with).
    package func announce(_ reports: [ReloadReport]) {
        for report in reports {
            var data = ["change": report.change.rawValue, "message": report.description]
            if let plugin = report.pluginID { data["plugin"] = plugin }
            if let old = report.oldVersion { data["oldVersion"] = old }
            if let new = report.newVersion { data["newVersion"] = new }
            events.broadcast(ServerEvent(name: "reload", data: data))
        }
    }

    // MARK: - Helpers

    func find(_ id: String, _ customer: Customer) throws(Problem) -> ServerRun {
        guard let run = runs.run(id, of: customer) else {
            throw Problem.notFound("there is no run '\(id)' (runs end when cancelled, \(Int(runIdle / 60)) minutes unused, "
                                   + "or when the server restarts)")
        }
        if run.state != .signing, run.lastUsed < clock().addingTimeInterval(-runIdle) {
            Task { await self.close(run) }
            throw Problem.notFound("run '\(id)' expired: it was not used for \(Int(runIdle / 60)) minutes")
        }
        run.touch(clock())
        return run
    }

    private func scope(_ customer: Customer) -> CustomerScope {
        let ledger = self.ledger
        return CustomerScope(customer: customer, load: { try ledger.customers.accounts(of: customer) },
                             cards: { customer in try ledger.cards(of: .customer(customer.holderId)) })
    }

    /// Runs `body` on the run's plugin lane for the run's customer.
    func onLane<T: Sendable>(_ run: ServerRun, _ body: @escaping @Sendable () throws(Problem) -> T) async throws(Problem) -> T {
        try await onLane(run.lane, for: run.customer, body)
    }

    /// Runs `body` on `lane` for `customer`.
    func onLane<T: Sendable>(_ lane: PluginLane, for customer: Customer,
                             _ body: @escaping @Sendable () throws(Problem) -> T) async throws(Problem) -> T {
        do {
            return try await lane.run(for: scope(customer)) { try body() }
        } catch let problem as Problem {
            throw problem
        } catch {
            throw .internalError("\(error)")
        }
    }

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

    /// The shared database is down or cut off (`--database postgres://…`): 503 with the failure (which server, and
    /// that nothing was acknowledged), so a client retries — with the same request id, safely.
    static func unavailable(_ failure: PostgresFailure) -> Problem {
        Problem("database-unavailable", "The bank's database cannot be reached", status: 503, detail: failure.description,
                retryAfter: 5)
    }

    /// The shared database's failure (`--database postgres://…`) behind `error`, when that is what it is.
    static func databaseFailure(_ error: any Error) -> PostgresFailure? {
        if let failure = error as? PostgresFailure { return failure }
        if let error = error as? LedgerError, case .server(let failure) = error { return failure }
        if let error = error as? CustomerError, case .storage(let inner) = error, case .server(let failure) = inner { return failure }
        return nil
    }

    /// The ledger stopped because its data folder was deleted, replaced or opened to others while serving
    /// (``LedgerError/dataFolderChanged(_:)``): 503 `ledger-stopped` saying what happened. No retry time: it lasts
    /// until the operator puts the folder back and starts the server again.
    static func stopped(_ change: DataFolderChange) -> Problem {
        Problem("ledger-stopped", "The ledger has stopped", status: 503, detail: LedgerError.dataFolderChanged(change).description)
    }

    /// The 503 problem for a ledger that cannot be used at all now (the shared database unreachable, or the data
    /// folder changed under the server), whatever wraps the error; nil for every other failure.
    static func unusableLedger(_ error: any Error) -> Problem? {
        if let failure = databaseFailure(error) { return unavailable(failure) }
        var ledgerError = error as? LedgerError
        if let error = error as? CustomerError, case .storage(let inner) = error { ledgerError = inner }
        if case .dataFolderChanged(let change) = ledgerError { return stopped(change) }
        return nil
    }

    /// Reading or writing the ledger failed: 503 `database-unavailable` naming the server when the shared database
    /// cannot be reached (a login, the accounts or a review during an outage are said as the outage, not as an
    /// internal error), 503 `ledger-stopped` when the data folder changed under the server, else 500 saying `what`
    /// failed.
    static func storageProblem(_ what: String, _ error: any Error) -> Problem {
        if let unusable = unusableLedger(error) { return unusable }
        return .internalError("\(what): \(error)")
    }

    func codeProblem(_ error: LedgerError, keys: AttemptKeys, language: HostLanguage = .en) async -> Problem {
        if case .wouldBeRejected(let refusal) = error { return Self.refusedProblem(refusal, language) }
        if case .unconfirmedDuplicate(let duplicate) = error { return Self.duplicateProblem(duplicate) }
        if let unusable = Self.unusableLedger(error) { return unusable }
        guard case .code(let code) = error else { return .internalError(error.description) }
        switch code {
        case .wrongPasskey(let left):
            await failCodeAttempt(keys)
            return Problem("wrong-passkey", "The passkey did not sign this document", status: 422, detail: code.description,
                           atom: "passkey", attemptsLeft: left)
        case .malformed(let left), .wrong(let left), .malformedResponse(_, let left), .wrongResponse(let left):
            await failCodeAttempt(keys)
            return Problem("wrong-code", "The one-time code is wrong", status: 422,
                           detail: HostMessage.describe(code, language), atom: "code", attemptsLeft: left)
        case .replayed, .challengeUsed:
            return Problem("replayed-code", "The one-time code was already used", status: 409,
                           detail: HostMessage.describe(code, language), atom: "code")
        case .noPendingChallenge, .challengeExpired, .wrongMethod:
            return Problem("signing-method", "This signing cannot be completed so", status: 409, detail: code.description, atom: "code")
        case .locked(_, let remaining, _):
            return Problem("signing-locked", "Signing is locked", status: 429, detail: HostMessage.describe(code, language), atom: "code",
                           retryAfter: remaining)
        case .storage:
            return .internalError(code.description)
        }
    }

    private static func editable(_ run: ServerRun) throws(Problem) -> FormSession {
        guard let session = run.session, !session.isClosed else {
            throw Problem("run-finished", "The run is finished", status: 409,
                          detail: "this run was \(run.state == .signed ? "signed" : "closed"); open a new run")
        }
        guard run.state == .open || run.state == .review else {
            throw Problem("signing", "The run is being signed", status: 409, detail: "a signing of this run is in progress")
        }
        if run.state == .review {
            run.sign = nil
            run.set(.open)
        }
        return session
    }

    private static func problem(_ error: FormSessionError, atom: String) -> Problem {
        switch error {
        case .unknownAtom: Problem("unknown-atom", "No such atom", status: 404, detail: error.description, atom: atom)
        case .invalid(_, let message): Problem("invalid-value", "The value is not accepted", status: 422, detail: message, atom: atom)
        case .mismatch: Problem("wrong-type", "The value is of the wrong type", status: 422, detail: error.description, atom: atom)
        case .hidden: Problem("hidden-atom", "The atom is hidden", status: 409, detail: error.description, atom: atom)
        case .notEditable, .notAButton: Problem("not-editable", "This atom cannot be changed so", status: 422, detail: error.description, atom: atom)
        case .closed: Problem("run-finished", "The run is finished", status: 409, detail: error.description)
        case .createFailed, .badPluginValue, .pluginFailed:
            Problem("plugin-failed", "The operation's plugin failed", status: 422, detail: error.description, atom: atom)
        }
    }

    private static func atoms(_ session: FormSession) -> [API.Atom] {
        session.atoms.map { ValueInput.json($0, accounts: $0.kind == .account ? session.accounts(for: $0.id) : []) }
    }

    private static func describe(_ run: ServerRun, _ session: FormSession?) -> API.Run {
        guard let session else {
            return API.Run(id: run.id, operation: run.operation, title: run.title, plugin: run.pluginID, pluginVersion: "",
                           state: run.state.rawValue, ready: false, formError: nil, atoms: [], receipt: run.receipt)
        }
        return API.Run(id: run.id, operation: session.operation.id, title: session.operation.descriptor.title,
                       plugin: session.operation.plugin.id, pluginVersion: session.operation.plugin.version,
                       state: run.state.rawValue, ready: session.isReady, formError: session.formError, atoms: atoms(session))
    }

    private static func changes(_ run: ServerRun, _ session: FormSession, before: [API.Atom], events: EventHub) -> API.Changes {
        let after = atoms(session)
        var changed: [API.Atom] = []
        for (old, new) in zip(before, after) where old != new {
            changed.append(new)
            if old.caption != new.caption, new.kind == "text" {
                events.publish(ServerEvent(name: "caption", data: ["run": run.id, "atom": new.id, "caption": new.caption]),
                               to: run.customer.id)
            }
        }
        return API.Changes(changed: changed, ready: session.isReady, formError: session.formError)
    }

    private static func review(_ sign: SignModule, passkey: Passkey?, party: RelyingParty?, language: HostLanguage) -> API.Review {
        let draft = sign.draft
        var currency = draft["currency"]
        if currency?.isEmpty ?? true { currency = nil }
        let amount = draft["amount"].flatMap { text in
            Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")).map { Amount.text($0, currency: currency ?? "") }
        }
        return API.Review(fields: sign.review(in: language).map {
                              API.ReviewLine(caption: $0.caption, value: $0.value, prominent: $0.prominent, atom: $0.atom)
                          },
                          amount: amount, currency: currency, payee: draft["name"].flatMap { $0.isEmpty ? nil : $0 },
                          documentHash: sign.document.id, method: sign.method.rawValue,
                          passkey: sign.method == .passkey ? passkey.flatMap { key in
                              party.map {
                                  API.PasskeyRequest(challenge: PasskeyAssertion.challenge(forDocumentId: sign.document.id), rpId: $0.id,
                                                     credentialIds: [Base64URL.encode(key.credentialId)], userVerification: "required")
                              }
                          } : nil,
                          duplicate: sign.duplicate.map(duplicate))
    }

    /// The earlier posted entry a document repeats, as the API shows it.
    static func duplicate(_ entry: JournalEntry) -> API.Duplicate {
        let document = try? CanonicalEncoding.decode(entry.document)
        return API.Duplicate(journal: entry.sequence, postedAt: iso(milliseconds: entry.recordedAtMilliseconds),
                             amount: entry.amount, currency: entry.currency, payee: document?["name"], account: entry.credit,
                             purpose: document?["purpose"], message: SignModule.duplicateNotice(entry))
    }

    /// The core's refusal of an unconfirmed repeat: 409 `duplicate`, naming what it repeats (a posted entry, or an
    /// earlier document of the same basket); nothing was signed and no code was looked at.
    static func duplicateProblem(_ found: Duplicate) -> Problem {
        var duplicate: API.Duplicate
        switch found.of {
        case .entry(let entry):
            duplicate = Self.duplicate(entry)
        case .document(let earlier):
            duplicate = API.Duplicate(journal: nil, postedAt: nil, message: SignModule.repeatNotice(found.of))
            duplicate.document = earlier
        }
        duplicate.position = found.position
        let title = found.position == nil ? "This payment repeats an earlier one" : "A payment of the basket repeats an earlier one"
        var problem = Problem("duplicate", title, status: 409,
                              detail: (found.position.map { "document \($0): " } ?? "") + duplicate.message
                                  + "; nothing was signed — to send it again, sign with confirmDuplicate: true")
        problem.duplicate = duplicate
        return problem
    }

    static func newRunID() -> String {
        var generator = SystemRandomNumberGenerator()
        return Hex.encode((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    static func iso(_ date: Date) -> String { iso(milliseconds: Timestamp.milliseconds(date)) }

    static func iso(milliseconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Timestamp.date(milliseconds: milliseconds))
    }

    /// Runs blocking work (the database, the password KDF) off the event loops.
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
        }
    }
}

/// A prepared sign step handed from the plugin's lane to the signing thread: everything in it is immutable (the
/// draft, the document, the ledger, the customer), and only one signing of a run runs at a time.
struct SignStep: @unchecked Sendable {
    let module: SignModule
}
