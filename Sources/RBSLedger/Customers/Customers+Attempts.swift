import Foundation

/// Attempt limits of `serve`'s logins and one-time codes, kept in the ledger's database (table `login_attempts`,
/// schema step `v9-login-attempts`): a restart does not forget a lock-out, and hosts sharing a PostgreSQL database
/// share the counts.
///
/// Each key (`customer:NAME`, `address:IP`, …) counts attempts in a fixed window that starts at its first attempt.
/// ``beginAttempt(_:limit:window:now:)`` counts an attempt *before* it is checked, in one statement per key
/// (`INSERT … ON CONFLICT DO UPDATE … RETURNING`: the row is locked while it is raised), so of any number of parallel
/// attempts at most `limit` are let through to the check; the caller then clears the keys on success or gives the
/// count back (``releaseAttempt(_:)``) when the attempt was not judged (a storage error).
extension Customers {
    /// Counts one attempt under every key and answers the seconds to wait when any key had `limit` attempts in its
    /// window already (this attempt must not be checked then), nil when it may be checked now.
    public func beginAttempt(_ keys: [String], limit: Int, window: TimeInterval, now: Date) throws(LedgerError) -> Int? {
        // Windows that ended are dropped first (names an attacker sprayed, addresses long gone), in a transaction of
        // their own: it locks no row the counting then waits for.
        let expired = Timestamp.milliseconds(now) - Int64(window * 1000)
        try database.write { db in try db.execute("DELETE FROM login_attempts WHERE window_start_ms <= ?", expired) }
        return try database.write { db in try Self.count(keys, limit: limit, window: window, now: now, in: db) }
    }

    /// Counts a failed attempt under every key without asking first (a wrong code found by the ledger's own check).
    public func failAttempt(_ keys: [String], window: TimeInterval, now: Date) throws(LedgerError) {
        _ = try database.write { db in try Self.count(keys, limit: Int.max, window: window, now: now, in: db) }
    }

    /// The seconds `keys` must still wait (the longest of them), or nil when an attempt may be made now.
    public func attemptWait(_ keys: [String], limit: Int, window: TimeInterval, now: Date) throws(LedgerError) -> Int? {
        let nowMs = Timestamp.milliseconds(now)
        let windowMs = Int64(window * 1000)
        return try database.read { db in
            var waitMs: Int64 = 0
            for key in keys {
                guard let row = try db.row("SELECT attempts, window_start_ms FROM login_attempts WHERE key = ?", key) else { continue }
                let attempts: Int64 = try row["attempts"]
                let start: Int64 = try row["window_start_ms"]
                if attempts >= Int64(limit), start + windowMs > nowMs { waitMs = max(waitMs, start + windowMs - nowMs) }
            }
            return Self.seconds(waitMs)
        }
    }

    /// Gives back the attempt ``beginAttempt(_:limit:window:now:)`` counted, when it was never judged.
    public func releaseAttempt(_ keys: [String]) throws(LedgerError) {
        try database.write { db in
            for key in keys.sorted() { try Self.giveBack(key, in: db) }
        }
    }

    /// Settles a successful attempt that ``beginAttempt(_:limit:window:now:)`` counted: the counts of `cleared` (the
    /// customer's own: a right password ends their run of failures) are forgotten, and the attempt is given back to
    /// `released` (the address's: one customer's success from an address must not wipe failures other names made
    /// from it, or an attacker with an account of their own could reset the address's count between guesses).
    public func settleAttempt(clearing cleared: [String], releasing released: [String]) throws(LedgerError) {
        try database.write { db in
            for key in (cleared + released).sorted() {
                if cleared.contains(key) {
                    try db.execute("DELETE FROM login_attempts WHERE key = ?", key)
                } else {
                    try Self.giveBack(key, in: db)
                }
            }
        }
    }

    /// Forgets the attempts of `keys` (after a success).
    public func clearAttempts(_ keys: [String]) throws(LedgerError) {
        try database.write { db in
            for key in keys.sorted() { try db.execute("DELETE FROM login_attempts WHERE key = ?", key) }
        }
    }

    /// Raises each key's count (a window that ended starts again at one) and answers the wait when any count went
    /// past `limit`. Keys are raised in one order, so two transactions never wait on each other's rows.
    private static func count(_ keys: [String], limit: Int, window: TimeInterval, now: Date,
                              in db: any SQLTransaction) throws -> Int? {
        let nowMs = Timestamp.milliseconds(now)
        let windowMs = Int64(window * 1000)
        let expired = nowMs - windowMs
        var waitMs: Int64 = 0
        for key in keys.sorted() {
            let row = try db.row("""
                INSERT INTO login_attempts (key, attempts, window_start_ms) VALUES (?, 1, ?)
                ON CONFLICT (key) DO UPDATE SET
                    attempts = CASE WHEN login_attempts.window_start_ms <= ? THEN 1 ELSE login_attempts.attempts + 1 END,
                    window_start_ms = CASE WHEN login_attempts.window_start_ms <= ? THEN ? ELSE login_attempts.window_start_ms END
                RETURNING attempts, window_start_ms
                """, key, nowMs, expired, expired, nowMs)
            guard let row else { continue }
            let attempts: Int64 = try row["attempts"]
            let start: Int64 = try row["window_start_ms"]
            if attempts > Int64(limit) { waitMs = max(waitMs, start + windowMs - nowMs) }
        }
        // A refused attempt is not an attempt: its raise is taken back in the same transaction (the rows are still
        // locked), so parallel attempts that were turned away neither lengthen a lock-out nor use up the slots that
        // the attempts in flight give back when they succeed.
        if waitMs > 0 {
            for key in keys.sorted() { try giveBack(key, in: db) }
        }
        return seconds(waitMs)
    }

    /// Takes one attempt back from `key`'s count (never below zero).
    private static func giveBack(_ key: String, in db: any SQLTransaction) throws {
        try db.execute("UPDATE login_attempts SET attempts = attempts - 1 WHERE key = ? AND attempts > 0", key)
    }

    private static func seconds(_ milliseconds: Int64) -> Int? {
        milliseconds > 0 ? max(1, Int((Double(milliseconds) / 1000).rounded(.up))) : nil
    }

    /// Whether `customer`'s login still exists as it was when the session began (removed, or removed and added again
    /// under the same name with a new key: no). A session is checked on every request, so removing a customer ends
    /// their sessions at once, in every host of the database.
    public func isActive(_ customer: Customer) throws(CustomerError) -> Bool {
        // The memo answers only while nothing was committed to the ledger since it was told (``StandingMemo``); the
        // data folder is checked either way, as every read checks it.
        let version = database.standing?.version()
        if let version, database.standing?.knowsActive(customer, at: version) == true {
            do { try database.watch.check() } catch { throw .storage(error) }
            return true
        }
        let active: Bool
        do {
            active = try database.read { db in
                try db.value(Int64.self, "SELECT id FROM customers WHERE id = ? AND key_id = ?", customer.id, customer.keyId) != nil
            }
        } catch {
            throw .storage(error)
        }
        if active, let version { database.standing?.rememberActive(customer, at: version) }
        return active
    }
}
