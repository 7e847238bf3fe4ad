import Dispatch
import Foundation
import RBSLedger

/// The one thread at a time a plugin worker is called from (the ABI's promise, rbs/host.h): a serial queue per lane
/// that `Runtime.place` names — one per worker of a plugin's pool, so runs on different workers of one plugin run in
/// parallel, and runs on one worker never overlap; one per plugin id for a plugin in the host's process (old and new
/// versions of a hot-reloaded one share it) and for placing a plugin's runs (which loads it). Every call into a
/// plugin — opening a run, committing a value, submitting, closing — goes through its run's lane, queued there: a
/// request waiting for a busy worker holds no thread, and one worker's slow call holds up only the runs on it.
final class PluginLanes: @unchecked Sendable {
    private let lock = NSLock()
    private var lanes: [String: PluginLane] = [:]

    /// The lane named `id` (a plugin id, or a worker's lane from its placement), made on first use.
    func lane(for id: String) -> PluginLane {
        lock.withLock {
            if let lane = lanes[id] { return lane }
            let lane = PluginLane(label: "rbs.plugin.\(id)")
            lanes[id] = lane
            return lane
        }
    }
}

/// A serial executor for one plugin. While a body runs, ``CustomerScope/current`` names the customer it runs for, so
/// the accounts service answers with that customer's accounts (to the form's picker and to the plugin alike).
final class PluginLane: Sendable {
    private let queue: DispatchQueue

    init(label: String) { queue = DispatchQueue(label: label) }

    /// Runs `body` on the lane for `customer` and returns what it returned.
    func run<T: Sendable>(for customer: CustomerScope, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                CustomerScope.current = customer
                defer { CustomerScope.current = nil }
                continuation.resume(with: Result { try body() })
            }
        }
    }
}

/// The customer a plugin call is made for, as a thread-local value set by ``PluginLane`` around each call. Made
/// anew for each call, so the accounts are read at most once per call and are never stale across calls.
final class CustomerScope: @unchecked Sendable {
    let customer: Customer
    private let load: @Sendable () throws -> [Account]
    private var cached: [Account]?
    private let cardsOf: @Sendable (Customer) throws -> [Card]

    init(customer: Customer, load: @escaping @Sendable () throws -> [Account],
         cards: @escaping @Sendable (Customer) throws -> [Card] = { _ in [] }) {
        self.customer = customer
        self.load = load
        cardsOf = cards
    }

    /// The customer's cards (read when the cards service asks: only the card form does).
    func cards() throws -> [Card] { try cardsOf(customer) }

    /// The customer's accounts (read once per call).
    func accounts() throws -> [Account] {
        if let cached { return cached }
        let accounts = try load()
        cached = accounts
        return accounts
    }

    private static let key = "rbs.server.customer"

    /// The customer of the call running on this thread, or nil outside a lane.
    static var current: CustomerScope? {
        get { Thread.current.threadDictionary[key] as? CustomerScope }
        set { Thread.current.threadDictionary[key] = newValue }
    }
}
