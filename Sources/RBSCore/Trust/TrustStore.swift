import Foundation
import RBSLedger
import RBSMoney

/// What `trust add` grants a key beside its name; `nil` leaves what is stored.
public struct TrustGrant: Sendable, Equatable {
    /// The plugin ids it may sign (empty: every id).
    public var ids: [PluginIDPattern]?
    /// Its last trusted day, or `.some(nil)` for no expiry.
    public var expires: CalendarDay??

    public init(ids: [PluginIDPattern]? = nil, expires: CalendarDay?? = nil) {
        self.ids = ids
        self.expires = expires
    }
}

/// What `trust add` did.
public enum TrustAddition: Sendable, Equatable {
    case added, updated, unchanged
}

/// Where the publisher keys a host trusts are kept, as the ledger is: with the data folder's SQLite (one host),
/// in `<data>/trusted-keys` (``TrustedKeys``); with a database several hosts share (`--database postgres://…`),
/// in its `trusted_keys` table (``TrustedPublishers``), so every host loads the same plugins and a key removed on
/// one is refused by all.
public enum TrustStore: Sendable {
    case file(path: String)
    case database(dataDirectory: URL, location: LedgerLocation)

    /// The store the ledger's location implies.
    public init(dataDirectory: URL, location: LedgerLocation) {
        switch location {
        case .dataFolder: self = .file(path: TrustedKeys.path(in: dataDirectory))
        case .postgres: self = .database(dataDirectory: dataDirectory, location: location)
        }
    }

    /// Whether the keys are shared with other hosts (kept in the database).
    public var isShared: Bool {
        if case .database = self { return true }
        return false
    }

    /// Where the keys are, as `trust list` names it.
    public var place: String {
        switch self {
        case .file(let path): path
        case .database(_, let location): "\(location) (table trusted_keys)"
        }
    }

    /// Every listed key, revoked ones included.
    public func entries() throws(TrustError) -> [TrustedKeys.Entry] {
        switch self {
        case .file(let path):
            return try TrustedKeys(path: path).entries
        case .database(let dataDirectory, let location):
            return try Self.withPublishers(dataDirectory, location) { publishers throws(LedgerError) in
                try publishers.keys().map(Self.entry)
            }
        }
    }

    /// Trusts `key` (hex) under `name` with what `grant` gives (a name or grant given again replaces the old one).
    /// A revoked key is refused.
    @discardableResult
    public func add(_ key: String, name: String?, grant: TrustGrant = TrustGrant()) throws(TrustError) -> TrustAddition {
        switch self {
        case .file(let path):
            var keys = try TrustedKeys(path: path)
            return try keys.add(key, name: name, grant: grant)
        case .database(let dataDirectory, let location):
            let stored = TrustedPublishers.Grant(ids: grant.ids.map { $0.map(\.text).joined(separator: ",") },
                                                 expires: grant.expires.map { $0?.iso })
            let addition = try Self.withPublishers(dataDirectory, location) { publishers throws(LedgerError) in
                try publishers.add(key, name: name, grant: stored)
            }
            switch addition {
            case .added: return .added
            case .renamed, .updated: return .updated
            case .unchanged: return .unchanged
            case .revoked(let revoked):
                let entry = Self.entry(revoked)
                throw .revoked(key: entry.key, on: entry.revoked ?? "", reason: entry.revokedReason)
            }
        }
    }

    /// Stops trusting a key given as hex, by its name, or as a key or .pub file. Returns the removed entry. A revoked
    /// key stays listed.
    @discardableResult
    public func remove(_ reference: String) throws(TrustError) -> TrustedKeys.Entry {
        switch self {
        case .file(let path):
            var keys = try TrustedKeys(path: path)
            return try keys.remove(reference)
        case .database(let dataDirectory, let location):
            let matches = TrustedKeys.matcher(reference)
            let removal = try Self.withPublishers(dataDirectory, location) { publishers throws(LedgerError) in
                try publishers.remove { matches($0.key, $0.name) }
            }
            switch removal {
            case nil: throw .notTrusted(reference)
            case .removed(let key)?: return Self.entry(key)
            case .revoked(let key)?: throw .revokedStays(key: key.key)
            }
        }
    }

    /// Revokes a key given as hex, by its name, or as a key or .pub file — trusted here or not (a key known to be
    /// compromised is refused before anyone trusts it). Returns its entry and whether it was revoked before.
    public func revoke(_ reference: String, reason: String?, now: Date = Date()) throws(TrustError)
        -> (entry: TrustedKeys.Entry, already: Bool) {
        // The key a listed entry matches (by hex, key file or name), else the key the reference itself is: the list
        // is read once, in the same place the revocation is written.
        let matches = TrustedKeys.matcher(reference)
        let direct = try? TrustedKeys.resolve(reference)
        switch self {
        case .file(let path):
            var keys = try TrustedKeys(path: path)
            let listed = keys.entries.first { matches($0.key, $0.name) }
            guard let key = listed.map({ (hex: $0.key, name: $0.name) }) ?? direct else { throw .notAKey(reference) }
            guard let today = CalendarDay.containing(now, in: .gmt) else { throw .notAKey(reference) }
            return try keys.revoke(key.hex, name: key.name, reason: reason, today: today)
        case .database(let dataDirectory, let location):
            let revocation = try Self.withPublishers(dataDirectory, location) { publishers throws(LedgerError) -> TrustedPublishers.Revocation? in
                let listed = try publishers.keys().first { matches($0.key, $0.name) }
                guard let key = listed.map({ (hex: $0.key, name: $0.name) }) ?? direct else { return nil }
                return try publishers.revoke(key.hex, name: key.name, reason: reason)
            }
            switch revocation {
            case nil: throw .notAKey(reference)
            case .revoked(let key)?: return (Self.entry(key), false)
            case .alreadyRevoked(let key)?: return (Self.entry(key), true)
            }
        }
    }

    /// A key of the shared database's table as the file would list it.
    private static func entry(_ key: TrustedPublishers.Key) -> TrustedKeys.Entry {
        TrustedKeys.Entry(key: key.key, name: key.name, ids: key.ids.split(separator: ",").map(String.init),
                          expires: key.expires,
                          revoked: key.revokedMilliseconds.flatMap {
                              CalendarDay.containing(Timestamp.date(milliseconds: $0), in: .gmt)?.iso
                          },
                          revokedReason: key.revokedReason)
    }

    /// Runs `body` on the shared database's keys (opened for it, closed after), its failures as ``TrustError``.
    private static func withPublishers<T>(_ dataDirectory: URL, _ location: LedgerLocation,
                                          _ body: (TrustedPublishers) throws(LedgerError) -> T) throws(TrustError) -> T {
        do {
            let publishers = try TrustedPublishers(dataDirectory: dataDirectory, location: location)
            defer { publishers.close() }
            return try body(publishers)
        } catch {
            throw .sharedStore(error.description)
        }
    }
}
