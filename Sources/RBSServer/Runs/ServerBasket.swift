import Foundation
import RBSCore
import RBSLedger

/// A signing basket a customer made over the API from reviewed runs: the basket's sign step (its documents, the
/// core's decision on each, the method), then its receipt. It belongs to its customer; every lookup by another
/// customer is answered as if it did not exist.
final class ServerBasket: @unchecked Sendable {
    enum State: String, Sendable { case review, signing, signed }

    let customer: Customer
    /// The runs the documents came from, in the basket's order.
    let runs: [ServerRun]
    /// Built once when the basket is made; only one signing of a basket runs at a time (``transition(from:to:)``).
    let module: BasketModule
    private let lock = NSLock()
    private var storedState: State = .review
    private(set) var receipt: API.BasketReceipt?
    private(set) var requestId: String?

    init(customer: Customer, runs: [ServerRun], module: BasketModule) {
        self.customer = customer
        self.runs = runs
        self.module = module
    }

    var id: String { module.basket.id }
    var state: State { lock.withLock { storedState } }

    func set(_ state: State) { lock.withLock { storedState = state } }

    /// Moves from `from` to `to` if the basket is in `from`; says whether it did.
    func transition(from: State, to: State) -> Bool {
        lock.withLock {
            guard storedState == from else { return false }
            storedState = to
            return true
        }
    }

    func finish(_ receipt: API.BasketReceipt, requestId: String?) {
        lock.withLock {
            self.receipt = receipt
            self.requestId = requestId
            storedState = .signed
        }
    }
}

/// The baskets made and not yet forgotten, by id: each customer's newest ``limit`` (an older one is dropped, not
/// signed).
final class BasketStore: @unchecked Sendable {
    static let limit = 50
    private let lock = NSLock()
    private var baskets: [Int64: [ServerBasket]] = [:]

    func add(_ basket: ServerBasket) {
        lock.withLock {
            var mine = baskets[basket.customer.id, default: []].filter { $0.id != basket.id }
            mine.append(basket)
            if mine.count > Self.limit { mine.removeFirst(mine.count - Self.limit) }
            baskets[basket.customer.id] = mine
        }
    }

    /// The basket `id` if it belongs to `customer`.
    func basket(_ id: String, of customer: Customer) -> ServerBasket? {
        lock.withLock { baskets[customer.id]?.last { $0.id == id } }
    }
}
