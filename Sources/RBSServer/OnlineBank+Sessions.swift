import Foundation
import RBSCore
import RBSLedger

/// Logging in and out, and the attempt limits of passwords and one-time codes (per customer and per address, counted
/// in the ledger so a restart keeps a lock-out).
extension OnlineBank {
    /// Checks `password` for `name` (scrypt, off the event loop), rate-limited per customer and per address. The
    /// attempt is counted in the ledger before the password is checked, so of parallel attempts at most the limit
    /// are checked (the rest are 429), and a restart keeps a lock-out.
    func login(name: String, password: String, address: String,
               language: HostLanguage = .en) async throws(Problem) -> (token: String, expires: Date, customer: Customer) {
        // A name is found in any case, so its failures are counted in one case: ALICE, Alice and alice are one lock.
        let keys = AttemptKeys(customer: "login:customer:\(name.lowercased())", address: "login:address:\(address)")
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
        if let wait { throw .tooManyAttempts(wait, what: .logins) }
        // An unknown name costs the same KDF work as a known one, so timing does not tell which names exist.
        let record = credentials.flatMap { PasswordRecord($0.passwordRecord) } ?? Self.decoy
        let matches = (try? await Self.blocking { record.matches(password) }) ?? false
        guard matches, let customer = credentials?.customer else {
            throw Problem("wrong-login", "Wrong customer or password", status: 401,
                          detail: language.pick("the customer name or the password is wrong", "неверное имя клиента или пароль"))
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
    func checkCodeAttempts(_ keys: AttemptKeys, language: HostLanguage = .en) async throws(Problem) {
        let ledger = self.ledger
        let (limit, window, now) = (codeLimit, attemptWindow, clock())
        let wait: Int?
        do {
            wait = try await Self.blocking { try ledger.customers.attemptWait(keys.both, limit: limit, window: window, now: now) }
        } catch {
            throw Self.storageProblem("the signing attempts could not be read", error)
        }
        if let wait { throw .tooManyAttempts(wait, what: .codes, language: language) }
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
            if ledger.location.engine == .sqlite {
                // A read of the embedded SQLite file (WAL: it never waits for the writer) takes tens of microseconds:
                // asked on the request's own thread it spares every request a hand-off to another thread and back.
                // PostgreSQL's answer is a network round trip away, so it is awaited off the request's thread.
                active = try ledger.customers.isActive(customer)
            } else {
                active = try await Self.blocking { try ledger.customers.isActive(customer) }
            }
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

    func codeProblem(_ error: LedgerError, keys: AttemptKeys, language: HostLanguage = .en) async -> Problem {
        if case .wouldBeRejected(let refusal) = error { return Self.refusedProblem(refusal, language) }
        if case .unconfirmedDuplicate(let duplicate) = error { return Self.duplicateProblem(duplicate, language: language) }
        if case .reviewChanged(let reviewed, let current) = error {
            return Problem("review-changed", "The document changed after this review", status: 409,
                           detail: HostMessage.reviewChanged(reviewed: reviewed, current: current, language), atom: "documentHash")
        }
        if let unusable = Self.unusableLedger(error) { return unusable }
        guard case .code(let code) = error else { return .internalError(error.description) }
        switch code {
        case .wrongPasskey(let left):
            await failCodeAttempt(keys)
            return Problem("wrong-passkey", "The passkey did not sign this document", status: 422, detail: code.description,
                           atom: "passkey", attemptsLeft: left)
        case .malformed(let left), .malformedResponse(_, let left):
            // Not a code at all (a digit missed): the ledger counted no attempt, and neither does the address.
            return Problem("wrong-code", "The one-time code is wrong", status: 422,
                           detail: HostMessage.describe(code, language), atom: "code", attemptsLeft: left)
        case .wrong(let left), .wrongResponse(let left):
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
}
