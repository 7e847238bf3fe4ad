import Foundation

/// Counts failures per key (a customer's name, a client address) in a sliding window and says when a key must wait.
/// Used for logins and for one-time codes, each keyed both by customer and by address, so neither guessing one
/// customer's password from many addresses nor many customers' from one address goes fast.
final class RateLimiter: @unchecked Sendable {
    let limit: Int
    let window: TimeInterval
    private let lock = NSLock()
    private var failures: [String: [Date]] = [:]

    /// - Parameters:
    ///   - limit: failures allowed within `window` seconds; the next attempt waits until the oldest one leaves it.
    init(limit: Int, window: TimeInterval) {
        self.limit = limit
        self.window = window
    }

    /// Seconds `keys` must still wait (the longest of them), or nil when an attempt may be made now.
    func retryAfter(_ keys: [String], now: Date) -> Int? {
        lock.withLock {
            var wait: TimeInterval = 0
            for key in keys {
                let recent = (failures[key] ?? []).filter { now.timeIntervalSince($0) < window }
                failures[key] = recent.isEmpty ? nil : recent
                if recent.count >= limit, let oldest = recent.first {
                    wait = max(wait, window - now.timeIntervalSince(oldest))
                }
            }
            return wait > 0 ? max(1, Int(wait.rounded(.up))) : nil
        }
    }

    /// Records a failed attempt under every key.
    func fail(_ keys: [String], now: Date) {
        lock.withLock {
            for key in keys { failures[key, default: []].append(now) }
            if failures.count > 100_000 { failures = failures.filter { now.timeIntervalSince($0.value.last ?? now) < window } }
        }
    }

    /// Forgets the failures of `keys` (after a success).
    func reset(_ keys: [String]) {
        lock.withLock { for key in keys { failures[key] = nil } }
    }
}
