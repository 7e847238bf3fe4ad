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
        /// The plugin ids it may sign, as `trust add --ids` gave them (comma-separated patterns; empty: every id).
        public var ids: String = ""
        /// The last day (ISO, UTC) it is trusted, if it expires.
        public var expires: String?
        /// When it was revoked (Unix milliseconds): a revoked key stays listed and is never trusted again.
        public var revokedMilliseconds: Int64?
        /// Why it was revoked, as the operator said.
        public var revokedReason: String?
    }

    /// What `trust add` asks of a key beside its name: `nil` leaves the stored value as it is.
    public struct Grant: Sendable, Equatable {
        /// Comma-separated id patterns ("" for every id).
        public var ids: String?
        /// The last day trusted (ISO), or `.some(nil)` for no expiry.
        public var expires: String??

        public init(ids: String? = nil, expires: String?? = nil) {
            self.ids = ids
            self.expires = expires
        }
    }

    /// What ``add(_:name:)`` did.
    public enum Addition: Sendable, Equatable {
        /// The key is new.
        case added
        /// The key was trusted under another name (or none); the name is now the one given.
        case renamed
        /// The key was trusted; its scope or expiry is now the one given.
        case updated
        /// The key is trusted under that name already: nothing changed.
        case unchanged
        /// The key was revoked: it is never trusted again (nothing changed).
        case revoked(Key)
    }

    /// What ``revoke(_:reason:)`` did.
    public enum Revocation: Sendable, Equatable {
        /// The key (trusted or not) is now revoked.
        case revoked(Key)
        /// It was revoked before (the first revocation stands).
        case alreadyRevoked(Key)
    }

    /// What ``remove(where:)`` did.
    public enum Removal: Sendable, Equatable {
        case removed(Key)
        /// The key matched but is revoked: it stays, so that it is never trusted again by mistake.
        case revoked(Key)
    }

    let database: LedgerDatabase
    let clock: @Sendable () -> Date

    /// Opens the ledger's database at `location` (its schema brought up to date, as every open does). A database
    /// without the ledger's tables is refused with what to run (`rbs-host db migrate`).
    public init(dataDirectory: URL, location: LedgerLocation, clock: @escaping @Sendable () -> Date = Date.init)
        throws(LedgerError) {
        database = try LedgerDatabase.joining(dataDirectory: dataDirectory, location: location)
        self.clock = clock
    }

    /// Where the keys are, as messages name it (the PostgreSQL address without its password, or the SQLite file).
    public var place: String { database.place }

    /// Every trusted key, in the order they were added.
    public func keys() throws(LedgerError) -> [Key] {
        try database.read { db in try Self.keys(db) }
    }

    /// Trusts `key` (64 hex digits) under `name`; a key trusted already takes the new name when one is given, and
    /// the grant's scope and expiry where it gives them. A revoked key is refused (``Addition/revoked(_:)``).
    @discardableResult
    public func add(_ key: String, name: String?, grant: Grant = Grant()) throws(LedgerError) -> Addition {
        let key = key.lowercased()
        let now = Timestamp.milliseconds(clock())
        return try database.write { db in
            if let current = try Self.keys(db, key: key).first {
                if current.revokedMilliseconds != nil { return .revoked(current) }
                var changed = current
                if let name { changed.name = name }
                if let ids = grant.ids { changed.ids = ids }
                if let expires = grant.expires { changed.expires = expires }
                guard changed != current else { return .unchanged }
                try db.execute("UPDATE trusted_keys SET name = ?, ids = ?, expires = ? WHERE key = ?",
                               changed.name, changed.ids, changed.expires, key)
                return changed.name != current.name && changed.ids == current.ids && changed.expires == current.expires
                    ? .renamed : .updated
            }
            // Another host adding the same key at the same moment: the key is trusted either way.
            try db.execute("""
                INSERT INTO trusted_keys (key, name, added_ms, ids, expires) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (key) DO NOTHING
                """, key, name, now, grant.ids ?? "", grant.expires ?? nil)
            return .added
        }
    }

    /// Revokes `key` (64 hex digits), trusted here or not: it stays listed as revoked, its plugins are refused, and
    /// `add` refuses it from then on. `name` names a key not listed yet.
    public func revoke(_ key: String, name: String?, reason: String?) throws(LedgerError) -> Revocation {
        let key = key.lowercased()
        let now = Timestamp.milliseconds(clock())
        return try database.write { db in
            let current = try Self.keys(db, key: key).first
            if let current, current.revokedMilliseconds != nil { return .alreadyRevoked(current) }
            var revoked = current ?? Key(key: key, name: name, addedMilliseconds: now)
            revoked.revokedMilliseconds = now
            revoked.revokedReason = reason
            try db.execute("""
                INSERT INTO trusted_keys (key, name, added_ms, ids, revoked_ms, revoked_reason) VALUES (?, ?, ?, '', ?, ?)
                ON CONFLICT (key) DO UPDATE SET revoked_ms = excluded.revoked_ms, revoked_reason = excluded.revoked_reason
                """, key, name, now, now, reason)
            return .revoked(revoked)
        }
    }

    /// Stops trusting the key `matches` picks (the first, in the order they were added); nil when none matches. A
    /// revoked key is not removed (``Removal/revoked(_:)``).
    public func remove(where matches: @escaping (Key) -> Bool) throws(LedgerError) -> Removal? {
        try database.write { db in
            guard let key = try Self.keys(db).first(where: matches) else { return nil }
            if key.revokedMilliseconds != nil { return .revoked(key) }
            try db.execute("DELETE FROM trusted_keys WHERE key = ? AND revoked_ms IS NULL", key.key)
            return .removed(key)
        }
    }

    /// Ends the connection.
    public func close() {
        try? database.close()
    }

    private static func keys(_ db: any SQLTransaction, key: String? = nil) throws -> [Key] {
        let columns = "key, name, added_ms, ids, expires, revoked_ms, revoked_reason"
        let rows = if let key {
            try db.rows("SELECT \(columns) FROM trusted_keys WHERE key = ?", key)
        } else {
            try db.rows("SELECT \(columns) FROM trusted_keys ORDER BY added_ms, key")
        }
        return try rows.map { row in
            Key(key: try row.decode(forColumn: "key"), name: try row.decode(forColumn: "name"),
                addedMilliseconds: try row.decode(forColumn: "added_ms"), ids: try row.decode(forColumn: "ids"),
                expires: try row.decode(forColumn: "expires"), revokedMilliseconds: try row.decode(forColumn: "revoked_ms"),
                revokedReason: try row.decode(forColumn: "revoked_reason"))
        }
    }
}
