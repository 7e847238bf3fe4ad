import Foundation
import RBSLedger

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

    /// Every trusted key.
    public func entries() throws(TrustError) -> [TrustedKeys.Entry] {
        switch self {
        case .file(let path):
            return try TrustedKeys(path: path).entries
        case .database(let dataDirectory, let location):
            return try Self.withPublishers(dataDirectory, location) { publishers throws(LedgerError) in
                try publishers.keys().map { TrustedKeys.Entry(key: $0.key, name: $0.name) }
            }
        }
    }

    /// Trusts `key` (hex) under `name` (a name given again replaces the old one). Returns false when it was
    /// already trusted under that name.
    @discardableResult
    public func add(_ key: String, name: String?) throws(TrustError) -> Bool {
        switch self {
        case .file(let path):
            var keys = try TrustedKeys(path: path)
            return try keys.add(key, name: name)
        case .database(let dataDirectory, let location):
            return try Self.withPublishers(dataDirectory, location) { publishers throws(LedgerError) in
                try publishers.add(key, name: name) != .unchanged
            }
        }
    }

    /// Stops trusting a key given as hex, by its name, or as a key or .pub file. Returns the removed entry.
    @discardableResult
    public func remove(_ reference: String) throws(TrustError) -> TrustedKeys.Entry {
        switch self {
        case .file(let path):
            var keys = try TrustedKeys(path: path)
            return try keys.remove(reference)
        case .database(let dataDirectory, let location):
            let matches = TrustedKeys.matcher(reference)
            let removed = try Self.withPublishers(dataDirectory, location) { publishers throws(LedgerError) in
                try publishers.remove { matches($0.key, $0.name) }
            }
            guard let removed else { throw .notTrusted(reference) }
            return TrustedKeys.Entry(key: removed.key, name: removed.name)
        }
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
