/// Why the PostgreSQL server could not be used: each names the server (`host:port`, never the password) and what
/// to do. A statement the server refused is ``LedgerError/database(path:detail:)`` instead.
public enum PostgresFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// Nothing answers at the address (refused, no route, no answer within the connect timeout, unknown host).
    case unreachable(server: String, detail: String)
    /// The server answered but refused the login (wrong password, unknown role, pg_hba.conf).
    case loginRefused(server: String, user: String, detail: String)
    /// The server has no database of that name.
    case noDatabase(server: String, database: String)
    /// The connection broke during an operation (the server stopped or restarted, the network dropped).
    case connectionLost(server: String, detail: String)
    /// The server did not answer a statement in time (`statement_timeout`, or no answer at all).
    case timedOut(server: String, seconds: Int)
    /// The transaction conflicted with other hosts' (serialisation failure, deadlock) every time it was tried.
    case retriesExhausted(server: String, attempts: Int, detail: String)

    public var description: String {
        switch self {
        case .unreachable(let server, let detail):
            "cannot reach PostgreSQL at \(server): \(detail) — is the server running and listening there? "
                + "check --database / \(LedgerLocation.environmentVariable)"
        case .loginRefused(let server, let user, let detail):
            "PostgreSQL at \(server) refused the login of \(user): \(detail) — check the user and password in "
                + "--database / \(LedgerLocation.environmentVariable) (and the server's pg_hba.conf)"
        case .noDatabase(let server, let database):
            "PostgreSQL at \(server) has no database \"\(database)\" — create it (createdb -h HOST -p PORT -U USER \(database)) "
                + "or fix the name in --database / \(LedgerLocation.environmentVariable)"
        case .connectionLost(let server, let detail):
            "the connection to PostgreSQL at \(server) was lost (\(detail)): the operation was not acknowledged. "
                + "Nothing is half-done (a transaction is whole or absent); retry once the server is back — a payment "
                + "retried with the same request id answers with its first outcome if it did commit"
        case .timedOut(let server, let seconds):
            "PostgreSQL at \(server) did not answer within \(seconds) s: the operation was not acknowledged and was "
                + "cancelled — is the server overloaded, or a lock held elsewhere? retry later"
        case .retriesExhausted(let server, let attempts, let detail):
            "PostgreSQL at \(server) refused the transaction \(attempts) times (\(detail)) because other hosts' "
                + "transactions conflicted with it; nothing was changed — try again"
        }
    }
}
