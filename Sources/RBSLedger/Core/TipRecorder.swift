import Dispatch
import Foundation
import Synchronization

/// Writes a data folder's `ledger-tip` (see ``LedgerTip``) beside the commits rather than between them: a commit
/// hands its tip over and goes on, and a background thread writes the newest tip it was given (temporary file,
/// fsync, rename); tips handed over while one is being written are folded into the next write. So the record never
/// runs ahead of the database, and it lags behind it only by the commits of the last fraction of a second (records
/// are written at most every ``spacing``). Written between the commits, the record's fsync of a new file (~6 ms on this machine's
/// disk, twelve times the WAL's fdatasync) set the pace of group commit.
///
/// One recorder per data folder in a process (``for(_:)``), whichever ``LedgerDatabase`` writes it, so records are
/// written in commit order and a reader in this process (``LedgerTip/read(in:)``) first waits for the ones handed
/// over. A process that exits normally writes its last record first (an `atexit` handler), as does
/// ``LedgerDatabase/close()``; one killed in the moment after a commit leaves a record that lags, which the next
/// start accepts and brings up to date, as it always did.
final class TipRecorder: @unchecked Sendable {
    let directory: URL
    private let queue: DispatchQueue
    private let condition = NSCondition()
    // Guarded by `condition`:
    private var writing = false
    /// The newest tip handed over while one was being written: written next.
    private var pending: LedgerTip?
    /// The last record written by this process, so an unchanged state is not written again.
    private var last: LedgerTip?
    /// Threads waiting in ``settle()``: the writer then writes what is pending at once instead of keeping its spacing.
    private var settling = 0
    /// When the last record's write began (uptime nanoseconds; 0 before the first): the spacing runs from there,
    /// across the writer's turns. Kept only within one turn, it held only while commits came faster than a record's
    /// write: a record written in ~0.3 ms was done before the next commit, whose turn began afresh, so a host
    /// signing ~400 payments a second wrote ~117 records a second (strace, 2026-11-27), not 20.
    private var lastBegan: UInt64 = 0

    private static let recorders = Mutex<[String: TipRecorder]>([:])

    private init(directory: URL) {
        self.directory = directory
        queue = DispatchQueue(label: "rbs.ledger-tip", qos: .userInitiated)
    }

    /// The recorder of `directory` (the same for every spelling of its path).
    static func `for`(_ directory: URL) -> TipRecorder {
        let key = directory.standardizedFileURL.resolvingSymlinksInPath().path
        return recorders.withLock { recorders in
            if let recorder = recorders[key] { return recorder }
            if recorders.isEmpty { atexit { TipRecorder.settleAll() } }
            let recorder = TipRecorder(directory: directory)
            recorders[key] = recorder
            return recorder
        }
    }

    /// Waits until every recorder has written what it was handed (at exit).
    static func settleAll() {
        for recorder in recorders.withLock({ Array($0.values) }) { recorder.settle() }
    }

    /// Waits until the tips handed over so far are written (or have failed).
    func settle() {
        condition.lock()
        settling += 1
        condition.broadcast()
        while writing { condition.wait() }
        settling -= 1
        condition.unlock()
    }

    /// Has `tip` written in the background, unless this process already wrote that state or a later entry of the
    /// same ledger. Best effort: the commit it follows has happened whatever the file system says, and a record
    /// that lags is accepted on the next start.
    func submit(_ tip: LedgerTip) {
        // A tip whose entry is not chained yet (PostgreSQL, schema step v29: a commit whose integration failed, or
        // read at a start just after another host stored it) has no hash to record: the record stays at the last
        // one that had.
        guard !tip.hash.isEmpty else { return }
        condition.lock()
        defer { condition.unlock() }
        if writing {
            if !Self.isStale(tip, after: pending) { pending = tip }
            return
        }
        if Self.isStale(tip, after: last) { return }
        writing = true
        queue.async { [self] in write(tip) }
    }

    /// Writes `tip` now (start-up, `init`): returns once it is written or has failed.
    func record(_ tip: LedgerTip) {
        submit(tip)
        settle()
    }

    /// Whether writing `tip` after `known` would add nothing: the same state, or an earlier entry of the same ledger.
    private static func isStale(_ tip: LedgerTip, after known: LedgerTip?) -> Bool {
        guard let known else { return false }
        return known == tip || (known.ledgerId == tip.ledgerId && tip.sequence < known.sequence)
    }

    /// The least time from one record's start to the next's: under a steady stream of commits the record is
    /// written about 5 times a second, not back to back. Each write is a new file's creation, fsync and rename;
    /// written back to back they kept the disk busy beside the database's own commits (PostgreSQL's WAL on the same
    /// disk waited behind them: `make bench-pg`), and at 20 a second (every 50 ms) they still took ~20% of a
    /// PostgreSQL host's CPU a payment (perf of `rbs-bench signer`, 2026-11-27: ~2.8 ms of CPU a record on this
    /// machine's virtual disk, the open, fsync and rename in the kernel). A record 200 ms behind says no less than
    /// one 6 ms behind: a database put back to an earlier state is found at the next start either way, unless it
    /// lost only the commits of the record's last moments, which no spacing closes (a host killed just after a
    /// commit leaves the same lag).
    static let spacing: UInt64 = 200_000_000

    /// On the queue: writes `tip`, then whatever was handed over meanwhile.
    private func write(_ tip: LedgerTip) {
        var next: LedgerTip? = tip
        while let tip = next {
            condition.lock()
            let since = DispatchTime.now().uptimeNanoseconds - lastBegan
            if lastBegan > 0, since < Self.spacing {
                // The spacing, unless a reader (or the exit) waits for the record.
                let deadline = Date(timeIntervalSinceNow: Double(Self.spacing - since) / 1e9)
                while settling == 0, condition.wait(until: deadline) {}
            }
            lastBegan = DispatchTime.now().uptimeNanoseconds
            // What was handed over while waiting is newer: written instead.
            var tip = tip
            if let newer = pending, !Self.isStale(newer, after: tip) { tip = newer; pending = nil }
            condition.unlock()
            let written = (try? tip.write(in: directory)) != nil
            condition.lock()
            if written { last = tip }
            next = pending.flatMap { Self.isStale($0, after: last) ? nil : $0 }
            pending = nil
            if next == nil {
                writing = false
                condition.broadcast()
            }
            condition.unlock()
        }
    }
}
