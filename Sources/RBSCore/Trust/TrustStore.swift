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
            let publishers = try Self.open(dataDirectory, location)
            defer { publishers.close() }
            do {
                return try publishers.keys().map { TrustedKeys.Entry(key: $0.key, name: $0.name) }
            } catch {
                throw .sharedStore(error.description)
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
            let publishers = try Self.open(dataDirectory, location)
            defer { publishers.close() }
            do {
                return try publishers.add(key, name: name) != .unchanged
            } catch {
                throw .sharedStore(error.description)
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
            let resolved = try? TrustedKeys.resolve(reference)
            let publishers = try Self.open(dataDirectory, location)
            defer { publishers.close() }
            let removed: TrustedPublishers.Key?
            do {
                removed = try publishers.remove { $0.key == resolved?.hex || ($0.name != nil && $0.name == reference) }
            } catch {
                throw .sharedStore(error.description)
            }
            guard let removed else { throw .notTrusted(reference) }
            return TrustedKeys.Entry(key: removed.key, name: removed.name)
        }
    }

    private static func open(_ dataDirectory: URL, _ location: LedgerLocation) throws(TrustError) -> TrustedPublishers {
        do {
            return try TrustedPublishers(dataDirectory: dataDirectory, location: location)
        } catch {
            throw .sharedStore(error.description)
        }
    }
}
