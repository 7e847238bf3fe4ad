import Foundation

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
final class SpeculativeTransaction: SQLTransaction {
    /// A query or a write of the transaction, arguments inlined; a query with the key its rows are fetched by.
    enum Operation {
        case query(text: String, key: String)
        case write(String)
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

    init(answered: [String: [SQLRow]], guesses: [String: [SQLRow]]) {
        self.answered = answered
        self.guesses = guesses
    }

    func execute(_ sql: String, arguments: [SQLValue]) throws {
        guard !Self.isQuery(sql) else {
            _ = try rows(sql, arguments: arguments)
            return
        }
        let text = try inlined(sql, arguments)
        writes.append(text)
        operations.append(.write(text))
    }

    func rows(_ sql: String, arguments: [SQLValue]) throws -> [SQLRow] {
        guard Self.isQuery(sql) else { throw needsLock("a statement that changes rows and returns some") }
        let text = try inlined(sql, arguments)
        // Keyed by the number of writes before it, not their text: a write that carries the time differs from pass to
        // pass. Rows fetched after other writes than this pass made are caught by the commit's check, never used.
        let key = writes.isEmpty ? text : "\(writes.count)\u{0}\(text)"
        let first = asked.insert(key).inserted
        guard let rows = answered[key] else {
            if first { missing.append(Missing(text: text, writesBefore: writes.count, key: key)) }
            return guesses[text] ?? []
        }
        if first {
            operations.append(.query(text: text, key: key))
            used[text] = rows
        }
        return rows
    }

    func executeScript(_ sql: String) throws {
        throw needsLock("a script")
    }

    private func inlined(_ sql: String, _ arguments: [SQLValue]) throws -> String {
        guard let text = PostgresSQL.inlined(sql, arguments) else {
            throw PostgresRefusal(sqlState: "", message: "the statement takes another number of arguments than \(arguments.count): \(sql)")
        }
        return text
    }

    private func needsLock(_ reason: String) -> PostgresRefusal {
        if lockedPathReason == nil { lockedPathReason = reason }
        return PostgresRefusal(sqlState: "", message: "runs under the ledger's lock: \(reason)")
    }

    /// Whether `sql` only reads (SELECT, or VALUES): the ledger's own queries all start so.
    static func isQuery(_ sql: String) -> Bool {
        let head = sql.drop { $0.isWhitespace || $0 == "(" }.prefix(6).uppercased()
        return head == "SELECT" || head.hasPrefix("VALUES")
    }
}
