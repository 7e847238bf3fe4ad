import Foundation
import RBSCore
import RBSLedger

/// What `rbs-host serve` does for its customers, apart from HTTP: logins, runs of operations (each call into a
/// plugin on that plugin's lane), the review, signing with the customer's key after their code, the journal and
/// the balances. Every method that takes a customer sees only that customer's runs, accounts and journal.
///
/// This file holds the state and its construction; each use case is an extension of its own: logging in and the
/// attempt limits (`+Sessions`), what a customer sees (`+Accounts`, `+History`, `+Statements`), runs of operations
/// (`+Runs`), review and signing (`+Signing`), baskets (`+Baskets`), the second signer (`+SecondSigner`), passkeys
/// (`+Passkeys`), templates (`+Templates`), payment QR codes (`+PaymentQR`), the document's presentation
/// (`+Presentation`), the ledger's failures as problems (`+Storage`) and shutting down (`+Lifecycle`).
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
    let signingLock = NSLock()
    /// Right logins whose slot the database could not give back yet (see ``settle(clearing:releasing:)``).
    let unsettledLock = NSLock()
    var unsettled: [(cleared: [String], released: [String])] = []
    var signingsInFlight = 0
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
}
