import Foundation

/// Where a ledger's tables are: the data folder's `rbs.sqlite` (the default: one host, nothing to install), or a
/// PostgreSQL database that several hosts share (`--database postgres://…` or `RBS_DATABASE`).
///
/// Either way the data folder keeps what is the host's own: its signing key, `ledger-tip`, trusted plugin keys.
public enum LedgerLocation: Sendable, Hashable, CustomStringConvertible {
    case dataFolder
    case postgres(PostgresAddress)

    /// The environment variable that names the database when `--database` does not.
    public static let environmentVariable = "RBS_DATABASE"

    /// `--database` wins, then `RBS_DATABASE`; neither (or an empty value) is the data folder.
    /// - Throws: ``LedgerLocationError`` naming what is wrong with the address and where it came from.
    public static func resolve(flag: String?, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(LedgerLocationError) -> LedgerLocation {
        if let flag { return try parse(flag, source: "--database") }
        if let text = environment[environmentVariable], !text.isEmpty { return try parse(text, source: environmentVariable) }
        return .dataFolder
    }

    /// `postgres://…` or `postgresql://…` (see ``PostgresAddress/parse(_:)``); `sqlite` or an empty text is the
    /// data folder.
    public static func parse(_ text: String, source: String = "--database") throws(LedgerLocationError) -> LedgerLocation {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty || trimmed == "sqlite" { return .dataFolder }
        do {
            return .postgres(try PostgresAddress.parse(trimmed))
        } catch {
            throw LedgerLocationError(source: source, text: PostgresAddress.redacted(trimmed), problem: error)
        }
    }

    /// The engine's name, as `db check` shows it: "sqlite" or "postgres".
    public var engine: SQLDialect {
        switch self {
        case .dataFolder: .sqlite
        case .postgres: .postgres
        }
    }

    /// "the data folder" or the PostgreSQL address without its password.
    public var description: String {
        switch self {
        case .dataFolder: "the data folder (rbs.sqlite)"
        case .postgres(let address): address.description
        }
    }
}

/// A `--database` or `RBS_DATABASE` value that is not a database address.
public struct LedgerLocationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `--database` or `RBS_DATABASE`.
    public let source: String
    /// The value given, its password replaced by `***`.
    public let text: String
    public let problem: PostgresAddress.Problem

    public var description: String {
        "\(source) \(text): \(problem) — give postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE (or leave it out for the data folder's SQLite file)"
    }
}
