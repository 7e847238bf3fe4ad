import Foundation
import RBSLedger

/// The root of the host (seed 002's Root module): configures the ServiceLocator with the host's services and owns
/// the plugin registry. The REPL and the commands are thin layers over it.
public final class Runtime: @unchecked Sendable {
    public let paths: HostPaths
    public let locator: ServiceLocator
    public let registry: PluginRegistry
    private let serviceTables: HostServiceTables
    private let clock: any Clock
    private let ledgerLock = NSLock()
    private var openedLedger: Ledger?
    private var actingParty: Party?

    /// The party the host acts for: its own signer (nil, the default) or a customer a command acts as (`run --as`).
    /// The account pickers offer that party's accounts; the core decides what its key may debit whatever is offered.
    public var party: Party? {
        get { ledgerLock.withLock { actingParty } }
        set { ledgerLock.withLock { actingParty = newValue } }
    }

    /// The staged rollouts this host follows (``ReleaseTrack``), when its ledger exists: a rolling version is opened
    /// for the parties its share covers.
    public var releaseTrack: ReleaseTrack? {
        get { ledgerLock.withLock { track } }
        set { ledgerLock.withLock { track = newValue } }
    }
    private var track: ReleaseTrack?

    /// The party a rollout's cohort is chosen by: a customer by its holder id; the host's own signer (acting for
    /// itself, `party` nil or `.host`) is one party, whatever its key.
    public static func cohortKey(of party: Party?) -> String {
        if case .customer(let holder) = party { return "customer:\(holder)" }
        return "host"
    }

    /// - Parameters:
    ///   - accounts: the customer's accounts (by default the embedded bank's, once it exists).
    ///   - scanner: how new or changed plugin files are read (the host uses a child process); nil loads every
    ///     plugin into this process at once, without a cache.
    ///   - policy: the checks every plugin load passes (the trust policy: the folder, the very bytes that are opened,
    ///     the manifest against its signature); nil loads every well-formed plugin.
    ///   - isolation: whether plugins run in worker processes (see `IsolationSettings`); nil: in this process.
    public init(paths: HostPaths, accounts: (any AccountsService)? = nil, clock: any Clock = SystemClock(),
                log: any HostLog = StandardErrorLog(), directory: BankDirectory? = nil,
                scanner: (any PluginScanner)? = nil, policy: PluginLoadPolicy? = nil,
                isolation: IsolationSettings? = nil) {
        self.paths = paths
        let locator = ServiceLocator()
        locator.register(log, as: (any HostLog).self)
        locator.register(clock, as: (any Clock).self)
        // The directory imported into the data folder (`directory import`), read now so that a broken one is warned
        // about at start; else the bundled extract, parsed when first used (`list` never does).
        if let directory {
            locator.register(directory)
        } else if FileManager.default.fileExists(atPath: BankDirectory.importedFile(in: paths.data).path) {
            locator.register(Self.bankDirectory(dataDirectory: paths.data, log: log))
        } else {
            locator.register(BankDirectory.self, lazily: { BankDirectory.bundled() })
        }
        self.clock = clock
        if let accounts { locator.register(accounts, as: (any AccountsService).self) }
        self.locator = locator
        serviceTables = HostServiceTables(locator: locator)
        registry = PluginRegistry(loader: PluginLoader(imagesDirectory: paths.images, locator: locator, policy: policy,
                                                       isolation: isolation),
                                  locator: locator, scanner: scanner, cacheDirectory: scanner == nil ? nil : paths.data)
        // The versions in service are recorded in the data folder, so that a start refuses a downgrade as a reload does.
        registry.versionRecord = PluginVersionRecord(dataDirectory: paths.data)
        // A service nobody registered yet may belong to a listed plugin: the registry loads it.
        locator.provider = registry
        if accounts == nil {
            locator.register(LedgerAccounts { [unowned self] in (try self.ledger(), self.party) }, as: (any AccountsService).self)
        }
        locator.register(LedgerCards { [unowned self] in (try self.ledger(), self.party) }, as: (any CardsService).self)
    }

    /// The imported bank directory; when it cannot be read, the bundled extract, with a warning saying why.
    private static func bankDirectory(dataDirectory: URL, log: any HostLog) -> BankDirectory {
        do {
            return try BankDirectory.current(dataDirectory: dataDirectory)
        } catch {
            log.write(level: .warning, source: "rbs-host",
                      message: "\(error) — using the bundled bank directory; re-import with `rbs-host directory import FILE`")
            return .bundled()
        }
    }

    /// The journal, the keys and the embedded core in the data directory, opened on first use.
    public func ledger() throws(LedgerError) -> Ledger {
        ledgerLock.lock()
        defer { ledgerLock.unlock() }
        if let openedLedger { return openedLedger }
        let clock = self.clock
        let ledger = try Ledger(dataDirectory: paths.data, location: paths.database, clock: { clock.now })
        openedLedger = ledger
        return ledger
    }

    /// Opens a run of operation `id` (a module), of the version `cohort`'s party gets (``releaseTrack``); nil: the
    /// acting ``party``'s.
    public func open(_ id: String, cohort: String? = nil) throws(RunError) -> FormSession {
        let cohort = cohort ?? Self.cohortKey(of: party)
        return try open(registered(id, cohort: cohort), placement: nil, cohort: cohort)
    }

    /// Chooses where a run of operation `id` will be served and holds that place for it (loading its plugin if it is
    /// not yet): for a plugin in workers, the least busy worker of its pool. Open the run with `open(at:)`; a
    /// placement never opened gives its place back when it goes away.
    public func place(_ id: String, cohort: String? = nil) throws(RunError) -> PluginPlacement {
        let operation = try registered(id, cohort: cohort ?? Self.cohortKey(of: party))
        return operation.plugin.runtime.place(operation)
    }

    /// Opens the run `placement` was made for, on the worker it chose (the version it was placed on, even if the
    /// plugin was reloaded meanwhile).
    public func open(at placement: PluginPlacement, cohort: String? = nil) throws(RunError) -> FormSession {
        try open(placement.operation, placement: placement, cohort: cohort ?? Self.cohortKey(of: party))
    }

    private func registered(_ id: String, cohort: String) throws(RunError) -> RegisteredOperation {
        // A rolling version of the operation's plugin, when the party's cohort is inside its share.
        if let track = releaseTrack, let pluginID = registry.pluginID(ofOperation: id),
           let image = track.image(for: pluginID, party: cohort), let compiled = image.compiled[id] {
            return RegisteredOperation(plugin: image, compiled: compiled)
        }
        guard let operation = registry.operation(id: id) else {
            let known = registry.operations.map(\.id)
            throw .unknownOperation(id, suggestion: Suggestion.closest(to: id, among: known))
        }
        return operation
    }

    private func open(_ operation: RegisteredOperation, placement: PluginPlacement?, cohort: String) throws(RunError) -> FormSession {
        do {
            let session = try FormSession(operation: operation, locator: locator, placement: placement)
            session.onClose = { [weak registry] in registry?.collectRetired() }
            PluginVersionCounters.shared.run(VersionCount.version(of: operation.plugin), party: cohort)
            return session
        } catch {
            // A run the plugin ended in create() (or its quarantine refused after such faults) is a run that faulted:
            // counted as both, so a version that crashes at once reaches its rollout's minimum of runs and is rolled
            // back, instead of piling up faults against no runs ("8 of its 3 runs") while every customer is refused.
            if case .pluginFault = error {
                let version = VersionCount.version(of: operation.plugin)
                PluginVersionCounters.shared.run(version, party: cohort)
                PluginVersionCounters.shared.fault(version)
            }
            throw .form(error)
        }
    }

    /// Watches the plugin folder and reloads on every change, calling `reported` (on the watcher's thread) with
    /// what each reload did.
    public func watch(_ reported: @escaping @Sendable ([ReloadReport]) -> Void) throws(PluginWatcher.WatchError) -> PluginWatcher {
        try PluginWatcher(directory: paths.plugins) { [weak self] in
            guard let self else { return }
            let reports = self.reload()
            if !reports.isEmpty { reported(reports) }
        }
    }

    /// Picks up new, changed and removed plugin files (all, or the one plugin `only` names).
    @discardableResult
    public func reload(only: String? = nil) -> [ReloadReport] {
        takeAllowedDowngrades()
        return registry.rescan(paths.plugins, only: only)
    }

    /// The file in the data folder where `rbs-host plugin allow-downgrade ID` leaves an operator's permission for a
    /// running host (the REPL, `serve`) to take at its next reload: one plugin id a line.
    public static let allowedDowngradesFile = "allowed-downgrades"

    /// Adds a permission for the next downgrade of plugin `id` to the data folder's file, for a host that reloads.
    public static func allowDowngrade(_ id: String, dataDirectory: URL) throws(TrustError) {
        let file = dataDirectory.appendingPathComponent(allowedDowngradesFile)
        let old = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        // Private, as every file of the data folder (DataFolder checks it): a permission to downgrade is the operator's.
        try TrustFile.write(old + id + "\n", to: file.path, mode: 0o600)
    }

    /// Moves the permissions left in the data folder into the registry (each used up by the downgrade it allows).
    private func takeAllowedDowngrades() {
        let file = paths.data.appendingPathComponent(Self.allowedDowngradesFile)
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return }
        try? FileManager.default.removeItem(at: file)
        for id in text.split(whereSeparator: \.isNewline) where !id.isEmpty { registry.allowDowngrade(String(id)) }
    }

    /// Loads every plugin in the plugin folder.
    public func loadPlugins() {
        takeAllowedDowngrades()
        if let record = registry.versionRecord, !record.unreadable.isEmpty {
            locator.optional((any HostLog).self)?.write(level: .warning, source: "rbs-host", message: "\(record.path): lines \(record.unreadable.map(String.init).joined(separator: ", ")) are not '<plugin id> <version>' and are passed over — the versions they named are not protected from a downgrade at start")
        }
        registry.loadDirectory(paths.plugins)
    }
}
