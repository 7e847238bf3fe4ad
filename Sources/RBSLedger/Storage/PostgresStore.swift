import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// The ledger in a PostgreSQL database that several hosts share (`--database postgres://…`).
///
/// The ledger's API is synchronous, so this store runs postgres-nio on one event-loop thread of its own and
/// blocks the calling thread (never that event loop) on each answer, with a deadline. Connections come from a
/// small pool; one that broke is dropped and the next operation connects anew.
///
/// Guarantees across hosts come from the database:
/// - every write transaction (READ COMMITTED) first takes the transaction-scoped advisory lock ``ledgerLock``,
///   so writers of this ledger run one at a time whichever host they are on: the journal stays one hash chain,
///   a document id is checked and journaled once, balances are checked against the committed state, and a
///   one-time code step or an OCRA challenge is accepted once. The lock ends with the transaction (also when
///   the host dies: the server rolls the transaction back when the connection drops);
/// - reads run in a REPEATABLE READ READ ONLY transaction: one consistent snapshot;
/// - a transaction the server aborts as a serialisation failure or a deadlock is run again, at most
///   ``maximumAttempts`` times, then reported;
/// - a connection lost in a transaction fails the operation (nothing is acknowledged before COMMIT returns).
///
/// Schema steps (``LedgerSchema``) are recorded in `rbs_schema_steps` and applied under the session advisory lock
/// ``migrationLock``, each in its own transaction, so hosts starting at once apply each step once.
final class PostgresStore: LedgerStore, @unchecked Sendable {
    let address: PostgresAddress
    /// `address` as errors and messages name it, made once: a payment names its place in every account it reads.
    let place: String
    /// The servers as errors name them (``PostgresAddress/server``), made once.
    private let serverName: String
    var dialect: SQLDialect { .postgres }

    /// The key of the advisory lock every write transaction takes first ("RBSLEDGR").
    static let ledgerLock: Int64 = 0x5242_534C_4544_4752
    /// The key of the advisory lock the journal's integration holds ("RBSINTGR", schema step `v29-chain-integrated-apart`).
    static let integrationLock: Int64 = 0x5242_5349_4E54_4752
    /// The schema step that chains the journal's entries apart from the commit that stores them.
    static let integrationStep = "v29-chain-integrated-apart"
    /// The schema step after which entries have ids from a sequence and positions from integration, and a commit
    /// takes no ledger-wide lock (``LedgerSchema``'s `sequencedApart`).
    static let sequencedStep = "v30-sequenced-apart"
    /// The key of the advisory lock migrations hold ("RBSMIGRT").
    static let migrationLock: Int64 = 0x5242_534D_4947_5254
    /// The schema step that creates the one-call functions (``writeReportingTip(_:)``).
    static let oneCallStep = "v19-one-call-writes"
    /// The schema step that binds the journal's numbers and hashes inside the server at commit.
    static let chainStep = "v21-chain-in-server"
    /// The schema step whose commit answers its queries again after its writes (predictions for the next).
    static let answersStep = "v22-answers-after-commit"
    /// The schema step whose commit gives those answers as each query's rows in JSON text (``cells(fromRowsJSON:)``).
    static let answersAsRowsStep = "v24-answers-as-rows"
    /// The schema step whose commit runs each statement from a plan the server session keeps (``PostgresSQL/Parametrized``).
    static let keptPlansStep = "v26-kept-plans"
    /// How many times a transaction is tried when the server aborts it as a conflict.
    static let maximumAttempts = 5
    /// Idle connections kept for the next operation.
    private static let idleLimit = 8

    private let group: MultiThreadedEventLoopGroup
    private let idle = Mutex<[PostgresConnection]>([])
    /// Each open connection's ``CloseWatch``: how a statement waiting on it learns that it closed.
    private let closeWatches = Mutex<[ObjectIdentifier: CloseWatch]>([:])
    private let isClosed = Atomic<Bool>(false)
    private let logger = Logger(label: "rbs.ledger.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
    private let nextId = Atomic<Int>(1)
    /// The index of the server that took the last connection: tried first next time.
    private let preferredServer = Atomic<Int>(0)

    /// Connects to `address` (checking that the server answers and takes the login) and keeps the connection.
    init(address: PostgresAddress) throws(LedgerError) {
        self.address = address
        place = address.description
        serverName = address.server
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            let connection = try connect()
            idle.withLock { $0.append(connection) }
        } catch {
            try? group.syncShutdownGracefully()
            throw ledgerError(error)
        }
    }

    deinit {
        closeAll()
        try? group.syncShutdownGracefully()
    }

    // MARK: - LedgerStore

    func write<T>(_ body: (any SQLTransaction) throws -> T) throws -> T {
        try writeReportingTip(body).value
    }

    /// The classic write: statement by statement, each a round trip, under the ledger's advisory lock taken first.
    /// For what the one-call path cannot run (``SpeculativeTransaction/lockedPathReason``), and for a ledger whose
    /// schema has not the functions yet.
    private func lockedWrite<T>(_ body: (any SQLTransaction) throws -> T) throws -> T {
        // The body numbers from the journal's tip and chains from its hash: every stored entry is integrated first
        // (schema step v29), under the ledger's lock, so none is stored meanwhile.
        try transaction(begin: "BEGIN ISOLATION LEVEL READ COMMITTED",
                        lock: "SELECT pg_advisory_xact_lock(\(Self.ledgerLock))", then: Self.classicWriteStart, body)
    }

    /// Chains the entries stored apart, where the database has schema step v29's function (whatever this host
    /// found before: a host that stopped using the step's procedure may have stored entries that way just before).
    static let integrateIfStepApplied = """
        DO $$ BEGIN
            IF to_regprocedure('rbs_v29_integrate(boolean)') IS NOT NULL THEN PERFORM rbs_v29_integrate(true); END IF;
        END $$
        """

    /// What the classic write runs once it holds the ledger's lock: with schema step v30, it bumps the classic
    /// write's mark (`ledger_epoch`), waiting for the one-call commits running and keeping new ones out until it
    /// commits (they lock the row shared); then it integrates every entry stored (v29).
    static let classicWriteStart = """
        DO $$ BEGIN
            IF to_regclass('ledger_epoch') IS NOT NULL THEN UPDATE ledger_epoch SET n = n + 1 WHERE id = 1; END IF;
            IF to_regprocedure('rbs_v29_integrate(boolean)') IS NOT NULL THEN PERFORM rbs_v29_integrate(true); END IF;
        END $$
        """

    /// Chains every entry stored and not integrated yet (schema step `v29-chain-integrated-apart`), waiting for
    /// another session integrating: what reads the chain whole (``Journal/verify(authenticator:)``, a host's start)
    /// does it first. Nothing on a database without the step.
    func integrate() throws {
        // Idempotent, so a connection the server ended while idle (a restart) is simply replaced.
        var lost = 0
        while true {
            do {
                return try withFreshConnection { connection in _ = try run(connection, Self.integrateIfStepApplied, []) }
            } catch let failure as PostgresFailure {
                guard case .connectionLost = failure, lost < Self.idleLimit else { throw failure }
                lost += 1
            }
        }
    }

    /// Runs `body` as one write transaction in at most two round trips when nothing changes under it, and returns
    /// the ledger's tip after its commit (what `ledger-tip` records).
    ///
    /// The body runs in this host's memory (``SpeculativeTransaction``): every query it asks is fetched in one
    /// round trip (`rbs_v19_read`, on one snapshot; a body whose later queries depend on earlier answers asks again,
    /// at most ``maximumReadRounds`` times), then its writes go in one more (`rbs_v19_commit`), which under the
    /// ledger's lock — held only while that statement runs inside the server, never across the network — checks
    /// that every query the body's decisions rest on still gives the same rows, runs the writes and commits. So each
    /// rule the core decides (code state, once-only ids, ownership, balance, card and exchange rules) is decided on
    /// rows that are still the committed ones when the writes land; when any changed (another host committed
    /// meanwhile), the server refuses with a serialisation failure and the body runs again on fresh rows. What the
    /// one-call path cannot run goes the classic way (``lockedWrite(_:)``).
    func writeReportingTip<T>(_ body: (any SQLTransaction) throws -> T) throws -> (value: T, tip: LedgerTip) {
        if oneCallWrites.load(ordering: .relaxed) {
            // Numbered by the server at commit when the server can and the caller's result can be renumbered after.
            let sequencing = serverSequencing.load(ordering: .relaxed) && T.self is any JournalNumbered.Type
            let guesses = recentReads.withLock { $0 }
            // First, on predictions (the answers the last commits' queries gave after their writes): when every query
            // of the body has one (or is a once-only id lookup, presumed empty), it commits in this one round trip,
            // its digests checked under the lock as any. A body that throws, asks anything else or is refused (a row
            // changed since) goes on to the reads below as if this had not been tried; nothing of it was written.
            // Looked up query by query (a copy of the whole would be copied again by the commit's additions).
            let predicting = sequencing && answersAfterCommit.load(ordering: .relaxed)
            let predicted: ((String) -> SpeculativeTransaction.Answer?)? = predicting
                ? { text in self.predictedAnswers.withLock { $0[text] } } : nil
            // With other writes of this host at the same moment (serve's requests), in one group: one round trip
            // and one commit for all of them (``GroupCommit``). A body the group could not commit on predictions
            // goes on alone below, as if this had not been tried; one whose group was refused tries alone first.
            var alone = true
            if predicting, let predicted, groupCommit, predictedAnswers.withLock({ !$0.isEmpty }) {
                switch try grouped(body, predicted: predicted, guesses: guesses) {
                case .committed(let value, let tip): return (value, tip)
                case .alone(let tryPredictions): alone = tryPredictions
                }
            }
            if alone, predicting, predictedAnswers.withLock({ !$0.isEmpty }) {
                let speculative = SpeculativeTransaction(answered: [:], guesses: guesses, sequencing: true,
                                                         predicted: predicted, onPredictions: true,
                                                         integrating: integrationApart.load(ordering: .relaxed))
                if let value = try? body(speculative), speculative.committableOnPredictions {
                    do {
                        // The queries of tables no write touches are not answered again: their predictions stay.
                        let (tip, base) = try commit(speculative.operations, digests: speculative.predictedDigests, sequencing: true,
                                                     after: speculative.queriesAfter(wrote: speculative.tablesWritten).answer)
                        return (Self.bound(value, speculative, base: base), tip)
                    } catch let refusal as PostgresRefusal where refusal.isConflict || refusal.sqlState == "23505" {
                        oneCallTrace("prediction refused: \(refusal.message)")
                    } catch let refusal as PostgresRefusal where refusal.sqlState == Self.undefinedFunction {
                        oneCallTrace("no answers after commit: \(refusal.message)")
                        answersAfterCommit.store(false, ordering: .relaxed)
                    }
                } else {
                    oneCallTrace("not predicted")
                }
            }
            var conflicts = 0
            attempts: while conflicts < Self.maximumAttempts {
                var answered: [String: [SQLRow]] = [:]
                var digests: [String: String] = [:]
                for _ in 0...Self.maximumReadRounds {
                    let speculative = SpeculativeTransaction(answered: answered, guesses: guesses, sequencing: sequencing,
                                                             predicted: predicted, integrating: integrationApart.load(ordering: .relaxed))
                    let result = Result { try body(speculative) }
                    if speculative.lockedPathReason != nil { oneCallTrace("locked: \(speculative.lockedPathReason ?? "")"); break attempts }
                    if !speculative.missing.isEmpty {
                        oneCallTrace("fetch \(speculative.missing.map { "\($0.writesBefore): \($0.text.prefix(90))" })")
                        do {
                            guard try fetch(speculative.missing, after: speculative.writes, sequencing: sequencing,
                                            into: &answered, digests: &digests) else {
                                break attempts
                            }
                        } catch let refusal as PostgresRefusal where refusal.sqlState == Self.undefinedFunction {
                            // The functions are gone (a database restored from before their schema step, which the
                            // next start applies again): this host writes the classic way until then.
                            oneCallTrace("no one-call functions: \(refusal.message)")
                            functionsMissing(sequencing: sequencing)
                            break attempts
                        } catch let refusal as PostgresRefusal where refusal.isConflict || refusal.isLockUnavailable {
                            oneCallTrace("fetch conflict: \(refusal.message)")
                            // A deadlock with another host's writes, or a table held exclusively for longer than the
                            // read waits (autovacuum truncating it): decide again on what is committed now, after a
                            // growing pause; when every attempt is refused, the classic write below waits its turn.
                            conflicts += 1
                            Self.pause(after: conflicts)
                            continue attempts
                        }
                        continue
                    }
                    let value = try result.get()
                    do {
                        // The queries of tables no write touches are not answered again: the rows the commit checked
                        // are what they give after it, and become their predictions.
                        let after = speculative.queriesAfter(wrote: speculative.tablesWritten)
                        var kept: [String: SpeculativeTransaction.Answer] = [:]
                        for query in after.keep {
                            if let rows = answered[query.key], let digest = digests[query.key] {
                                kept[query.text] = SpeculativeTransaction.Answer(rows: rows, digest: digest)
                            }
                        }
                        let (tip, base) = try commit(speculative.operations, digests: digests, sequencing: sequencing,
                                                     after: after.answer, keeping: kept)
                        recentReads.withLock { recent in
                            if recent.count > 4_096 { recent.removeAll() }
                            recent.merge(speculative.used) { _, new in new }
                        }
                        return (Self.bound(value, speculative, base: base), tip)
                    } catch let refusal as PostgresRefusal where refusal.sqlState == Self.undefinedFunction {
                        // As for the read: nothing ran, so the classic way runs the body on what is committed.
                        oneCallTrace("no one-call functions: \(refusal.message)")
                        functionsMissing(sequencing: sequencing)
                        break attempts
                    } catch let refusal as PostgresRefusal where refusal.isConflict || refusal.sqlState == "23505" {
                        // A unique key another host's commit took first (a journal number, a document id): the whole
                        // is rolled back, and decided again on what is committed now, as a changed row is.
                        oneCallTrace("conflict: \(refusal.message)")
                        conflicts += 1
                        Self.pause(after: conflicts)
                        continue attempts
                    }
                }
                break
            }
        }
        return try lockedWrite { db in (try body(db), try LedgerTip.current(db)) }
    }

    /// `value` with the numbers its body handed out provisionally as the server bound them (``BoundNumbers``).
    private static func bound<T>(_ value: T, _ speculative: SpeculativeTransaction, base: BoundNumbers?) -> T {
        guard speculative.toldProvisionalTip, let base, let numbered = value as? any JournalNumbered,
              let bound = numbered.renumbered({ base.bound($0) }) as? T else { return value }
        return bound
    }

    // MARK: - Group commit across requests (issue 30 item 3)

    /// Whether writes that arrive while this host commits are committed together (``grouped(_:predicted:guesses:)``);
    /// `RBS_POSTGRES_GROUP_COMMIT=0` turns it off (the benchmark's baseline, in the same run).
    private let groupCommit = ProcessInfo.processInfo.environment["RBS_POSTGRES_GROUP_COMMIT"] != "0"
    /// `RBS_POSTGRES_LEDGER_LOCK=1`: commits go through v29's procedure, one pass under the ledger's lock, as before
    /// schema step v30 (the benchmark's baseline for the commit without it, in the same run; every host of the
    /// database must be started so, as v29's commits keep out only each other).
    private let ledgerLockBaseline = ProcessInfo.processInfo.environment["RBS_POSTGRES_LEDGER_LOCK"] == "1"
    /// The writes waiting for the group commit in flight, and whether one is in flight.
    private let groupQueue = Mutex<(waiting: [GroupedWrite], leading: Bool)>(([], false))
    /// The most bodies one group commit takes (each its own code, signature and entries; the rest wait for the next).
    static let groupLimit = 64

    /// The first `limit` writes waiting (at most), taken off the queue in their order.
    private static func take(from waiting: inout [GroupedWrite], upTo limit: Int) -> [GroupedWrite] {
        let taken = Array(waiting.prefix(max(0, limit)))
        waiting.removeFirst(taken.count)
        return taken
    }

    /// What became of a write offered to a group commit.
    enum GroupOutcome<T> {
        /// Committed with the group: its value (numbers bound) and the tip after the group's commit.
        case committed(T, LedgerTip)
        /// Not committed: the caller writes alone. `tryPredictions`: the group was refused as a whole (a row one
        /// of its bodies read had changed), so this body may well commit alone on its predictions.
        case alone(tryPredictions: Bool)
    }

    /// One body waiting in a group commit: run by the thread that commits the group, while its caller waits.
    private final class GroupedWrite: @unchecked Sendable {
        enum State {
            case waiting
            /// This caller commits the next group: these writes (its own first).
            case lead([GroupedWrite])
            case committed(LedgerTip, base: BoundNumbers?, SpeculativeTransaction)
            case alone(tryPredictions: Bool)
            case failed(any Error)
        }
        /// Runs the caller's body on the group's transaction, keeping its value in the caller's frame; cleared
        /// before the caller is woken (the body does not outlive its call).
        var run: ((SpeculativeTransaction) throws -> Void)?
        private let condition = NSCondition()
        private var state = State.waiting

        init(run: @escaping (SpeculativeTransaction) throws -> Void) { self.run = run }

        func settle(_ outcome: State) {
            condition.withLock {
                if case .lead = outcome {} else { run = nil }
                state = outcome
                condition.signal()
            }
        }

        func wait() -> State {
            condition.withLock {
                while case .waiting = state { condition.wait() }
                let settled = state
                state = .waiting
                return settled
            }
        }
    }

    /// Group commit: `body` runs in one transaction with the other writes of this host waiting at the same moment,
    /// committed in one round trip and one commit on their predictions (as a single payment on predictions is).
    ///
    /// The first write to arrive leads: it commits the waiting ones (itself among them) while the writes that arrive
    /// meanwhile wait; when its commit is answered, the first of those leads the next group, and so on — so a host
    /// with one payment at a time commits it at once, and a busy one commits as many as arrived during the last
    /// commit. Each body runs on the group's ``SpeculativeTransaction`` after the ones before it (its journal
    /// entries numbered after theirs, its queries after their writes) and is checked as any: every query its
    /// decisions rest on is checked by the commit under the ledger's lock at its place among the writes. A body that
    /// throws, asks a query with no prediction or needs the classic way is taken out again (``SpeculativeTransaction/restore(_:)``)
    /// and runs alone; a group the server refuses (a row one body read had changed) is not committed at all, and each
    /// of its bodies runs alone. Every body is answered only after the group's commit is durable, each with its own
    /// value (its numbers bound) and the ledger's tip after the group.
    private func grouped<T>(_ body: (any SQLTransaction) throws -> T, predicted: @escaping (String) -> SpeculativeTransaction.Answer?,
                            guesses: [String: [SQLRow]]) throws -> GroupOutcome<T> {
        try withoutActuallyEscaping(body) { body in
            var value: T?
            let write = GroupedWrite { speculative in value = try body(speculative) }
            let leads = groupQueue.withLock { queue -> Bool in
                queue.waiting.append(write)
                guard !queue.leading else { return false }
                queue.leading = true
                return true
            }
            var state: GroupedWrite.State
            if leads {
                state = .lead(groupQueue.withLock { Self.take(from: &$0.waiting, upTo: Self.groupLimit) })
            } else {
                state = write.wait()
            }
            if case .lead(let group) = state {
                commitGroup(group, predicted: predicted, guesses: guesses)
                // The next group is led by its first write (woken to do so); none waiting, no one leads.
                let next = groupQueue.withLock { queue -> [GroupedWrite]? in
                    guard !queue.waiting.isEmpty else {
                        queue.leading = false
                        return nil
                    }
                    return Self.take(from: &queue.waiting, upTo: Self.groupLimit)
                }
                if let next { next[0].settle(.lead(next)) }
                state = write.wait()
            }
            write.run = nil
            switch state {
            case .committed(let tip, let base, let speculative):
                guard let value else { return .alone(tryPredictions: false) }
                return .committed(Self.bound(value, speculative, base: base), tip)
            case .alone(let tryPredictions):
                return .alone(tryPredictions: tryPredictions)
            case .failed(let error):
                throw error
            case .waiting, .lead:
                return .alone(tryPredictions: false)
            }
        }
    }

    /// Runs the bodies of `group` on one transaction and commits those it can in one round trip, then settles each.
    private func commitGroup(_ group: [GroupedWrite], predicted: @escaping (String) -> SpeculativeTransaction.Answer?,
                             guesses: [String: [SQLRow]]) {
        let speculative = SpeculativeTransaction(answered: [:], guesses: guesses, sequencing: true,
                                                 predicted: predicted, onPredictions: true,
                                                 integrating: integrationApart.load(ordering: .relaxed))
        var members: [GroupedWrite] = []
        var batch = group, taken = group.count
        // While the bodies run, more writes arrive (requests signed a moment later): they join this group, until none
        // came during the last bodies or the group is full — so writes that arrive together commit together, and
        // the first of them does not go alone only because it was first.
        while !batch.isEmpty {
            for write in batch {
                let mark = speculative.mark()
                let ran = (try? write.run?(speculative)) != nil
                if ran && speculative.committableOnPredictions {
                    members.append(write)
                } else {
                    speculative.restore(mark)
                    write.settle(.alone(tryPredictions: false))
                }
            }
            batch = groupQueue.withLock { Self.take(from: &$0.waiting, upTo: Self.groupLimit - taken) }
            taken += batch.count
        }
        guard !members.isEmpty else { return }
        let outcome: GroupedWrite.State
        do {
            let (tip, base) = try commit(speculative.operations, digests: speculative.predictedDigests, sequencing: true,
                                         after: speculative.queriesAfter(wrote: speculative.tablesWritten).answer)
            outcome = .committed(tip, base: base, speculative)
            if members.count > 1 { oneCallTrace("group of \(members.count) committed") }
        } catch let refusal as PostgresRefusal where refusal.isConflict || refusal.sqlState == "23505" {
            oneCallTrace("group of \(members.count) refused: \(refusal.message)")
            outcome = .alone(tryPredictions: members.count > 1)
        } catch let refusal as PostgresRefusal where refusal.sqlState == Self.undefinedFunction {
            oneCallTrace("no answers after commit: \(refusal.message)")
            answersAfterCommit.store(false, ordering: .relaxed)
            outcome = .alone(tryPredictions: false)
        } catch {
            // A connection lost in the commit: it may or may not have committed, as for a write alone — reported to
            // each, never written again here (a retried request id answers its first outcome).
            outcome = .failed(error)
        }
        for member in members { member.settle(outcome) }
    }

    func read<T>(_ body: (any SQLTransaction) throws -> T) throws -> T {
        try transaction(begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", lock: nil, body)
    }

    /// One statement on a pooled connection outside a transaction: one round trip instead of BEGIN, the query, COMMIT.
    func query(_ sql: String, arguments: [SQLValue]) throws -> [SQLRow] {
        try withFreshConnection { connection in try PostgresTransaction(store: self, connection: connection).rows(sql, arguments: arguments) }
    }

    func holdsLedger() throws -> Bool {
        try read { db in
            try db.exists("SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'journal'")
        }
    }

    func migrate() throws -> [String] {
        try withConnection { connection in
            _ = try run(connection, "SELECT pg_advisory_lock(\(Self.migrationLock))", [])
            var done: [String] = []
            var applied: Set<String> = []
            do {
                _ = try run(connection, "CREATE TABLE IF NOT EXISTS rbs_schema_steps (name TEXT PRIMARY KEY, applied_ms BIGINT NOT NULL)", [])
                applied = Set(try run(connection, "SELECT name FROM rbs_schema_steps", []).compactMap { $0.values.first.flatMap(String.init(sqlValue:)) })
                // A newer rbs-host upgraded the database (v30 changed how every commit keeps the others out): this
                // one would write by rules the others no longer keep.
                let unknown = applied.subtracting(LedgerSchema.steps.map(\.name)).sorted()
                guard unknown.isEmpty else {
                    throw PostgresRefusal(sqlState: "", message: "the database was upgraded by a newer rbs-host (schema steps this one does not know: "
                        + unknown.joined(separator: ", ") + "); every host of one database runs the same version — start this one from that version")
                }
                for step in LedgerSchema.steps where !applied.contains(step.name) {
                    _ = try run(connection, "BEGIN", [])
                    do {
                        try step.apply(PostgresTransaction(store: self, connection: connection))
                        _ = try run(connection, "INSERT INTO rbs_schema_steps (name, applied_ms) VALUES ($1, $2)",
                                    [.text(step.name), .integer(Timestamp.milliseconds(Date()))])
                        _ = try run(connection, "COMMIT", [])
                    } catch {
                        _ = try? run(connection, "ROLLBACK", [])
                        throw error
                    }
                    done.append(step.name)
                }
            } catch {
                _ = try? run(connection, "SELECT pg_advisory_unlock(\(Self.migrationLock))", [])
                throw error
            }
            _ = try run(connection, "SELECT pg_advisory_unlock(\(Self.migrationLock))", [])
            oneCallWrites.store(applied.contains(Self.oneCallStep) || done.contains(Self.oneCallStep), ordering: .relaxed)
            serverSequencing.store(applied.contains(Self.chainStep) || done.contains(Self.chainStep), ordering: .relaxed)
            answersAfterCommit.store(applied.contains(Self.answersStep) || done.contains(Self.answersStep), ordering: .relaxed)
            answersAsRows.store(applied.contains(Self.answersAsRowsStep) || done.contains(Self.answersAsRowsStep), ordering: .relaxed)
            keptPlans.store(applied.contains(Self.keptPlansStep) || done.contains(Self.keptPlansStep), ordering: .relaxed)
            integrationApart.store(applied.contains(Self.integrationStep) || done.contains(Self.integrationStep), ordering: .relaxed)
            positions.store(applied.contains(Self.sequencedStep) || done.contains(Self.sequencedStep), ordering: .relaxed)
            return done
        }
    }

    func appliedSteps() throws -> [String] {
        let applied: Set<String> = try read { db in
            guard try db.exists("SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'rbs_schema_steps'") else {
                return []
            }
            return Set(try db.values(String.self, "SELECT name FROM rbs_schema_steps"))
        }
        positions.store(applied.contains(Self.sequencedStep), ordering: .relaxed)
        let known = LedgerSchema.steps.map(\.name)
        return known.filter(applied.contains) + applied.subtracting(known).sorted()
    }

    func close() throws {
        isClosed.store(true, ordering: .sequentiallyConsistent)
        closeAll()
    }

    func ledgerError(_ error: any Error) -> LedgerError {
        switch error {
        case let error as LedgerError: return error
        case let failure as PostgresFailure: return .server(failure)
        case let refused as PostgresRefusal: return .database(path: place, detail: refused.message)
        default: return .database(path: place, detail: String(describing: error))
        }
    }

    // MARK: - Transactions

    /// Runs `body` between `begin` and COMMIT on a pooled connection, taking `lock` first.
    ///
    /// A connection found broken at BEGIN (an idle one the server dropped while it restarted) is replaced and the
    /// transaction started again: nothing of it had reached the server. A conflict the server reports
    /// (serialisation failure, deadlock) runs the whole transaction again, up to ``maximumAttempts`` times. A
    /// connection lost later fails the operation.
    private func transaction<T>(begin: String, lock: String?, then first: String? = nil,
                                _ body: (any SQLTransaction) throws -> T) throws -> T {
        var conflicts = 0
        var staleConnections = 0
        while true {
            let connection = try checkout()
            do {
                _ = try run(connection, begin, [])
            } catch let failure as PostgresFailure {
                discard(connection)
                guard case .connectionLost = failure, staleConnections <= Self.idleLimit else { throw failure }
                staleConnections += 1
                continue
            }
            do {
                if let lock { _ = try run(connection, lock, []) }
                if let first { _ = try run(connection, first, []) }
                let value = try body(PostgresTransaction(store: self, connection: connection))
                _ = try run(connection, "COMMIT", [])
                checkin(connection)
                return value
            } catch let failure as PostgresFailure {
                discard(connection)
                throw failure
            } catch {
                do {
                    _ = try run(connection, "ROLLBACK", [])
                    checkin(connection)
                } catch {
                    discard(connection)
                }
                if let refusal = error as? PostgresRefusal, refusal.isConflict {
                    conflicts += 1
                    guard conflicts < Self.maximumAttempts else {
                        throw PostgresFailure.retriesExhausted(server: serverName, attempts: conflicts, detail: refusal.message)
                    }
                    Self.pause(after: conflicts, microseconds: 1_000...5_000)
                    continue
                }
                throw error
            }
        }
    }

    /// Runs one statement outside any transaction (`CREATE DATABASE`, `DROP DATABASE`) on the server and database
    /// of `address`: the tests' fresh databases, an operator's set-up.
    static func administer(_ sql: String, at address: PostgresAddress) throws(LedgerError) {
        let store = try PostgresStore(address: address)
        defer { try? store.close() }
        do {
            _ = try store.withConnection { connection in try store.run(connection, sql, []) }
        } catch {
            throw store.ledgerError(error)
        }
    }

    /// Runs `body` with a pooled connection outside a transaction, like ``withConnection(_:)``, but one found closed
    /// before anything was sent (an idle connection the server dropped) is replaced and `body` run again.
    private func withFreshConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        var stale = 0
        while true {
            do {
                return try withConnection(body)
            } catch PostgresFailure.connectionLost(_, let detail) where detail == Self.closedBeforeSending && stale < Self.idleLimit {
                stale += 1
            }
        }
    }

    /// What ``call(_:_:_:)`` says of a connection found closed before it sent anything.
    private static let closedBeforeSending = "the server closed the connection before the statement was sent"

    /// Runs `body` with a pooled connection outside a transaction; the connection goes back unless it broke.
    private func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        let connection = try checkout()
        do {
            let value = try body(connection)
            checkin(connection)
            return value
        } catch let failure as PostgresFailure {
            discard(connection)
            throw failure
        } catch {
            checkin(connection)
            throw error
        }
    }

    // MARK: - One-call writes

    /// PostgreSQL's SQLSTATE for a function that does not exist (`undefined_function`).
    static let undefinedFunction = "42883"
    /// PostgreSQL's SQLSTATE for an EXECUTE of a prepared statement the session does not hold (`invalid_sql_statement_name`).
    static let unknownPlan = "26000"

    /// How many times a body may ask for rows it could not know to ask for before (each a round trip).
    static let maximumReadRounds = 4

    /// A short pause before a refused transaction runs again, growing with the refusals so far and with jitter, so the
    /// conflicting hosts (or transactions) do not meet again at once: `conflicts` × a random time in `microseconds`.
    private static func pause(after conflicts: Int, microseconds: ClosedRange<UInt32> = 200...1_000) {
        usleep(UInt32.random(in: microseconds) * UInt32(conflicts))
    }

    /// Whether the server has the one-call functions (schema step `v19-one-call-writes`); set by ``migrate()``.
    private let oneCallWrites = Atomic<Bool>(false)
    /// Whether the server binds the journal's numbers and hashes at commit (schema step `v21-chain-in-server`).
    private let serverSequencing = Atomic<Bool>(false)

    /// The one-call functions a write called are gone (a database restored from before their step, which the next
    /// start applies again): without `v21`'s, this host stops numbering at commit; without `v19`'s, it writes the
    /// classic way until then.
    private func functionsMissing(sequencing: Bool) {
        if sequencing {
            serverSequencing.store(false, ordering: .relaxed)
            answersAfterCommit.store(false, ordering: .relaxed)
            answersAsRows.store(false, ordering: .relaxed)
            keptPlans.store(false, ordering: .relaxed)
        } else {
            oneCallWrites.store(false, ordering: .relaxed)
        }
    }
    /// The columns of the ledger's tables that hold bytes (BYTEA) and never text, read once: JSON gives both as
    /// strings, and a column name that is bytes in one table and text in another sends its query the classic way.
    private let byteColumns = Mutex<(bytes: Set<String>, ambiguous: Set<String>)?>(nil)
    /// The rows the queries of the last transactions gave, by query: guesses that let a body ask its later queries
    /// in the same round trip as its first ones (never used to decide: every query a commit rests on is fetched, or
    /// answered from ``predictedAnswers``, and checked by the commit either way).
    private let recentReads = Mutex<[String: [SQLRow]]>([:])
    /// Whether the commit answers its queries again after its writes (schema step `v22-answers-after-commit`).
    private let answersAfterCommit = Atomic<Bool>(false)
    /// Whether it answers them as rows (schema step `v24-answers-as-rows`), cheaper for the server than cells.
    private let answersAsRows = Atomic<Bool>(false)
    /// Whether the commit runs its statements from the server session's kept plans (schema step `v26-kept-plans`).
    private let keptPlans = Atomic<Bool>(false)
    /// Whether entries are stored with their hashes' parts and chained apart (schema step `v29-chain-integrated-apart`).
    private let integrationApart = Atomic<Bool>(false)
    /// Whether entries have ids and positions (schema step `v30-sequenced-apart`): the commit then runs
    /// `rbs_v30_commit_durably`, without the ledger's lock.
    let positions = Atomic<Bool>(false)
    /// What the last commits' queries gave after their writes, by query text: a transaction whose queries are all
    /// here (or are once-only id lookups) is committed on them in one round trip (``writeReportingTip(_:)``). Each is
    /// checked by the commit like a fetched answer, so a stale one costs a refused commit, never a wrong decision.
    private let predictedAnswers = Mutex<[String: SpeculativeTransaction.Answer]>([:])
    /// How many queries' answers are kept (a host's customers' code states, keys, accounts, policies); when full,
    /// they are dropped and gathered again.
    private static let predictedLimit = 4_096
    /// Statements (round trips) sent to the server by this store so far: what the tests count per payment.
    let roundTrips = Atomic<Int>(0)

    /// Fetches the rows of the `missing` queries in one round trip (`rbs_v19_read`, each after the writes of the
    /// transaction before it, undone again) into `answered`, with each query's digest, by the query's key.
    /// False when a row holds what the one-call path does not read (a column both bytes and text, a JSON value).
    /// With `sequencing`, through `rbs_v21_read` (the provisional numbers of writes read after bound to the tip now).
    private func fetch(_ missing: [SpeculativeTransaction.Missing], after writes: [String], sequencing: Bool,
                       into answered: inout [String: [SQLRow]], digests: inout [String: String]) throws -> Bool {
        let types = try columnTypes()
        let needed = missing.map(\.writesBefore).max() ?? 0
        let cells = try withFreshConnection { connection in
            try call(connection, "SELECT * FROM \(sequencing ? "rbs_v21_read" : "rbs_v19_read")($1, $2, $3)",
                     [.texts(Array(writes.prefix(needed))), .texts(missing.map(\.text)), .integers(missing.map { Int64($0.writesBefore) })])
        }
        let queries = missing.map(\.key)
        var parsed: [Cell] = []
        parsed.reserveCapacity(cells.count)
        for cell in cells {
            guard cell.values.count == 6, case .integer(let query) = cell.values[0], case .integer(let row) = cell.values[1] else {
                return false
            }
            parsed.append(Cell(query: Int(query), row: row, name: String(sqlValue: cell.values[3]),
                               kind: String(sqlValue: cell.values[4]) ?? "", value: String(sqlValue: cell.values[5])))
        }
        guard let answers = Self.answers(from: parsed, queries: queries.count, types: types) else { return false }
        for (index, answer) in answers {
            answered[queries[index]] = answer.rows
            digests[queries[index]] = answer.digest
        }
        return queries.allSatisfy { answered[$0] != nil }
    }

    /// One cell of what `rbs_v21_read` and `rbs_v22_answers` answer: a query's (1-based) row's column, or with the
    /// kind `digest` the query's digest.
    struct Cell: Equatable {
        let query: Int
        let row: Int64
        let name: String?
        let kind: String
        let value: String?
    }

    /// The rows and digest of each query (0-based) from its cells, in the order the functions give them (a query's
    /// rows, cell by cell, then its digest). Nil when a cell holds what the one-call path does not read (a column
    /// both bytes and text, a JSON value, an unknown query) or a query has no digest.
    static func answers(from cells: [Cell], queries: Int,
                        types: (bytes: Set<String>, ambiguous: Set<String>)) -> [Int: SpeculativeTransaction.Answer]? {
        var collected: [Int: [SQLRow]] = [:]
        var answers: [Int: SpeculativeTransaction.Answer] = [:]
        var names: [String] = [], values: [SQLValue] = []
        var current: (query: Int, row: Int64)?
        func finishRow() {
            if let current, !names.isEmpty {
                collected[current.query, default: []].append(SQLRow(columns: SQLColumns(names), values: values))
            }
            names = []
            values = []
        }
        for cell in cells {
            guard (1...queries).contains(cell.query) else { return nil }
            let index = cell.query - 1
            if current.map({ $0.query != index || $0.row != cell.row }) ?? true {
                finishRow()
                current = (index, cell.row)
            }
            if cell.kind == "digest" {
                answers[index] = SpeculativeTransaction.Answer(rows: collected[index] ?? [], digest: cell.value ?? "")
                current = nil
                continue
            }
            let name = cell.name ?? ""
            let text = cell.value
            switch cell.kind {
            case "null": values.append(.null)
            case "boolean": values.append(.integer(text == "true" ? 1 : 0))
            case "number":
                guard let text, let number = Int64(text) else { return nil }
                values.append(.integer(number))
            case "string":
                guard let text, !types.ambiguous.contains(name) else { return nil }
                if types.bytes.contains(name) {
                    guard text.hasPrefix("\\x"), let bytes = Hex.decode(String(text.dropFirst(2))) else { return nil }
                    values.append(.blob(bytes))
                } else {
                    values.append(.text(text))
                }
            default:
                return nil
            }
            names.append(name)
        }
        return answers.count == queries ? answers : nil
    }

    /// `rbs_v22_answers`'s JSON text (an array of `[query, row, column, name, kind, value]` arrays) as cells; nil
    /// when it is not that.
    static func cells(fromJSON text: String) -> [Cell]? {
        guard let array = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [Any] else { return nil }
        var cells: [Cell] = []
        cells.reserveCapacity(array.count)
        for item in array {
            guard let cell = item as? [Any], cell.count == 6, let query = cell[0] as? Int, let row = cell[1] as? Int,
                  let kind = cell[4] as? String else { return nil }
            cells.append(Cell(query: query, row: Int64(row), name: cell[3] as? String, kind: kind, value: cell[5] as? String))
        }
        return cells
    }

    /// Runs `operations` in one server transaction (`rbs_v19_commit`, through `rbs_v19_commit_durably`): one round trip. Each query is checked against
    /// its digest, each write run, in order. Returns the ledger's tip after it and, with `sequencing` (through
    /// `rbs_v21_commit_durably`), the tip before it, after which the server numbered the body's provisional entries.
    ///
    /// With schema step `v22-answers-after-commit` (and `sequencing`), through `rbs_v22_commit_durably`: `after` are
    /// queries the server answers again after the writes, before it commits; their rows and digests are kept as the
    /// next transactions' predictions (``predictedAnswers``).
    private func commit(_ operations: [SpeculativeTransaction.Operation], digests: [String: String],
                        sequencing: Bool, after: [(text: String, kept: PostgresSQL.Parametrized)],
                        keeping: [String: SpeculativeTransaction.Answer] = [:]) throws -> (tip: LedgerTip, base: BoundNumbers?) {
        let answering = sequencing && answersAfterCommit.load(ordering: .relaxed)
        // With ids and positions (v30), the commit is SERIALIZABLE without the ledger's lock: a once-only id's lookup
        // that found nothing is looked up again before that transaction (digest `once`), and one that found a row
        // (the id is taken: append-only, it stays so) not at all — the unique key on the id refuses a second insert
        // (23505, decided again) — so two payments do not conflict over the index pages their lookups read and their
        // inserts write.
        // Every one-call commit goes this way, whether it numbers entries or not (a customer's attempts cleared, a
        // release added): none may run beside it under the old procedures, which keep out only each other.
        let sequenced = answersAfterCommit.load(ordering: .relaxed) && keptPlans.load(ordering: .relaxed)
            && integrationApart.load(ordering: .relaxed) && positions.load(ordering: .relaxed) && !ledgerLockBaseline
        var statements: [String] = [], expected: [String] = [], kept: [PostgresSQL.Parametrized] = []
        statements.reserveCapacity(operations.count)
        kept.reserveCapacity(operations.count)
        for operation in operations {
            switch operation {
            case .query(let text, let key, let plan):
                var digest = digests[key] ?? "-"
                if sequenced && SpeculativeTransaction.isOnceOnlyLookup(plan.template) {
                    guard digest == SpeculativeTransaction.emptyDigest else { continue }
                    digest = PostgresSQL.onceOnly
                }
                statements.append(text)
                kept.append(plan)
                expected.append(digest)
            case .write(let text, let plan):
                statements.append(text)
                kept.append(plan)
                expected.append("")
            }
        }
        let (rows, asRows) = try withFreshConnection { connection in
            // A procedure that commits before it answers (`rbs_v19_commit_durably`): postgres-nio completes a query
            // at its CommandComplete, which the server sends before an implicit transaction commits (at Sync) — so
            // `SELECT rbs_v19_commit(…)` was answered before the commit was durable, and a primary crashing then lost
            // an acknowledged payment (PostgresFailoverTests found it). CALL's row comes after the COMMIT inside,
            // which with a synchronous standby has waited for it.
            // Each run of consecutive checks as one kept query (``PostgresSQL/mergedChecks(_:digests:)``).
            func arguments(_ digests: [String]) -> [ArrayArgument] {
                let (checks, checkDigests) = PostgresSQL.mergedChecks(kept, digests: digests)
                return [
                    .texts(checks.map(\.template)), .texts(checks.map(\.arguments)), .texts(checks.map(\.types)), .texts(checkDigests),
                    .texts(after.map(\.kept.template)), .texts(after.map(\.kept.arguments)), .texts(after.map(\.kept.types)),
                ]
            }
            if sequenced {
                do {
                    return (try call(connection, "CALL rbs_v30_commit_durably($1, $2, $3, $4, $5, $6, $7)", arguments(expected)), true)
                } catch let refusal as PostgresRefusal where refusal.sqlState == Self.undefinedFunction {
                    // A database restored from before v30: nothing ran; v29's commit numbers as before, and checks a
                    // once-only lookup as any query.
                    oneCallTrace("no sequenced commit: \(refusal.message)")
                    positions.store(false, ordering: .relaxed)
                    expected = expected.map { $0 == PostgresSQL.onceOnly ? SpeculativeTransaction.emptyDigest : $0 }
                }
            }
            if answering && keptPlans.load(ordering: .relaxed) {
                // As v24's, each statement from the session's kept plan. A database restored from before v26 lacks
                // the procedure, and a session whose plans were dropped behind its back (a DEALLOCATE ALL) refuses
                // with 26000: nothing ran either way, so the same commit goes through v24's; the first case also
                // keeps this host there until a restart applies the step again.
                // With schema step v29, the same procedure that then chains the entries stored, after the lock
                // (``LedgerSchema``'s `integrationApart`). A database restored from before it lacks the procedure:
                // nothing ran, and the commit goes through v26's (its entries integrated by whoever integrates next).
                let arguments = arguments(expected)
                if integrationApart.load(ordering: .relaxed) {
                    do {
                        return (try call(connection, "CALL rbs_v29_commit_durably($1, $2, $3, $4, $5, $6, $7)", arguments), true)
                    } catch let refusal as PostgresRefusal where refusal.sqlState == Self.undefinedFunction {
                        oneCallTrace("no integration apart: \(refusal.message)")
                        integrationApart.store(false, ordering: .relaxed)
                    }
                }
                do {
                    return (try call(connection, "CALL rbs_v26_commit_durably($1, $2, $3, $4, $5, $6, $7)", arguments), true)
                } catch let refusal as PostgresRefusal where refusal.sqlState == Self.undefinedFunction || refusal.sqlState == Self.unknownPlan {
                    oneCallTrace("no kept plans: \(refusal.message)")
                    if refusal.sqlState == Self.undefinedFunction {
                        keptPlans.store(false, ordering: .relaxed)
                    } else {
                        // The session names plans it no longer holds: it forgets them, and PREPAREs each again.
                        _ = try? run(connection, "SELECT set_config('rbs.kept_plans', '', false)", [])
                    }
                }
            }
            if answering {
                let arguments: [ArrayArgument] = [.texts(statements), .texts(expected), .texts(after.map(\.text))]
                if answersAsRows.load(ordering: .relaxed) {
                    // A database restored from before v24 lacks the procedure: nothing ran (the call failed at its
                    // lookup), so the same commit goes through v22's, and this host stays with it until a restart
                    // applies the step again.
                    do {
                        return (try call(connection, "CALL rbs_v24_commit_durably($1, $2, $3)", arguments), true)
                    } catch let refusal as PostgresRefusal where refusal.sqlState == Self.undefinedFunction {
                        oneCallTrace("no answers as rows: \(refusal.message)")
                        answersAsRows.store(false, ordering: .relaxed)
                    }
                }
                return (try call(connection, "CALL rbs_v22_commit_durably($1, $2, $3)", arguments), false)
            }
            return (try call(connection, "CALL \(sequencing ? "rbs_v21_commit_durably" : "rbs_v19_commit_durably")($1, $2)",
                             [.texts(statements), .texts(expected)]), false)
        }
        guard let row = rows.first else {
            throw PostgresRefusal(sqlState: "", message: "rbs_v19_commit answered no row")
        }
        let tip = LedgerTip(
            ledgerId: try row.decode(String?.self, forColumn: "tip_ledger_id") ?? "",
            sequence: try row.decode(Int64.self, forColumn: "tip_seq"),
            hash: try row.decode(Data?.self, forColumn: "tip_hash") ?? JournalEntry.genesisHash,
            codeStep: try row.decode(Int64?.self, forColumn: "code_step"),
            codeFailures: Int(try row.decode(Int64.self, forColumn: "code_failures")),
            lockedUntil: try row.decode(Int64?.self, forColumn: "code_locked_until"))
        if answering || sequenced, row.columns.names.contains("answers"), let text = try row.decode(String?.self, forColumn: "answers"),
           let cells = asRows ? Self.cells(fromRowsJSON: text) : Self.cells(fromJSON: text),
           let types = byteColumns.withLock({ $0 }), let answers = Self.answers(from: cells, queries: after.count, types: types) {
            predictedAnswers.withLock { predicted in
                if predicted.count + answers.count + keeping.count > Self.predictedLimit { predicted.removeAll(keepingCapacity: true) }
                for (index, answer) in answers { predicted[after[index].text] = answer }
                predicted.merge(keeping) { _, kept in kept }
            }
        }
        guard sequencing else { return (tip, nil) }
        if row.columns.names.contains("journal_ids") {
            let text = try row.decode(String?.self, forColumn: "journal_ids") ?? ""
            return (tip, BoundNumbers(ids: text.split(separator: ",").compactMap { Int64($0) }))
        }
        return (tip, BoundNumbers(base: try row.decode(Int64.self, forColumn: "journal_base")))
    }

    /// The byte columns of the ledger's tables (one round trip, the first time).
    private func columnTypes() throws -> (bytes: Set<String>, ambiguous: Set<String>) {
        if let known = byteColumns.withLock({ $0 }) { return known }
        let rows = try read { db in
            try db.rows("""
                SELECT column_name, bool_and(data_type = 'bytea') AS only_bytes, bool_or(data_type = 'bytea') AS some_bytes
                FROM information_schema.columns WHERE table_schema = current_schema() GROUP BY column_name
                """)
        }
        var bytes: Set<String> = [], ambiguous: Set<String> = []
        for row in rows {
            let name = try row.decode(String.self, forColumn: "column_name")
            if try row.decode(Bool.self, forColumn: "only_bytes") { bytes.insert(name) }
            else if try row.decode(Bool.self, forColumn: "some_bytes") { ambiguous.insert(name) }
        }
        byteColumns.withLock { $0 = (bytes, ambiguous) }
        return (bytes, ambiguous)
    }

    // MARK: - Statements

    /// An argument of the one-call functions: an array.
    private enum ArrayArgument {
        case texts([String])
        case integers([Int64])
    }

    /// Runs one statement whose arguments are arrays (the one-call functions') and reads its rows.
    private func call(_ connection: PostgresConnection, _ sql: String, _ arrays: [ArrayArgument]) throws -> [SQLRow] {
        guard !connection.isClosed else {
            throw PostgresFailure.connectionLost(server: serverName, detail: Self.closedBeforeSending)
        }
        var binds = PostgresBindings(capacity: arrays.count)
        for array in arrays {
            switch array {
            case .texts(let texts): binds.append(texts)
            case .integers(let numbers): binds.append(numbers)
            }
        }
        roundTrips.wrappingAdd(1, ordering: .relaxed)
        let future = connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger)
            .flatMapThrowing { result in try Self.rows(of: result) }
        return try wait(future, seconds: address.statementTimeout + 5, connection: connection)
    }

    /// Runs one statement (`$n` placeholders) and reads its rows.
    func run(_ connection: PostgresConnection, _ sql: String, _ arguments: [SQLValue]) throws -> [SQLRow] {
        guard !connection.isClosed else {
            throw PostgresFailure.connectionLost(server: serverName, detail: "the server closed the connection")
        }
        var binds = PostgresBindings(capacity: arguments.count)
        for argument in arguments {
            switch argument {
            case .null: binds.appendNull()
            case .integer(let value): binds.append(value)
            case .text(let text): binds.append(text)
            case .blob(let bytes): binds.append(ByteBuffer(bytes: bytes))
            }
        }
        let query = PostgresQuery(unsafeSQL: sql, binds: binds)
        roundTrips.wrappingAdd(1, ordering: .relaxed)
        let future = connection.query(query, logger: logger).flatMapThrowing { result in try Self.rows(of: result) }
        return try wait(future, seconds: address.statementTimeout + 5, connection: connection)
    }

    /// The rows of a result as ``SQLRow``s.
    private static func rows(of result: PostgresQueryResult) throws -> [SQLRow] {
        guard let first = result.rows.first else { return [] }
        let columns = SQLColumns(first.map(\.columnName))
        return try result.rows.map { row in SQLRow(columns: columns, values: try row.map(value)) }
    }

    /// One cell as an ``SQLValue``: integers, text, bytes and NULL (what the ledger's tables hold).
    private static func value(_ cell: PostgresCell) throws -> SQLValue {
        guard var bytes = cell.bytes, cell.dataType != .void else { return .null }
        switch cell.dataType {
        case .int2, .int4, .int8:
            return .integer(try cell.decode(Int64.self))
        case .bool:
            return .integer(try cell.decode(Bool.self) ? 1 : 0)
        case .bytea:
            if cell.format == .text { return .blob(Data(try cell.decode(ByteBuffer.self).readableBytesView)) }
            return .blob(Data(bytes.readableBytesView))
        case .text, .varchar, .name, .bpchar:
            return .text(bytes.readString(length: bytes.readableBytes) ?? "")
        default:
            throw PostgresRefusal(sqlState: "", message: "column \(cell.columnName) has the type \(cell.dataType), which the ledger does not read (integers, text and bytes only)")
        }
    }

    // MARK: - Connections

    /// An idle connection, or a new one.
    private func checkout() throws -> PostgresConnection {
        guard !isClosed.load(ordering: .sequentiallyConsistent) else {
            throw PostgresFailure.connectionLost(server: serverName, detail: "the ledger was closed")
        }
        while let connection = idle.withLock({ $0.popLast() }) {
            if !connection.isClosed { return connection }
            discard(connection)
        }
        return try connect()
    }

    private func checkin(_ connection: PostgresConnection) {
        let kept = !isClosed.load(ordering: .sequentiallyConsistent) && !connection.isClosed && idle.withLock { idle in
            guard idle.count < Self.idleLimit else { return false }
            idle.append(connection)
            return true
        }
        if !kept { discard(connection) }
    }

    /// Closes a connection and waits (briefly) until it is.
    private func discard(_ connection: PostgresConnection) {
        _ = try? wait(connection.close(), seconds: 2, connection: nil)
    }

    private func closeAll() {
        for connection in idle.withLock({ idle in defer { idle.removeAll() }; return idle }) { discard(connection) }
    }

    /// A new connection to the first of the address's servers that takes it (the one that did last time first):
    /// with `target_session_attrs=read-write`, a server that does not accept writes (a standby in recovery) is
    /// passed over, so after a failover the promoted standby is found. With one server, its own failure is the
    /// answer; with several, every server's reason.
    private func connect() throws -> PostgresConnection {
        let servers = address.servers
        guard servers.count > 1 || address.targetSession == .readWrite else { return try connect(to: servers[0]) }
        let first = preferredServer.load(ordering: .relaxed) % servers.count
        var reasons: [String] = []
        var onlyFailure: (any Error)?
        for offset in 0..<servers.count {
            let index = (first + offset) % servers.count
            let connection: PostgresConnection
            do {
                connection = try connect(to: servers[index])
            } catch {
                reasons.append("\(servers[index]): \(Self.reason(connecting: error))")
                onlyFailure = error
                continue
            }
            if address.targetSession == .readWrite {
                let readOnly: Bool
                do {
                    readOnly = try run(connection, "SHOW transaction_read_only", []).first?.values.first.flatMap(String.init(sqlValue:)) == "on"
                } catch {
                    discard(connection)
                    reasons.append("\(servers[index]): \(Self.reason(connecting: error))")
                    onlyFailure = error
                    continue
                }
                if readOnly {
                    discard(connection)
                    reasons.append("\(servers[index]): it takes no writes (a standby in recovery; target_session_attrs=read-write)")
                    onlyFailure = PostgresFailure.unreachable(server: servers[index].description,
                                                              detail: "it takes no writes (a standby in recovery)")
                    continue
                }
            }
            preferredServer.store(index, ordering: .relaxed)
            return connection
        }
        if servers.count == 1, let onlyFailure { throw onlyFailure }
        throw PostgresFailure.unreachable(server: serverName, detail: "no server takes writes: " + reasons.joined(separator: "; "))
    }

    /// What a failed connection attempt says, for the list of every server's reason.
    private static func reason(connecting error: any Error) -> String {
        switch error {
        case PostgresFailure.unreachable(_, let detail), PostgresFailure.connectionLost(_, let detail): detail
        case PostgresFailure.loginRefused(_, let user, let detail): "refused the login of \(user): \(detail)"
        case PostgresFailure.noDatabase(_, let database): "has no database \"\(database)\""
        default: String(describing: error)
        }
    }

    /// A new connection to `server`: logged in, with the statement timeout and an idle-in-transaction limit set.
    private func connect(to server: PostgresAddress.Server) throws -> PostgresConnection {
        var configuration = PostgresConnection.Configuration(
            host: server.host, port: server.port, username: address.user, password: address.password,
            database: address.database, tls: .disable)
        configuration.options.connectTimeout = .seconds(Int64(address.connectTimeout))
        configuration.options.additionalStartupParameters = [
            ("statement_timeout", "\(address.statementTimeout * 1000)"),
            // A host that stops answering inside a transaction (and so holds the ledger's lock) is cut off.
            ("idle_in_transaction_session_timeout", "\(max(address.statementTimeout * 2, 10) * 1000)"),
            ("application_name", "rbs-host"),
        ]
        let id = nextId.wrappingAdd(1, ordering: .relaxed).oldValue
        let future = PostgresConnection.connect(on: group.next(), configuration: configuration, id: id, logger: logger)
        do {
            let connection = try wait(future, seconds: address.connectTimeout + 2, connection: nil)
            // One callback on the connection's close for its whole life (a callback for each statement piled up on
            // the close future, never completed while the connection lived: a pooled connection of a host that
            // runs for days held one for every statement it ever ran).
            let watch = CloseWatch()
            let key = ObjectIdentifier(connection)
            closeWatches.withLock { $0[key] = watch }
            connection.closeFuture.whenComplete { [weak self] _ in
                watch.close()
                self?.closeWatches.withLock { _ = $0.removeValue(forKey: key) }
            }
            return connection
        } catch let failure as PostgresFailure {
            // No answer at all while connecting is an unreachable server, not a slow statement.
            if case .timedOut = failure {
                throw PostgresFailure.unreachable(server: serverName, detail: "no answer within \(address.connectTimeout) s")
            }
            if case .connectionLost(_, let detail) = failure {
                throw PostgresFailure.unreachable(server: serverName, detail: detail)
            }
            throw failure
        } catch let refusal as PostgresRefusal {
            throw loginFailure(refusal)
        }
    }

    /// What a refusal while logging in means: a missing database, a refused login, or a server not taking
    /// connections (starting up, shutting down).
    private func loginFailure(_ refusal: PostgresRefusal) -> PostgresFailure {
        switch refusal.sqlState {
        case "3D000": .noDatabase(server: serverName, database: address.database)
        case "28P01", "28000": .loginRefused(server: serverName, user: address.user, detail: refusal.message)
        case "57P03", "57P01", "57P02", "53300": .unreachable(server: serverName, detail: refusal.message)
        default: .loginRefused(server: serverName, user: address.user, detail: refusal.message)
        }
    }

    /// Blocks the calling thread until `future` completes, at most `seconds`; then closes `connection` (which
    /// cancels what runs on it) and throws ``PostgresFailure/timedOut(server:seconds:)``. Errors come back as
    /// ``PostgresFailure`` (the connection or the server is gone) or ``PostgresRefusal`` (a statement refused).
    private func wait<T>(_ future: EventLoopFuture<T>, seconds: Int, connection: PostgresConnection?) throws -> T {
        precondition(!future.eventLoop.inEventLoop, "PostgresStore blocks a caller's thread, never its event loop")
        let answer = Answer<T>()
        future.whenComplete { result in answer.set(result) }
        // A statement sent on a connection that is closing may never be answered: the closing answers for it.
        let watch = connection.flatMap { connection in closeWatches.withLock { $0[ObjectIdentifier(connection)] } }
        if let connection {
            let server = serverName
            let closing: @Sendable () -> Void = {
                answer.set(.failure(PostgresFailure.connectionLost(server: server, detail: "the server closed the connection")))
            }
            if let watch {
                watch.set(closing)
            } else {
                connection.closeFuture.whenComplete { _ in closing() }
            }
        }
        defer { watch?.clear() }
        guard answer.wait(seconds: seconds) else {
            if let connection { let _: EventLoopFuture<Void> = connection.close() }
            throw PostgresFailure.timedOut(server: serverName, seconds: seconds)
        }
        switch answer.result! {
        case .success(let value): return value
        case .failure(let error): throw translate(error)
        }
    }

    /// A postgres-nio or NIO error as ``PostgresFailure`` or ``PostgresRefusal``.
    private func translate(_ error: any Error) -> any Error {
        if let error = error as? PSQLError {
            switch error.code {
            case .server:
                let state = error.serverInfo?[.sqlState] ?? ""
                var message = error.serverInfo?[.message] ?? "refused"
                if let detail = error.serverInfo?[.detail] { message += " (\(detail))" }
                if state == "57014" { return PostgresFailure.timedOut(server: serverName, seconds: address.statementTimeout) }
                // The server shutting down or killing this session: an outage, not a refusal.
                if ["57P01", "57P02", "57P05"].contains(state) || state.hasPrefix("08") {
                    return PostgresFailure.connectionLost(server: serverName, detail: message)
                }
                // A write on a server that takes none (a standby; a primary demoted since the connection was made):
                // this connection is of no use to a ledger host, the next one looks for the server that is primary now.
                if state == "25006" {
                    return PostgresFailure.connectionLost(server: serverName, detail: "the server takes no writes now (\(message))")
                }
                if state == "23505", error.serverInfo?[.constraintName] == "journal_unique_document" {
                    return PostgresRefusal(sqlState: state, message: "the document is already journaled")
                }
                return PostgresRefusal(sqlState: state, message: message)
            case .connectionError:
                return PostgresFailure.connectionLost(server: serverName, detail: Self.reason(error.underlying))
            case .serverClosedConnection, .uncleanShutdown, .clientClosedConnection, .poolClosed:
                return PostgresFailure.connectionLost(server: serverName, detail: "the server closed the connection")
            case .unsupportedAuthMechanism, .authMechanismRequiresPassword, .saslError:
                return PostgresFailure.loginRefused(server: serverName, user: address.user,
                                                    detail: error.code == .authMechanismRequiresPassword
                                                        ? "the server asks for a password and none was given" : "\(error.code)")
            case .sslUnsupported, .failedToAddSSLHandler, .receivedUnencryptedDataAfterSSLRequest:
                return PostgresFailure.unreachable(server: serverName, detail: "TLS: \(error.code)")
            default:
                return PostgresFailure.connectionLost(server: serverName, detail: "\(error.code)")
            }
        }
        if error is ChannelError || error is IOError || error is NIOConnectionError {
            return PostgresFailure.connectionLost(server: serverName, detail: Self.reason(error))
        }
        return error
    }

    /// Why a connection failed, in a few words: "connection refused", "no answer within 5 s", "unknown host".
    private static func reason(_ error: (any Error)?) -> String {
        switch error {
        case let error as NIOConnectionError:
            if error.dnsAError != nil && error.dnsAAAAError != nil && error.connectionErrors.isEmpty {
                return "the host name \(error.host) does not resolve"
            }
            return error.connectionErrors.first.map { reason($0.error) } ?? "cannot connect"
        case let error as IOError:
            return String(cString: strerror(error.errnoCode)).lowercased()
        case let error as ChannelError:
            if case .connectTimeout(let amount) = error { return "no answer within \(amount.nanoseconds / 1_000_000_000) s" }
            return "\(error)"
        case let error?:
            return "\(error)"
        case nil:
            return "cannot connect"
        }
    }
}

/// What a connection's close does to the statement waiting on it (one at a time: a connection is checked out by one
/// caller): `set` before waiting, `clear` after; a connection that closed before `set` fails it at once.
private final class CloseWatch: @unchecked Sendable {
    private let lock = NSLock()
    private var closed = false
    private var onClose: (@Sendable () -> Void)?

    func set(_ fail: @escaping @Sendable () -> Void) {
        let already = lock.withLock { () -> Bool in
            if closed { return true }
            onClose = fail
            return false
        }
        if already { fail() }
    }

    func clear() {
        lock.withLock { onClose = nil }
    }

    func close() {
        let fail = lock.withLock { () -> (@Sendable () -> Void)? in
            closed = true
            defer { onClose = nil }
            return onClose
        }
        fail?()
    }
}

/// The result of a future, handed from the event loop to the waiting thread; the first result set counts.
private final class Answer<T>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var stored: Result<T, any Error>?

    var result: Result<T, any Error>? { lock.withLock { stored } }

    func set(_ result: Result<T, any Error>) {
        let first = lock.withLock { () -> Bool in
            guard stored == nil else { return false }
            stored = result
            return true
        }
        if first { done.signal() }
    }

    /// Whether the answer came within `seconds` (the semaphore orders `result`'s write before the read).
    func wait(seconds: Int) -> Bool {
        done.wait(timeout: .now() + .seconds(seconds)) == .success
    }
}


/// With `RBS_TRACE_ONE_CALL` set, the one-call path says on standard error what it fetches, and each conflict and
/// fall-back to the classic path: what to look at when a write takes more round trips than two.
func oneCallTrace(_ text: @autoclosure () -> String) {
    if tracesOneCall { FileHandle.standardError.write(Data((text() + "\n").utf8)) }
}

/// Read once: the environment as a dictionary was made anew on every write (~2% of a host's CPU a payment).
private let tracesOneCall = ProcessInfo.processInfo.environment["RBS_TRACE_ONE_CALL"] != nil

/// How the server bound a commit's provisional journal numbers (``SpeculativeTransaction/provisionalBase``+k): after
/// the tip it found, `base+k` (schema steps v21–v29), or each entry its own id from the journal's sequence, `ids[k-1]`
/// (v30).
struct BoundNumbers: Sendable {
    var base: Int64?
    var ids: [Int64] = []

    init(base: Int64) { self.base = base }
    init(ids: [Int64]) { self.ids = ids }

    /// `value` with a provisional number bound; any other value as it is.
    func bound(_ value: Int64) -> Int64 {
        guard let k = SpeculativeTransaction.provisionalIndex(value) else { return value }
        if let base { return base + k }
        return k >= 1 && k <= Int64(ids.count) ? ids[Int(k - 1)] : value
    }
}
