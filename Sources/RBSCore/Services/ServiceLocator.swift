import Foundation

/// The host's registry of services (seed 002's ServiceLocator): typed registration and `inject()` for the host's own
/// parts, and C service tables looked up by versioned string id for plugins.
public final class ServiceLocator: @unchecked Sendable {
    private let lock = NSLock()
    private var typed: [ObjectIdentifier: Any] = [:]
    private var tables: [String: (table: UnsafeRawPointer, owner: String, token: ObjectIdentifier?)] = [:]

    public init() {}

    /// Registers `service` as the provider of `type` (replacing an earlier one).
    public func register<T>(_ service: T, as type: T.Type = T.self) {
        lock.withLock { typed[ObjectIdentifier(type)] = service }
    }

    /// Registers the provider of `type` that `make` makes on the first ``inject(_:)`` (a service costly to make that
    /// many commands never use, such as the bundled bank directory).
    public func register<T>(_ type: T.Type = T.self, lazily make: @escaping @Sendable () -> T) {
        lock.withLock { typed[ObjectIdentifier(type)] = LazyService(make: make) }
    }

    /// The provider of `T`.
    public func inject<T>(_ type: T.Type = T.self) throws(ServiceError) -> T {
        let found = lock.withLock { typed[ObjectIdentifier(type)] }
        guard let service = ((found as? LazyService)?.value ?? found) as? T else { throw .missing(String(describing: type)) }
        return service
    }

    /// The provider of `T`, or nil.
    public func optional<T>(_ type: T.Type = T.self) -> T? { try? inject(type) }

    /// Registers a C service table under a versioned id ("rbs.accounts/1") for plugins to look up.
    /// - Parameters:
    ///   - owner: who registered it ("rbs-host" or a plugin's id), named when the id clashes.
    ///   - token: identifies the registering image, so one version's removal never takes another's tables.
    public func registerTable(_ table: UnsafeRawPointer, id: String, owner: String,
                              token: ObjectIdentifier? = nil) throws(ServiceError) {
        guard Self.isServiceID(id) else { throw .malformedID(id) }
        lock.lock()
        defer { lock.unlock() }
        if let existing = tables[id] { throw .taken(id: id, owner: existing.owner) }
        tables[id] = (table, owner, token)
    }

    /// Removes every table `owner` registered (a plugin being unloaded).
    public func removeTables(ownedBy owner: String) {
        lock.withLock { tables = tables.filter { $0.value.owner != owner } }
    }

    /// Removes every table registered with `token` (one version of a plugin).
    public func removeTables(token: ObjectIdentifier) {
        lock.withLock { tables = tables.filter { $0.value.token != token } }
    }

    /// Asked for a table nobody registered yet (set by the `Runtime` to its plugin registry).
    public var provider: (any ServiceProvider)? {
        get { lock.withLock { weakProvider } }
        set { lock.withLock { weakProvider = newValue } }
    }
    private weak var weakProvider: (any ServiceProvider)?

    /// The C table registered under `id`, or nil; a missing one is asked of the ``provider`` first.
    public func table(id: String) -> UnsafeRawPointer? {
        if let found = lock.withLock({ tables[id]?.table }) { return found }
        guard let provider else { return nil }
        provider.provide(serviceID: id)
        return lock.withLock { tables[id]?.table }
    }

    /// The ids of every registered C table, sorted.
    public var tableIDs: [String] { lock.withLock { tables.keys.sorted() } }

    /// "vendor.name/N": dot-separated lowercase words, a slash and a version number.
    static func isServiceID(_ id: String) -> Bool {
        let parts = id.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let version = Int(parts[1]), version > 0 else { return false }
        return DescriptorReader.isReverseDNS(String(parts[0]))
    }
}

/// A service made on first use, once (see ``ServiceLocator/register(_:lazily:)``).
private final class LazyService: @unchecked Sendable {
    private let lock = NSLock()
    private var make: (@Sendable () -> Any)?
    private var made: Any?

    init(make: @escaping @Sendable () -> Any) {
        self.make = make
    }

    /// The service, made now if it was not yet.
    var value: Any? {
        lock.withLock {
            if let make {
                made = make()
                self.make = nil
            }
            return made
        }
    }
}
