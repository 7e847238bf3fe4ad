import Foundation
import Synchronization

/// A write transaction run in the host's memory against rows fetched before, for PostgreSQL's one-call writes
/// (``PostgresStore/writeReportingTip(_:)``): the ledger's Swift code makes every decision as it does in any
/// transaction, but nothing reaches the server while it runs.
///
/// - A query is answered from the rows fetched for it (`answered`: by its text with the arguments inlined and the
///   number of this transaction's writes before it, so a query after a write sees that write). One not fetched yet is
///   listed in ``missing`` and answered with what the same query gave the last transaction (`guesses`) or no
///   rows, so that the body goes on and asks its other queries now: the store fetches every missing query in one
///   round trip and runs the body again, until it asks for nothing new. What the body decided on a guess is thrown
///   away, never written.
/// - A statement that changes rows is kept; ``operations`` lists the writes and the queries the body's decisions
///   rest on, in order, for one call that checks each query still gives the rows fetched (after the writes before
///   it) and runs each write, in one server transaction (`rbs_v19_commit`).
/// - What cannot be run so — a statement that changes rows and returns some, a script — sets
///   ``lockedPathReason``: the store then runs the body the classic way, statement by statement under the lock.
///
/// With `sequencing` (schema step `v21-chain-in-server`) the journal's tip is not read: the body is told a provisional
/// tip (``provisionalBase``), numbers its entries `base+1`, `base+2`, … and its commit binds each to `tip+k` inside the
/// server, under the lock, with the chain hash computed there (``CommitSequencedTransaction``). So two payments on
/// unrelated rows share no query whose rows the other changes, and both commit without a retry.
final class SpeculativeTransaction: CommitSequencedTransaction {
    /// A query or a write of the transaction, arguments inlined; a query with the key its rows are fetched by. Each
    /// also as the plan the server keeps for its text and the values to run it with (`kept`, schema step
    /// `v26-kept-plans`).
    enum Operation {
        case query(text: String, key: String, kept: PostgresSQL.Parametrized)
        case write(String, kept: PostgresSQL.Parametrized)
    }

    /// A query to fetch: its text, how many of the transaction's writes run before it, and its key.
    struct Missing {
        let text: String
        let writesBefore: Int
        let key: String
    }

    var dialect: SQLDialect { .postgres }
    private let answered: [String: [SQLRow]]
    private let guesses: [String: [SQLRow]]
    /// Queries asked for and not fetched yet, in the order asked, each once.
    private(set) var missing: [Missing] = []
    /// The writes and the fetched queries the body used, in order (each query once).
    private(set) var operations: [Operation] = []
    /// The writes so far, in order.
    private(set) var writes: [String] = []
    /// The rows each fetched query gave, by its text: the next transaction's guesses.
    private(set) var used: [String: [SQLRow]] = [:]
    /// Why this body must run under the ledger's lock instead (nil while it need not).
    private(set) var lockedPathReason: String?
    private var asked: Set<String> = []

    /// Whether the journal's entries are numbered by the server at commit (``provisionalBase``).
    let sequencing: Bool
    /// Whether the body asked for the journal's tip and was told the provisional one: its numbers are then provisional.
    private(set) var toldProvisionalTip = false
    /// The last entry this transaction inserted with a provisional number, and the hash the body gave it: the tip a
    /// later question in the same transaction is told, so a second numbering goes on from there.
    private var provisionalTip: (sequence: Int64, hash: Data)?

    /// A query's rows and their digest as the server answered them (`rbs_v22_answers`).
    struct Answer: Sendable {
        let rows: [SQLRow]
        let digest: String
    }

    /// What the last commits' queries gave after their writes, by query text (schema step `v22-answers-after-commit`):
    /// the best guesses; and `onPredictions`, a query not fetched is answered from here, and a once-only id lookup (``presumedEmpty``) with no
    /// rows, each with the digest the commit checks. A query neither answers sets ``predictionMissed``.
    private let predicted: ((String) -> Answer?)?
    /// The digest to check at commit for each query answered from `predicted`, by key.
    private(set) var predictedDigests: [String: String] = [:]
    /// Whether a query was neither fetched nor predicted: the body's decisions then rest on a guess, and it is not
    /// committed on predictions.
    private(set) var predictionMissed = false
    /// The texts of the queries answered so that are once-only id lookups: no use to answer again after the commit.
    private var presumedTexts: Set<String> = []

    /// The lookups of a once-only id (a document's id in the journal, a request id `serve` was given): made fresh by
    /// every payment, so never among the answers kept, and almost always empty. Presumed empty; the commit's check
    /// catches the rare repeat (a request sent again), which is then read and answered with its first outcome.
    static let presumedEmpty: Set<String> = [EmbeddedBank.journalByDocumentQuery, LedgerRequest.sequenceQuery]
    /// Whether the kept template `template` is a once-only id lookup's (``presumedEmpty``), whose answer a unique key
    /// guards at commit.
    static func isOnceOnlyLookup(_ template: String) -> Bool { onceOnlyTemplates.contains(template) }
    private static let onceOnlyTemplates: Set<String> = Set(presumedEmpty.map { PostgresSQL.numbered($0).sql })

    /// The digest of no rows (`md5('')`, as `rbs_v21_read` and `rbs_v21_commit` make it).
    static let emptyDigest = "d41d8cd98f00b204e9800998ecf8427e"

    /// Whether the body is answered from `predicted` (committed on them); otherwise they are only the best guesses.
    private let onPredictions: Bool

    /// Whether entries are stored with the parts of their hashes and chained apart by the server (schema step
    /// `v29-chain-integrated-apart`): a provisional entry's hash is then `rbs_v29_apart(k, …)`, and a body that
    /// numbers from the journal's real tip goes the classic way, which integrates first (the tip's hash may not be
    /// there yet).
    let integrating: Bool

    init(answered: [String: [SQLRow]], guesses: [String: [SQLRow]], sequencing: Bool = false,
         predicted: ((String) -> Answer?)? = nil, onPredictions: Bool = false, integrating: Bool = false) {
        self.answered = answered
        self.guesses = guesses
        self.sequencing = sequencing
        self.integrating = integrating
        self.predicted = predicted
        self.onPredictions = onPredictions && predicted != nil
    }

    /// The texts of the queries the body's decisions rested on, each once, but the once-only id lookups: what the
    /// commit is asked to answer again after its writes, for the next transaction's predictions (all of them when
    /// `written` is nil). With `written` (the tables its writes change, ``tablesWritten``), split: those that read a table written,
    /// which the commit answers again, and the others — a key, a customer, a policy: rows no payment
    /// changes — whose rows after the commit are the ones the commit checked, so the host keeps those (by key, to
    /// look up the rows it used) instead of having the server read them again. A table changed by another host
    /// meanwhile costs a refused commit, as any stale answer.
    func queriesAfter(wrote written: Set<String>?) -> (answer: [(text: String, kept: PostgresSQL.Parametrized)], keep: [(text: String, key: String)]) {
        var seen: Set<String> = []
        var answer: [(text: String, kept: PostgresSQL.Parametrized)] = [], keep: [(text: String, key: String)] = []
        for operation in operations {
            guard case .query(let text, let key, let kept) = operation, !presumedTexts.contains(text), seen.insert(text).inserted else { continue }
            if let written, SQLTables.read(by: kept.template).isDisjoint(with: written) {
                keep.append((text, key))
            } else {
                answer.append((text, kept))
            }
        }
        return (answer, keep)
    }

    /// The tables this transaction's writes change.
    var tablesWritten: Set<String> {
        var tables: Set<String> = []
        for operation in operations {
            if case .write(_, let kept) = operation { tables.formUnion(SQLTables.written(by: kept.template)) }
        }
        return tables
    }

    // MARK: - Several bodies in one transaction

    /// What the transaction has gathered so far: taken before a body runs in a group commit
    /// (``PostgresStore/writeReportingTip(_:)``), so a body that throws, or asks what the group cannot commit in one
    /// round trip, is taken out again (``restore(_:)``) and runs alone.
    struct Mark {
        fileprivate let missing: [Missing]
        fileprivate let operations: [Operation]
        fileprivate let writes: [String]
        fileprivate let used: [String: [SQLRow]]
        fileprivate let lockedPathReason: String?
        fileprivate let asked: Set<String>
        fileprivate let toldProvisionalTip: Bool
        fileprivate let provisionalTip: (sequence: Int64, hash: Data)?
        fileprivate let predictedDigests: [String: String]
        fileprivate let predictionMissed: Bool
        fileprivate let presumedTexts: Set<String>
    }

    func mark() -> Mark {
        Mark(missing: missing, operations: operations, writes: writes, used: used, lockedPathReason: lockedPathReason,
             asked: asked, toldProvisionalTip: toldProvisionalTip, provisionalTip: provisionalTip,
             predictedDigests: predictedDigests, predictionMissed: predictionMissed, presumedTexts: presumedTexts)
    }

    /// The transaction as it was at `mark`: whatever a body ran since is forgotten.
    func restore(_ mark: Mark) {
        missing = mark.missing
        operations = mark.operations
        writes = mark.writes
        used = mark.used
        lockedPathReason = mark.lockedPathReason
        asked = mark.asked
        toldProvisionalTip = mark.toldProvisionalTip
        provisionalTip = mark.provisionalTip
        predictedDigests = mark.predictedDigests
        predictionMissed = mark.predictionMissed
        presumedTexts = mark.presumedTexts
    }

    /// Whether everything run so far can be committed in one round trip on predictions: every query answered, none
    /// missing, nothing that needs the classic way.
    var committableOnPredictions: Bool {
        lockedPathReason == nil && !predictionMissed && missing.isEmpty
    }

    // MARK: - Numbers bound at commit

    /// The provisional tip a sequencing body is told: far above any journal's number (so "after the tip" still
    /// means "made now"), and the integers `base+1 … base+provisionalLimit` it numbers its entries with are sent as
    /// `rbs_v21_seq(k)`, which the server binds at commit (``BoundNumbers``: `tip+k`, or since v30 the k-th id it took).
    static let provisionalBase: Int64 = 1 << 62
    /// How many entries one transaction may number provisionally.
    static let provisionalLimit: Int64 = 1 << 20
    /// The provisional tip's hash: it only feeds the hashes the body computes, which the server's replace.
    static let provisionalHash = Data(repeating: 0xFF, count: 32)

    /// `k` when `sequence` is the provisional number `base+k`.
    static func provisionalIndex(_ sequence: Int64) -> Int64? {
        sequence > provisionalBase && sequence <= provisionalBase + provisionalLimit ? sequence - provisionalBase : nil
    }

    func isProvisional(_ sequence: Int64) -> Bool {
        sequencing && toldProvisionalTip && Self.provisionalIndex(sequence) != nil
    }

    func insertEntry(_ sql: String, arguments: [SQLValue], sequenceArgument: Int, previousHashArgument: Int, hashArgument: Int,
                     literalArguments: Set<Int>, hashedBefore: [UInt8], hashedBetween: [UInt8]) throws {
        guard case .integer(let sequence) = arguments[sequenceArgument], let k = Self.provisionalIndex(sequence) else {
            return try execute(sql, arguments: arguments)
        }
        let parts = "\(k), \(PostgresSQL.literal(.blob(Data(hashedBefore)))), \(PostgresSQL.literal(.blob(Data(hashedBetween))))"
        let hash = integrating ? "rbs_v29_apart(\(parts))" : "rbs_v21_hash(\(parts))"
        let previous = integrating ? PostgresSQL.literal(.blob(Data())) : "rbs_v21_prev(\(k))"
        let (text, kept) = try statement(sql, arguments) { index, value in
            switch index {
            case sequenceArgument: "rbs_v21_seq(\(k))"
            case previousHashArgument: previous
            case hashArgument: hash
            case _ where literalArguments.contains(index): PostgresSQL.literal(value)
            default: nil
            }
        }
        writes.append(text)
        operations.append(.write(text, kept: kept))
        if case .blob(let hash) = arguments[hashArgument] { provisionalTip = (sequence, hash) }
    }

    func execute(_ sql: String, arguments: [SQLValue]) throws {
        guard !Self.isQuery(sql) else {
            _ = try rows(sql, arguments: arguments)
            return
        }
        guard Self.isPreparableWrite(sql) else { throw needsLock("a statement no kept plan can run") }
        let (text, kept) = try statement(sql, arguments)
        writes.append(text)
        operations.append(.write(text, kept: kept))
    }

    func rows(_ sql: String, arguments: [SQLValue]) throws -> [SQLRow] {
        guard Self.isQuery(sql) else { throw needsLock("a statement that changes rows and returns some") }
        if sequencing && arguments.isEmpty && sql == Journal.tipQuery {
            // Not fetched and not checked at commit: the server binds the numbers after the tip it finds then.
            toldProvisionalTip = true
            let tip = provisionalTip ?? (Self.provisionalBase, Self.provisionalHash)
            return [SQLRow(columns: SQLColumns(["seq", "hash"]), values: [.integer(tip.sequence), .blob(tip.hash)])]
        }
        if integrating && sql == Journal.tipQuery {
            throw needsLock("a body that numbers from the journal's tip, whose last entries may not be chained yet")
        }
        let (text, kept) = try statement(sql, arguments)
        // Keyed by the number of writes before it, not their text: a write that carries the time differs from pass to
        // pass. Rows fetched after other writes than this pass made are caught by the commit's check, never used.
        let key = writes.isEmpty ? text : "\(writes.count)\u{0}\(text)"
        let first = asked.insert(key).inserted
        let presumed = Self.presumedEmpty.contains(sql)
        if presumed { presumedTexts.insert(text) }
        guard let rows = answered[key] else {
            let prediction = predicted?(text)
            if onPredictions {
                let answer = prediction ?? (presumed ? Answer(rows: [], digest: Self.emptyDigest) : nil)
                if let answer {
                    if first {
                        operations.append(.query(text: text, key: key, kept: kept))
                        predictedDigests[key] = answer.digest
                    }
                    return answer.rows
                }
                predictionMissed = true
            }
            if first { missing.append(Missing(text: text, writesBefore: writes.count, key: key)) }
            // The freshest guess: what the query gave after the last commit that asked it, else before it.
            return prediction?.rows ?? guesses[text] ?? []
        }
        if first {
            operations.append(.query(text: text, key: key, kept: kept))
            used[text] = rows
        }
        return rows
    }

    func executeScript(_ sql: String) throws {
        throw needsLock("a script")
    }

    /// `sql` with its arguments inlined, and as a kept plan with its values (``PostgresSQL/parametrized(_:_:expression:)``);
    /// a provisional journal number (when sequencing) as `rbs_v21_seq(k)`, and what `expression` gives for an
    /// argument in its place.
    private func statement(_ sql: String, _ arguments: [SQLValue],
                           expression: (Int, SQLValue) -> String? = { _, _ in nil }) throws -> (text: String, kept: PostgresSQL.Parametrized) {
        let provisional = sequencing && toldProvisionalTip
        let given: (Int, SQLValue) -> String? = { index, value in
            if let given = expression(index, value) { return given }
            guard provisional, case .integer(let number) = value, let k = Self.provisionalIndex(number) else { return nil }
            return "rbs_v21_seq(\(k))"
        }
        guard let text = PostgresSQL.inlined(sql, arguments, expression: given),
              let kept = PostgresSQL.parametrized(sql, arguments, expression: given) else {
            throw PostgresRefusal(sqlState: "", message: "the statement takes another number of arguments than \(arguments.count): \(sql)")
        }
        return (text, kept)
    }

    private func needsLock(_ reason: String) -> PostgresRefusal {
        if lockedPathReason == nil { lockedPathReason = reason }
        return PostgresRefusal(sqlState: "", message: "runs under the ledger's lock: \(reason)")
    }

    /// Whether `sql` is a write a kept plan can run (INSERT, UPDATE, DELETE: what PREPARE takes); the one-call
    /// commit runs every statement from one, so anything else (TRUNCATE, DDL) goes the classic way.
    static func isPreparableWrite(_ sql: String) -> Bool {
        let head = sql.drop { $0.isWhitespace }.prefix(6).uppercased()
        return head == "INSERT" || head == "UPDATE" || head == "DELETE"
    }

    /// Whether `sql` only reads (SELECT, or VALUES): the ledger's own queries all start so.
    static func isQuery(_ sql: String) -> Bool {
        let head = sql.drop { $0.isWhitespace || $0 == "(" }.prefix(6).uppercased()
        return head == "SELECT" || head.hasPrefix("VALUES")
    }
}

/// A transaction whose journal entries the server numbers and chains at commit (PostgreSQL's one-call writes with
/// schema step `v21-chain-in-server`): ``JournalEntry/insert(_:createdAtMilliseconds:)`` hands it an entry whose
/// number is provisional, with the hashed bytes around the number and the predecessor's hash.
protocol CommitSequencedTransaction: SQLTransaction {
    /// Whether `sequence` is a provisional number this transaction handed out.
    func isProvisional(_ sequence: Int64) -> Bool

    /// Inserts a journal row whose number (`sequenceArgument`), predecessor hash (`previousHashArgument`) and hash
    /// (`hashArgument`) the server binds at commit: the hash is SHA-256 over `hashedBefore`, the number as a part,
    /// `hashedBetween` and the predecessor's hash as a part — the bytes ``JournalEntry/computedHash`` hashes. The
    /// arguments in `literalArguments` are sent as they are even when they look like a provisional number.
    func insertEntry(_ sql: String, arguments: [SQLValue], sequenceArgument: Int, previousHashArgument: Int, hashArgument: Int,
                     literalArguments: Set<Int>, hashedBefore: [UInt8], hashedBetween: [UInt8]) throws
}

/// The tables a statement of the ledger reads or writes, by its text (the names after FROM and JOIN; after INSERT INTO,
/// UPDATE and DELETE FROM), lowercased, each text's found once and kept (a fixed set of texts). A name that is a view
/// or a function's result is listed as it is: what these are for (which answers the commit gives again) only costs a
/// refused commit when it is wrong, never a wrong decision.
enum SQLTables {
    private static let known = Mutex<[String: (read: Set<String>, written: Set<String>)]>([:])

    static func read(by sql: String) -> Set<String> { tables(sql).read }
    static func written(by sql: String) -> Set<String> { tables(sql).written }

    private static func tables(_ sql: String) -> (read: Set<String>, written: Set<String>) {
        if let found = known.withLock({ $0[sql] }) { return found }
        let words = sql.lowercased().split { !($0.isLetter || $0.isNumber || $0 == "_" || $0 == ".") }.map(String.init)
        var read: Set<String> = [], written: Set<String> = []
        for (index, word) in words.enumerated() where index + 1 < words.count {
            switch word {
            case "from", "join":
                // DELETE FROM names the table it writes; otherwise FROM and JOIN name what is read.
                if index > 0 && words[index - 1] == "delete" { written.insert(words[index + 1]) } else { read.insert(words[index + 1]) }
            case "into" where index > 0 && words[index - 1] == "insert": written.insert(words[index + 1])
            case "update" where index == 0: written.insert(words[index + 1])
            default: break
            }
        }
        let found = (read, written)
        known.withLock { known in
            if known.count >= 1_024 { known.removeAll(keepingCapacity: true) }
            known[sql] = found
        }
        return found
    }
}
