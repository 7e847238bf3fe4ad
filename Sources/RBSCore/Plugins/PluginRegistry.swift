import Foundation

/// The plugins the host knows and the operations they offer.
///
/// With a scanner (the host's normal mode), plugin files are listed from a cache of their manifests, a new or
/// changed file is scanned in a child process, and a plugin is loaded into the host only when one of its operations
/// is first run or one of its services is first looked up (the registry is the locator's ``ServiceProvider``).
/// Without one, every plugin is loaded at once. A plugin that fails is recorded with its reason; the rest load
/// regardless.
///
/// Threads: every method may be called from any thread. The registry's state is guarded by one lock that is never
/// held while plugin code runs (`init`, `deinit`, a scan), so a plugin's `init` may look up a service of another
/// listed plugin and have it loaded. Rescans run one at a time (see `PluginRegistry+Rescan.swift` for their phases).
public final class PluginRegistry: @unchecked Sendable {
    public let loader: PluginLoader
    public let locator: ServiceLocator
    let scanner: (any PluginScanner)?
    /// Where the manifest cache lives (nil: no cache).
    let cacheDirectory: URL?
    /// Called with (done, total) while a scan of several files runs.
    public var progress: @Sendable (Int, Int) -> Void = { _, _ in }

    /// A plugin in service: its manifest, and its image once loaded.
    struct Listing {
        var path: String
        var manifest: PluginManifest
        var services: [String]
        var hash: String
        var image: PluginImage?
    }

    /// Guards everything below; waited on while another thread loads a plugin.
    let state = NSCondition()
    /// One rescan at a time (the watcher's thread, the REPL's `reload`, a command's start).
    let rescanning = NSLock()
    /// The plugins in service by path, with indexes of who offers which plugin id, operation and service, so a
    /// folder of hundreds of plugins is listed without quadratic searches.
    var byPath: [String: Listing] = [:]
    var pluginOwners: [String: String] = [:]
    var operationOwners: [String: String] = [:]
    var serviceOwners: [String: String] = [:]
    /// ``listings``, while known (an empty registry's are).
    private var sortedCache: [Listing]? = []
    /// The files that are not in service, with why; `hash` is set when the refusal holds until the file changes.
    var failures: [String: (record: PluginRecord, hash: String?)] = [:]
    /// Why the plugin folder itself cannot be used, when it cannot.
    var folderError: PluginRecord?
    /// The files whose new bytes were refused while their plugin's older version stays in service, with why: what
    /// `plugins` says beside the version in service, until the file is in service again, replaced or removed.
    var refusedReplacements: [String: PluginLoadError] = [:]
    /// Versions replaced or removed while modules still ran on them.
    var retired: [PluginImage] = []
    /// The plugin ids whose next lower version the operator allowed by name (``allowDowngrade(_:)``); each is used up
    /// by the downgrade it allows.
    var allowedDowngrades: Set<String> = []
    /// The versions last in service on the host's data folder, for a start to refuse a downgrade as a reload does
    /// (a host with a data folder sets it; tests and tools without one compare with what is in service only).
    var versionRecord: PluginVersionRecord?
    /// The plugins being loaded now, with the thread loading each.
    private var loading: [String: ObjectIdentifier] = [:]

    public init(loader: PluginLoader, locator: ServiceLocator, scanner: (any PluginScanner)? = nil,
                cacheDirectory: URL? = nil) {
        self.loader = loader
        self.locator = locator
        self.scanner = scanner
        self.cacheDirectory = cacheDirectory
    }

    /// Runs `body` holding the state lock.
    func locked<T>(_ body: () throws -> T) rethrows -> T {
        state.lock()
        defer { state.unlock() }
        return try body()
    }

    /// The plugins in service, in file order (state lock held).
    var listings: [Listing] {
        if let sortedCache { return sortedCache }
        let sorted = byPath.values.sorted { $0.path < $1.path }
        sortedCache = sorted
        return sorted
    }

    // MARK: - What is known

    /// One record per plugin file, in file order: `listed` (in service, not loaded yet), `loaded` or `failed`.
    public var records: [PluginRecord] { records(inService: true) }

    /// The `failed` ones of ``records``, in the same order, without making a record of every plugin in service.
    public var failedRecords: [PluginRecord] { records(inService: false) }

    /// The records; those of plugins in service that work only when `inService`.
    private func records(inService: Bool) -> [PluginRecord] {
        locked {
            var all = listings.compactMap { listing -> PluginRecord? in
                // A plugin whose worker keeps failing is quarantined: in service, but its operations cannot run.
                let quarantine = listing.image?.quarantine
                guard inService || quarantine != nil else { return nil }
                var record = PluginRecord(path: listing.path, id: listing.manifest.id, version: listing.manifest.version,
                                          abi: listing.manifest.abi.description,
                                          status: quarantine != nil ? .failed : listing.image == nil ? .listed : .loaded,
                                          error: nil)
                if let quarantine {
                    let problem = PluginLoadError(path: listing.path, problem: .quarantined(quarantine))
                    record.error = problem.description
                    record.problem = problem
                } else if let refused = refusedReplacements[listing.path] {
                    // In service, but not what the file now holds: said, so `plugins` never shows only the old version.
                    record.error = refused.description + " — version \(listing.manifest.version) stays in service"
                    record.problem = refused
                }
                return record
            } + failures.values.map(\.record)
            all.sort { $0.path < $1.path }
            return (folderError.map { [$0] } ?? []) + all
        }
    }

    /// Why the plugin folder cannot be used, when it cannot (a missing folder, one other users can write to).
    public var folderProblem: PluginLoadError? { locked { folderError?.problem } }

    /// The plugins loaded into the host now.
    public var plugins: [PluginImage] { locked { listings.compactMap(\.image) } }

    /// The ids of the plugins in service (loaded or listed).
    public var pluginIDs: [String] { locked { listings.map(\.manifest.id) } }

    /// Every operation in service, in the order of the plugin files and, within a plugin, as it declares them.
    public var operations: [OperationListing] {
        locked {
            listings.flatMap { listing in
                let quarantine = listing.image?.quarantine
                return listing.manifest.operations.map {
                    OperationListing(descriptor: $0, pluginID: listing.manifest.id,
                                     pluginVersion: listing.manifest.version, path: listing.path,
                                     unavailable: quarantine.map { "plugin \(listing.manifest.id) \($0)" })
                }
            }
        }
    }

    /// The id of the plugin in service that offers operation `id` (without loading it).
    public func pluginID(ofOperation id: String) -> String? {
        locked { operationOwners[id].flatMap { byPath[$0]?.manifest.id } }
    }

    /// The operation `id`, loading its plugin first if it is only listed. Nil when no plugin offers it, or when its
    /// plugin fails to load now (the failure is recorded).
    public func operation(id: String) -> RegisteredOperation? {
        guard let path = locked({ operationOwners[id] }), let image = ensureLoaded(path),
              let compiled = image.compiled[id] else { return nil }
        return RegisteredOperation(plugin: image, compiled: compiled)
    }

    // MARK: - Loading

    /// Lists (or, without a scanner, loads) every plugin in `directory`. A folder that cannot be read, or that the
    /// trust policy refuses, is one failed record saying why, not a crash.
    public func loadDirectory(_ directory: String) {
        rescan(directory)
    }

    /// Loads and registers one file at once (tests and tools): the same checks as a folder load.
    @discardableResult
    public func load(path: String) -> PluginImage? {
        let directory = (path as NSString).deletingLastPathComponent
        let folder = directory.isEmpty ? "." : directory
        rescan(folder, only: path)
        // The registry names files as the folder listing does ("./x.so" for "x.so").
        let listed = locked {
            byPath[path] != nil ? path
                : (folder.hasSuffix("/") ? folder : folder + "/") + (path as NSString).lastPathComponent
        }
        return ensureLoaded(listed)
    }

    /// Stops replaced or removed versions that no running module uses any more (C images are unloaded then).
    public func collectRetired() {
        let idle: [PluginImage] = locked {
            let idle = retired.filter { $0.liveModules == 0 }
            retired.removeAll { $0.liveModules == 0 }
            return idle
        }
        for image in idle { image.stop(locator: locator) }
    }

    /// Stops every plugin (deinit; C images are closed).
    public func unloadAll() {
        rescanning.withLock {
            let images: [PluginImage] = locked {
                let loaded = listings.reversed().compactMap(\.image)
                for listing in listings.reversed() { withdraw(path: listing.path) }
                retired.removeAll { image in loaded.contains { $0 === image } }
                return loaded
            }
            for image in images { image.stop(locator: locator) }
            collectRetired()
        }
    }

    /// Loads a listed plugin into the host and starts it, outside the state lock. On failure the plugin leaves
    /// service with its reason recorded. A thread that is itself loading a plugin (a service lookup from a plugin's
    /// `init`) does not wait for a load another thread has under way: it gets nil, so two loads never wait on each
    /// other.
    func ensureLoaded(_ path: String) -> PluginImage? {
        let me = ObjectIdentifier(Thread.current)
        state.lock()
        var listing: Listing?
        while let current = byPath[path] {
            if let image = current.image {
                state.unlock()
                return image
            }
            guard let other = loading[path] else {
                listing = current
                break
            }
            if other == me || loading.values.contains(me) {
                state.unlock()
                return nil
            }
            state.wait()
        }
        guard let listing else {
            state.unlock()
            return nil
        }
        loading[path] = me
        state.unlock()

        let result: Result<PluginImage, PluginLoadError>
        do throws(PluginLoadError) {
            let image = try loader.load(path: listing.path, pluginID: listing.manifest.id)
            try start(image, replacing: nil)
            result = .success(image)
        } catch {
            result = .failure(error)
        }

        state.lock()
        defer {
            loading[path] = nil
            state.broadcast()
            state.unlock()
        }
        switch result {
        case .success(let image):
            byPath[path]?.image = image
            byPath[path]?.manifest = image.manifest
            sortedCache = nil
            return image
        case .failure(let error):
            withdraw(path: path)
            failures[listing.path] = (PluginRecord(failed: error), listing.hash)
            locator.optional((any HostLog).self)?.write(level: .error, source: "rbs-host", message: error.description)
            return nil
        }
    }

    /// Waits (state lock held) until no thread is loading `path`, so a rescan never changes a listing under a load.
    func waitForLoad(of path: String) {
        while loading[path] != nil { state.wait() }
    }

    /// Starts `image` (plugin code: never with the state lock held); with `old`, hands over its state
    /// (rbs.state/1) and its services' place.
    func start(_ image: PluginImage, replacing old: PluginImage?) throws(PluginLoadError) {
        let saved = old.flatMap { PluginState.save(from: $0) }
        old?.hostTable.withdrawServices()
        do { try image.start() } catch {
            old?.reregisterServices()
            if image !== old { image.stop(locator: locator) }
            throw PluginLoadError(path: image.path, problem: error)
        }
        if let saved { PluginState.load(saved, into: image) }
    }

    /// Puts a listing in service (state lock held).
    func insert(_ listing: Listing) {
        let replaced = byPath.updateValue(listing, forKey: listing.path) != nil
        pluginOwners[listing.manifest.id] = listing.path
        for operation in listing.manifest.operations { operationOwners[operation.id] = listing.path }
        for service in listing.services { serviceOwners[service] = listing.path }
        // A rescan puts new files in service in file order: the sorted listings grow at the end, not sorted again.
        if !replaced, let last = sortedCache.map({ $0.last?.path }), last.map({ $0 < listing.path }) ?? true {
            sortedCache?.append(listing)
        } else {
            sortedCache = nil
        }
    }

    /// Takes a file's plugin out of service (state lock held); its image is stopped once no module runs on it.
    func withdraw(path: String) {
        guard let listing = byPath.removeValue(forKey: path) else { return }
        if let image = listing.image { retired.append(image) }
        if pluginOwners[listing.manifest.id] == path { pluginOwners[listing.manifest.id] = nil }
        for operation in listing.manifest.operations where operationOwners[operation.id] == path {
            operationOwners[operation.id] = nil
        }
        for service in listing.services where serviceOwners[service] == path { serviceOwners[service] = nil }
        sortedCache = nil
    }

    static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }
}

extension PluginRegistry: ServiceProvider {
    /// Loads the listed plugin that registers service `id`, if one does and it is not loaded yet.
    public func provide(serviceID id: String) {
        guard let path = locked({ serviceOwners[id].flatMap { byPath[$0]?.image == nil ? $0 : nil } }) else { return }
        _ = ensureLoaded(path)
    }
}

extension PluginRegistry {
    /// Lets the next reload replace plugin `id` by a lower version (a rollback the operator asks for by name): once,
    /// for the next downgrade of that id.
    public func allowDowngrade(_ id: String) {
        locked { _ = allowedDowngrades.insert(id) }
    }

    /// Why `manifest` may not replace `old` at `path`: a lower version of the same plugin that was not allowed by
    /// name, or nil. An allowed downgrade uses its permission up.
    /// With nothing in service at `path`, the version last in service on the data folder is the one compared.
    func downgradeRefusal(_ manifest: PluginManifest, replacing old: PluginManifest?) -> PluginProblem? {
        let floor: (version: String, recorded: Bool)
        if let old {
            guard old.id == manifest.id else { return nil }
            floor = (old.version, false)
        } else {
            guard let recorded = versionRecord?.version(of: manifest.id) else { return nil }
            floor = (recorded, true)
        }
        guard SemanticVersion.isLower(manifest.version, than: floor.version) else { return nil }
        return locked {
            if allowedDowngrades.remove(manifest.id) != nil { return nil }
            return floor.recorded
                ? .downgradeFromLastRun(id: manifest.id, from: floor.version, to: manifest.version)
                : .downgrade(id: manifest.id, from: floor.version, to: manifest.version)
        }
    }

    /// Keeps the versions in service in the data folder's record (after a rescan put them there).
    func recordVersionsInService() {
        guard let versionRecord else { return }
        let inService = locked { listings.map { (id: $0.manifest.id, version: $0.manifest.version) } }
        versionRecord.record(inService)
    }
}

/// Orders plugin versions ("1.2.0", "1.2.0-rc.1") as semantic versioning does for what a downgrade is: by the
/// numbers, then a pre-release below its release; build metadata (`+…`) does not count.
enum SemanticVersion {
    static func isLower(_ version: String, than other: String) -> Bool {
        func parts(_ text: String) -> (numbers: [Int], preRelease: String?) {
            let withoutBuild = text.split(separator: "+", maxSplits: 1).first.map(String.init) ?? text
            let pieces = withoutBuild.split(separator: "-", maxSplits: 1).map(String.init)
            let numbers = (pieces.first ?? "").split(separator: ".").map { Int($0) ?? 0 }
            return (numbers, pieces.count > 1 ? pieces[1] : nil)
        }
        let (left, right) = (parts(version), parts(other))
        if left.numbers != right.numbers { return left.numbers.lexicographicallyPrecedes(right.numbers) }
        switch (left.preRelease, right.preRelease) {
        case (nil, _): return false
        case (_?, nil): return true
        case (let a?, let b?): return a.compare(b, options: .numeric) == .orderedAscending
        }
    }
}
