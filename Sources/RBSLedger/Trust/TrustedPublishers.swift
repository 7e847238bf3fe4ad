import Foundation

/// The publisher keys trusted to sign plugins, kept in the ledger's database (`trusted_keys`, schema step
/// `v6-trusted-keys`) so that every host sharing a PostgreSQL database (`--database`) loads the same plugins:
/// a key added or removed on one host is what every other host checks its next plugin load against.
///
/// A host on the data folder's SQLite keeps its keys in `<data>/trusted-keys` instead (RBSCore's `TrustStore`
/// chooses); this type is the shared engine's half.
public struct TrustedPublishers: Sendable {
    /// One trusted key, as the table holds it.
    public struct Key: Sendable, Equatable {
        /// 64 lowercase hex digits: the Ed25519 public key.
        public var key: String
        /// The name it was trusted under, if any.
        public var name: String?
        /// When it was added (Unix milliseconds).
        public var addedMilliseconds: Int64
    }

    /// What ``add(_:name:)`` did.
    public enum Addition: Sendable, Equatable {
        /// The key is new.
        case added
        /// The key was trusted under another name (or none); the name is now the one given.
        case renamed
        /// The key is trusted under that name already: nothing changed.
        case unchanged
    }

    let database: LedgerDatabase
    let clock: @Sendable () -> Date

    /// Opens the ledger's database at `location` (its schema brought up to date, as every open does). A database
    /// without the ledger's tables is refused with what to run (`rbs-host db migrate`).
    public init(dataDirectory: URL, location: LedgerLocation, clock: @escaping @Sendable () -> Date = Date.init)
        throws(LedgerError) {
        if case .postgres = location, try LedgerDatabase.absence(in: dataDirectory, location: location) != nil {
            throw .noLedgerTables(place: location.description)
        }
        database = try LedgerDatabase(dataDirectory: dataDirectory, location: location)
        self.clock = clock
    }

    /// Where the keys are, as messages name it (the PostgreSQL address without its password, or the SQLite file).
    public var place: String { database.place }

    /// Every trusted key, in the order they were added.
    public func keys() throws(LedgerError) -> [Key] {
        try database.read { db in try Self.keys(db) }
    }

    /// Trusts `key` (64 hex digits) under `name`; a key trusted already takes the new name when one is given.
    @discardableResult
    public func add(_ key: String, name: String?) throws(LedgerError) -> Addition {
        let key = key.lowercased()
        let now = Timestamp.milliseconds(clock())
        return try database.write { db in
            if let row = try db.row("SELECT name FROM trusted_keys WHERE key = ?", key) {
                let current: String? = try row.decode(forColumn: "name")
                guard let name, name != current else { return .unchanged }
                try db.execute("UPDATE trusted_keys SET name = ? WHERE key = ?", name, key)
                return .renamed
            }
            // Another host adding the same key at the same moment: the key is trusted either way.
            try db.execute("INSERT INTO trusted_keys (key, name, added_ms) VALUES (?, ?, ?) ON CONFLICT (key) DO NOTHING",
                           key, name, now)
            return .added
        }
    }

    /// Stops trusting the key `matches` picks (the first, in the order they were added); nil when none matches.
    public func remove(where matches: @escaping (Key) -> Bool) throws(LedgerError) -> Key? {
        try database.write { db in
            guard let key = try Self.keys(db).first(where: matches) else { return nil }
            try db.execute("DELETE FROM trusted_keys WHERE key = ?", key.key)
            return key
        }
    }

    /// Ends the connection.
    public func close() {
        try? database.close()
    }

    private static func keys(_ db: any SQLTransaction) throws -> [Key] {
        try db.rows("SELECT key, name, added_ms FROM trusted_keys ORDER BY added_ms, key").map { row in
            Key(key: try row.decode(forColumn: "key"), name: try row.decode(forColumn: "name"),
                addedMilliseconds: try row.decode(forColumn: "added_ms"))
        }
    }
}
