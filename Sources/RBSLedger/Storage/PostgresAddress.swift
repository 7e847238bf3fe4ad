import Foundation

/// A PostgreSQL database the ledger lives in: `postgres://USER[:PASSWORD]@HOST[:PORT][,HOST[:PORT]…]/DATABASE`
/// with parameters `connect_timeout`, `statement_timeout` and `target_session_attrs` (also `postgresql://`). User,
/// password and database may be percent-encoded.
///
/// Several servers (a primary and its standbys, as libpq takes them) are tried in turn until one takes the login
/// and, with `target_session_attrs=read-write` (the default here: a ledger host writes), accepts writes — so after
/// a standby is promoted, the next connection finds it.
///
/// ``description`` never holds the password: it is what messages, `db check` and logs show.
public struct PostgresAddress: Sendable, Hashable, CustomStringConvertible {
    /// One server of the address.
    public struct Server: Sendable, Hashable, CustomStringConvertible {
        public var host: String
        public var port: Int

        public init(host: String, port: Int = 5432) {
            self.host = host
            self.port = port
        }

        /// `host:port` as messages name the server (`[::1]:5432` for an IPv6 address).
        public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
    }

    /// Which server a connection may stay on (libpq's `target_session_attrs`).
    public enum TargetSession: String, Sendable, Hashable {
        /// Any server that takes the login.
        case any
        /// Only one that accepts writes (a primary, not a standby in recovery).
        case readWrite = "read-write"
    }

    public var user: String
    public var password: String?
    /// The servers, tried in this order (at least one).
    public var servers: [Server]
    public var database: String
    /// Which server a connection may stay on; `read-write` unless the address says otherwise.
    public var targetSession: TargetSession = .readWrite

    /// The first server's host.
    public var host: String {
        get { servers[0].host }
        set { servers[0].host = newValue }
    }

    /// The first server's port.
    public var port: Int {
        get { servers[0].port }
        set { servers[0].port = newValue }
    }
    /// Seconds to wait for the connection and the login (`connect_timeout`, default 5).
    public var connectTimeout: Int
    /// Seconds one statement may run, waiting for a lock included (`statement_timeout`, default 30).
    public var statementTimeout: Int

    public init(user: String, password: String? = nil, host: String, port: Int = 5432, database: String,
                connectTimeout: Int = 5, statementTimeout: Int = 30) {
        self.user = user
        self.password = password
        self.servers = [Server(host: host, port: port)]
        self.database = database
        self.connectTimeout = connectTimeout
        self.statementTimeout = statementTimeout
    }

    /// `host:port` as messages name the server (`[::1]:5432` for an IPv6 address); several are joined by commas.
    public var server: String { servers.map(\.description).joined(separator: ",") }

    /// `postgres://user@host:port/database`, without the password.
    public var description: String { "postgres://\(user)@\(server)/\(database)" }

    /// The same address with another database (the maintenance database `postgres` to create one, say).
    func with(database: String) -> PostgresAddress {
        var copy = self
        copy.database = database
        return copy
    }

    /// What is wrong with an address.
    public enum Problem: Error, Sendable, Hashable, CustomStringConvertible {
        case scheme(String)
        case noUser
        case noHost
        case badPort(String)
        case noDatabase
        case badEncoding(String)
        case badParameter(String, String)
        case badTargetSession(String)
        case unknownParameter(String)

        public var description: String {
            switch self {
            case .scheme(let scheme):
                scheme.isEmpty ? "it is not a URL (it has no postgres:// in front)"
                    : "the scheme \(scheme):// is not postgres:// or postgresql://"
            case .noUser: "it names no user (postgres://USER@HOST/DATABASE)"
            case .noHost: "it names no host"
            case .badPort(let port): "the port \"\(port)\" is not a number from 1 to 65535"
            case .noDatabase: "it names no database (the path after the host, /DATABASE)"
            case .badEncoding(let part): "\(part) has a % that is not followed by two hex digits"
            case .badParameter(let name, let value): "\(name)=\(value) is not a whole number of seconds from 1 to 3600"
            case .badTargetSession(let value):
                "target_session_attrs=\(value) is not read-write or any (a ledger host needs a server that takes writes)"
            case .unknownParameter(let name):
                "the parameter \(name) is not known here (connect_timeout, statement_timeout and target_session_attrs are)"
            }
        }
    }

    /// Reads an address.
    /// - Throws: ``Problem`` naming the part that is wrong.
    public static func parse(_ text: String) throws(Problem) -> PostgresAddress {
        guard let schemeEnd = text.range(of: "://") else { throw .scheme("") }
        let scheme = String(text[..<schemeEnd.lowerBound]).lowercased()
        guard scheme == "postgres" || scheme == "postgresql" else { throw .scheme(scheme) }
        var rest = Substring(text[schemeEnd.upperBound...])
        var query = ""
        if let mark = rest.firstIndex(of: "?") {
            query = String(rest[rest.index(after: mark)...])
            rest = rest[..<mark]
        }
        // The last @ ends the user part: a password may hold an unencoded @.
        guard let at = rest.lastIndex(of: "@") else { throw .noUser }
        let credentials = rest[..<at]
        var hostPart = rest[rest.index(after: at)...]
        var pathPart: Substring = ""
        if let slash = hostPart.firstIndex(of: "/") {
            pathPart = hostPart[hostPart.index(after: slash)...]
            hostPart = hostPart[..<slash]
        }
        let userText: Substring, passwordText: Substring?
        if let colon = credentials.firstIndex(of: ":") {
            userText = credentials[..<colon]
            passwordText = credentials[credentials.index(after: colon)...]
        } else {
            userText = credentials
            passwordText = nil
        }
        let user = try decode(userText, part: "the user")
        guard !user.isEmpty else { throw .noUser }
        let password = try passwordText.map { text throws(Problem) in try decode(text, part: "the password") }
        var servers: [Server] = []
        for serverPart in hostPart.split(separator: ",", omittingEmptySubsequences: false) {
            servers.append(try server(serverPart))
        }
        let database = try decode(pathPart, part: "the database name")
        guard !database.isEmpty, !database.contains("/") else { throw .noDatabase }
        var address = PostgresAddress(user: user, password: password, host: servers[0].host, port: servers[0].port, database: database)
        address.servers = servers
        for pair in query.split(separator: "&") where !pair.isEmpty {
            let parts = pair.split(separator: "=", maxSplits: 1)
            let name = String(parts[0]), value = parts.count > 1 ? String(parts[1]) : ""
            switch name {
            case "connect_timeout", "statement_timeout":
                guard let seconds = Int(value), (1...3600).contains(seconds) else { throw .badParameter(name, value) }
                if name == "connect_timeout" { address.connectTimeout = seconds } else { address.statementTimeout = seconds }
            case "target_session_attrs":
                guard let target = TargetSession(rawValue: value) else { throw .badTargetSession(value) }
                address.targetSession = target
            default:
                throw .unknownParameter(name)
            }
        }
        return address
    }

    /// `text` with the password of a `scheme://user:password@…` address replaced by `***`, for messages about an
    /// address that could not be read.
    public static func redacted(_ text: String) -> String {
        guard let schemeEnd = text.range(of: "://") else { return text }
        let rest = text[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex(where: { $0 == "?" }) ?? rest.endIndex
        guard let at = rest[..<authorityEnd].lastIndex(of: "@"),
              let colon = rest[..<at].firstIndex(of: ":") else { return text }
        return String(text[..<rest.index(after: colon)]) + "***" + String(rest[at...])
    }

    /// One `HOST[:PORT]` (`[IPv6][:PORT]`) of the host list.
    private static func server(_ text: Substring) throws(Problem) -> Server {
        var host: String
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw .noHost }
            host = String(text[text.index(after: text.startIndex)..<close])
            let after = text[text.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() } else if !after.isEmpty { throw .badPort(String(after)) }
        } else if let colon = text.firstIndex(of: ":") {
            host = String(text[..<colon])
            portText = text[text.index(after: colon)...]
        } else {
            host = String(text)
        }
        host = host.trimmingCharacters(in: .whitespaces)
        guard !host.isEmpty else { throw .noHost }
        var port = 5432
        if let portText {
            guard let value = Int(portText), (1...65535).contains(value) else { throw .badPort(String(portText)) }
            port = value
        }
        return Server(host: host, port: port)
    }

    /// Percent-decoding of one part.
    private static func decode(_ text: Substring, part: String) throws(Problem) -> String {
        guard text.contains("%") else { return String(text) }
        guard let decoded = String(text).removingPercentEncoding else { throw .badEncoding(part) }
        return decoded
    }
}
