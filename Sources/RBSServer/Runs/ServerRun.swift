import Foundation
import RBSCore
import RBSLedger

/// One run of an operation opened by a customer over the API: the form session (touched only on its plugin's
/// lane), then the sign step after a submit, then the receipt. It belongs to its customer; every lookup by another
/// customer is answered as if it did not exist.
final class ServerRun: @unchecked Sendable {
    enum State: String, Sendable { case open, review, signing, signed, cancelled }

    let id: String
    let customer: Customer
    let lane: PluginLane
    let pluginID: String
    /// Only on `lane`.
    var session: FormSession?
    /// Only on `lane` (set by a submit, dropped by a later commit).
    var sign: SignModule?
    /// Only on `lane`: the form as the last answer rendered it, the session it was rendered from and its revision then.
    private var renderedAtoms: [API.Atom] = []
    private weak var renderedFrom: FormSession?
    private var renderedRevision: Int?
    private let lock = NSLock()
    private var storedState: State = .open
    private var storedLastUsed: Date
    private(set) var receipt: API.Receipt?
    /// The request id the signing came with (a retry with it answers ``receipt``).
    private(set) var requestId: String?
    /// The operation's id and title, kept past the session (a signed run's receipt page names it).
    private(set) var operation = ""
    private(set) var title = ""
    /// The form's ``FormSession/summary(of:language:)`` as the last answer left it (read without the lane, by a listing).
    private var storedSummary: String?

    init(id: String, customer: Customer, lane: PluginLane, pluginID: String, now: Date) {
        self.id = id
        self.customer = customer
        self.lane = lane
        self.pluginID = pluginID
        storedLastUsed = now
    }

    /// The form as the last answer rendered it, while `session` has not changed since (only on `lane`): a commit
    /// compares its result with it instead of rendering the form once more before it starts.
    func rendered(_ session: FormSession) -> [API.Atom]? {
        guard renderedFrom === session, let renderedRevision, renderedRevision == session.keptRendering else { return nil }
        return renderedAtoms
    }

    /// Keeps `atoms`, just rendered from `session` (only on `lane`).
    func keep(_ atoms: [API.Atom], of session: FormSession) {
        renderedFrom = session
        renderedRevision = session.keptRendering
        renderedAtoms = renderedRevision == nil ? [] : atoms
    }

    var state: State { lock.withLock { storedState } }
    var summary: String? { lock.withLock { storedSummary } }

    /// Keeps what the form holds now (its ``FormSession/summary(of:language:)``), for a listing.
    func keep(summary: String?) { lock.withLock { storedSummary = summary } }
    var lastUsed: Date { lock.withLock { storedLastUsed } }

    func touch(_ now: Date) { lock.withLock { storedLastUsed = now } }

    func set(_ state: State) { lock.withLock { storedState = state } }

    func named(operation: String, title: String) {
        lock.withLock {
            self.operation = operation
            self.title = title
        }
    }

    /// Moves from `from` to `to` if the run is in `from`; says whether it did (so two signings cannot both start).
    func transition(from: State, to: State) -> Bool {
        lock.withLock {
            guard storedState == from else { return false }
            storedState = to
            return true
        }
    }

    func finish(_ receipt: API.Receipt, requestId: String?) {
        lock.withLock {
            self.receipt = receipt
            self.requestId = requestId
            storedState = .signed
        }
    }
}

/// The open runs by id. A run is found only by its own customer.
final class RunStore: @unchecked Sendable {
    private let lock = NSLock()
    private var runs: [String: ServerRun] = [:]
    private var perCustomer: [Int64: Int] = [:]

    /// Adds `run` if its customer holds fewer than `limit` runs; a signed run (kept only to answer its receipt
    /// again) gives its place up first, the least recently used one.
    func add(_ run: ServerRun, limit: Int) -> Bool {
        lock.withLock {
            let customer = run.customer.id
            if perCustomer[customer, default: 0] >= limit,
               let signed = runs.values.filter({ $0.customer.id == customer && $0.state == .signed }).min(by: { $0.lastUsed < $1.lastUsed }) {
                runs.removeValue(forKey: signed.id)
                perCustomer[customer, default: 1] -= 1
            }
            guard perCustomer[customer, default: 0] < limit else { return false }
            runs[run.id] = run
            perCustomer[run.customer.id, default: 0] += 1
            return true
        }
    }

    /// The run `id` if it belongs to `customer`.
    func run(_ id: String, of customer: Customer) -> ServerRun? {
        lock.withLock {
            guard let run = runs[id], run.customer.id == customer.id else { return nil }
            return run
        }
    }

    @discardableResult
    func remove(_ id: String) -> ServerRun? {
        lock.withLock {
            guard let run = runs.removeValue(forKey: id) else { return nil }
            perCustomer[run.customer.id, default: 1] -= 1
            return run
        }
    }

    var count: Int { lock.withLock { runs.count } }

    var all: [ServerRun] { lock.withLock { Array(runs.values) } }

    /// Runs not used since `cutoff`.
    func idle(since cutoff: Date) -> [ServerRun] { lock.withLock { runs.values.filter { $0.lastUsed < cutoff } } }
}
