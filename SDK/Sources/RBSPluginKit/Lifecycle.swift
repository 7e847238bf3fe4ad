import CRBSPlugin
import Synchronization

/// What a plugin does around its life in the host, beside its operations: `init()` and `deinit()` of the C entry,
/// and `rbs.state/1`, the state a version in service hands to the next one at a hot reload.
///
/// ```swift
/// Plugin.entry(id: "ru.example.topup", …, operations: [TopUp.self],
///              lifecycle: PluginLifecycle(start: { host in
///                  host.log("started on \(host.today() ?? "?")")
///                  return host.register("ru.example.topup.operators/1", table: Operators.table)
///              }, state: StateHandover(save: { Counters.bytes() }, load: { Counters.restore($0) })))
/// ```
public struct PluginLifecycle: Sendable {
    /// `init()`: once, before any operation runs, with the host's table (its services, `register`). Return false to
    /// refuse to start (the host then does not put the plugin in service and says so). Runs in a worker when the
    /// plugin is isolated; the services are reached there too.
    public var start: (@Sendable (Host) -> Bool)?
    /// `deinit()`: once, when the host stops using this version.
    public var stop: (@Sendable () -> Void)?
    /// `rbs.state/1`; nil: a new version starts empty.
    public var state: StateHandover?

    public init(start: (@Sendable (Host) -> Bool)? = nil, stop: (@Sendable () -> Void)? = nil, state: StateHandover? = nil) {
        self.start = start
        self.stop = stop
        self.state = state
    }
}

/// `rbs.state/1`: `save` gives the bytes the version in service hands over (nil: it cannot, and the new version
/// starts empty); `load` takes them in the new version (false: it cannot read them).
public struct StateHandover: Sendable {
    public var save: @Sendable () -> [UInt8]?
    public var load: @Sendable ([UInt8]) -> Bool

    public init(save: @escaping @Sendable () -> [UInt8]?, load: @escaping @Sendable ([UInt8]) -> Bool) {
        self.save = save
        self.load = load
    }
}

extension Plugin {
    /// The lifecycle given to `entry`, read by the C callbacks below (which cannot capture).
    static let lifecycle = Mutex<PluginLifecycle?>(nil)

    /// `init`: the start handler with the host's table; true when there is none.
    static let initialize: @convention(c) (UnsafePointer<rbs_host_t>?) -> Bool = { host in
        guard let start = lifecycle.withLock({ $0?.start }) else { return true }
        return start(Host(host))
    }

    /// `deinit`: the stop handler, if any.
    static let finalize: @convention(c) () -> Void = {
        lifecycle.withLock { $0?.stop }?()
    }

    /// The `rbs.state/1` table, made once (static data the host reads; never written after it is made, so sharing
    /// the pointer across threads is safe).
    nonisolated(unsafe) static let stateExtension: UnsafeRawPointer = {
        let table = UnsafeMutablePointer<rbs_state_extension_t>.allocate(capacity: 1)
        table.initialize(to: rbs_state_extension_t(save: saveState, load: loadState))
        return UnsafeRawPointer(table)
    }()

    private static let saveState: @convention(c) (UnsafeMutableRawPointer?, rbs_state_write_fn?) -> Bool = { writer, write in
        guard let save = lifecycle.withLock({ $0?.state?.save }), let write, let bytes = save() else { return false }
        return bytes.withUnsafeBufferPointer { buffer in write(writer, buffer.baseAddress, buffer.count) }
    }

    private static let loadState: @convention(c) (UnsafePointer<UInt8>?, Int) -> Bool = { bytes, size in
        guard let load = lifecycle.withLock({ $0?.state?.load }), size >= 0 else { return false }
        guard size > 0 else { return load([]) }
        guard let bytes else { return false }
        return load(Array(UnsafeBufferPointer(start: bytes, count: size)))
    }
}

/// One of the signer's cards, masked (the full number never reaches a plugin).
public struct CardInfo: Sendable, Equatable {
    /// The bank's id of the card: what a document's "card" field names.
    public var id: String
    /// First six and last four digits, grouped: "4111 11** **** 1111".
    public var masked: String
    /// The account the card draws on.
    public var account: String
    public var blocked: Bool
}

extension Host {
    /// Offers a service to other plugins under a versioned id ("ru.example.topup.operators/1"): `table` is a C table
    /// that lives as long as the image (a `static` one). False when the host refused it (an id another plugin
    /// registered, a malformed id) or when called outside `init`.
    public func register(_ id: String, table: UnsafeRawPointer) -> Bool {
        guard let raw, let register = raw.pointee.register_service else { return false }
        return register(raw, id, table)
    }

    /// The signer's cards (masked), from `rbs.cards/1`; empty without the service.
    public func cards() -> [CardInfo] {
        guard let table = service(RBS_SERVICE_CARDS)?.assumingMemoryBound(to: rbs_cards_service_t.self),
              let count = table.pointee.count, let at = table.pointee.at else { return [] }
        var result: [CardInfo] = []
        for index in 0..<count(table.pointee.context) {
            var card = rbs_card_t()
            guard at(table.pointee.context, index, &card) else { continue }
            func text(_ pointer: UnsafePointer<CChar>?) -> String { pointer.map { String(cString: $0) } ?? "" }
            result.append(CardInfo(id: text(card.id), masked: text(card.masked), account: text(card.account), blocked: card.blocked))
        }
        return result
    }

    /// Today in the host's time zone, "YYYY-MM-DD", from `rbs.clock/1`; nil without the service.
    public func today() -> String? {
        guard let table = service(RBS_SERVICE_CLOCK)?.assumingMemoryBound(to: rbs_clock_service_t.self),
              let today = table.pointee.today else { return nil }
        var out = [CChar](repeating: 0, count: 11)
        out.withUnsafeMutableBufferPointer { buffer in today(table.pointee.context, buffer.baseAddress) }
        return String(decoding: out.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The host's time in milliseconds since 1970 (a test host freezes it), from `rbs.clock/1`; nil without it.
    public func nowMilliseconds() -> Int64? {
        guard let table = service(RBS_SERVICE_CLOCK)?.assumingMemoryBound(to: rbs_clock_service_t.self),
              let now = table.pointee.now_unix_ms else { return nil }
        return now(table.pointee.context)
    }
}
