import Foundation

/// One plugin file found in the plugin folder, loaded or not: what `rbs-host plugins` shows.
public struct PluginRecord: Codable, Hashable, Sendable {
    public enum Status: String, Codable, Sendable { case loaded, failed }
    public var path: String
    public var id: String?
    public var version: String?
    /// The ABI version the plugin was built against ("1.0.0"), when it could be read.
    public var abi: String?
    public var status: Status
    public var error: String?

    init(path: String, id: String? = nil, version: String? = nil, abi: String? = nil, status: Status, error: String?) {
        self.path = path
        self.id = id
        self.version = version
        self.abi = abi
        self.status = status
        self.error = error
    }

    private enum CodingKeys: String, CodingKey { case path, id, version, abi, status, error }

    /// Every key is always present (null when unknown), so scripts can rely on the shape.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(path, forKey: .path)
        try container.encode(id, forKey: .id)
        try container.encode(version, forKey: .version)
        try container.encode(abi, forKey: .abi)
        try container.encode(status, forKey: .status)
        try container.encode(error, forKey: .error)
    }
}

/// An operation as listed: known from its plugin's manifest, whether or not the plugin is loaded yet.
public struct OperationListing: Sendable {
    public let descriptor: OperationDescriptor
    public let pluginID: String
    public let pluginVersion: String
    public let path: String
    /// Why the operation cannot be run now (its plugin is quarantined), or nil.
    public var unavailable: String?

    public var id: String { descriptor.id }
}

/// An operation of a loaded plugin, ready to run.
public struct RegisteredOperation: Sendable {
    public let plugin: PluginImage
    public let compiled: CompiledOperation

    public var descriptor: OperationDescriptor { compiled.descriptor }
    public var id: String { descriptor.id }
}

/// What one reload did to one plugin file: the REPL prints it as one line.
public struct ReloadReport: Sendable, CustomStringConvertible {
    public enum Change: String, Sendable { case added, updated, removed, failed }
    public var change: Change
    public var path: String
    public var pluginID: String?
    public var oldVersion: String?
    public var newVersion: String?
    public var milliseconds: Double
    public var error: String?

    public var description: String {
        let took = String(format: "%.1f ms", milliseconds)
        switch change {
        case .added: return "added \(pluginID ?? path) \(newVersion ?? "") (\(path)) in \(took)"
        case .updated: return "reloaded \(pluginID ?? path) \(oldVersion ?? "?") → \(newVersion ?? "?") in \(took)"
        case .removed: return "removed \(pluginID ?? path) \(oldVersion ?? ""): its operations are withdrawn"
        case .failed: return (error ?? path) + (oldVersion.map { " — version \($0) stays in service" } ?? "")
        }
    }
}

/// The plugins the host knows and the operations they offer.
///
/// With a scanner (the host's normal mode), plugin files are listed from a cache of their manifests, a new or
/// changed file is scanned in a child process, and a plugin is loaded into the host only when one of its operations
/// is first run or one of its services is first looked up. Without one, every plugin is loaded at once. A plugin
/// that fails is recorded with its reason; the rest load regardless. All methods may be called from any thread.
public final class PluginRegistry: @unchecked Sendable {
    public let loader: PluginLoader
    public let locator: ServiceLocator
    let scanner: (any PluginScanner)?
    /// Where the manifest cache lives (nil: no cache).
    let cacheDirectory: URL?
    /// Called with (done, total) while a scan of several files runs.
    public var progress: @Sendable (Int, Int) -> Void = { _, _ in }

    /// A plugin in service: its manifest, and its image once loaded.
    private struct Listing {
        var path: String
        var manifest: PluginManifest
        var services: [String]
        var hash: String
        var image: PluginImage?
    }

    private let lock = NSRecursiveLock()
    /// The plugins in service by path, with indexes of who offers which plugin id, operation and service, so a
    /// folder of hundreds of plugins is listed without quadratic searches.
    private var byPath: [String: Listing] = [:]
    private var pluginOwners: [String: String] = [:]
    private var operationOwners: [String: String] = [:]
    private var serviceOwners: [String: String] = [:]
    private var sortedCache: [Listing]?
    /// The plugins in service, in file order.
    private var listings: [Listing] {
        if let sortedCache { return sortedCache }
        let sorted = byPath.values.sorted { $0.path < $1.path }
        sortedCache = sorted
        return sorted
    }
    private var failures: [String: (record: PluginRecord, hash: String?)] = [:]
    private var folderError: PluginRecord?
    /// Versions replaced or removed while modules still ran on them.
    private var retired: [PluginImage] = []

    public init(loader: PluginLoader, locator: ServiceLocator, scanner: (any PluginScanner)? = nil,
                cacheDirectory: URL? = nil) {
        self.loader = loader
        self.locator = locator
        self.scanner = scanner
        self.cacheDirectory = cacheDirectory
        locator.fallback = { [weak self] id in self?.loadProvider(of: id) }
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    // MARK: - What is known

    /// One record per plugin file, in file order.
    public var records: [PluginRecord] {
        locked {
            var all = listings.map { listing in
                let quarantine = listing.image?.quarantine
                return PluginRecord(path: listing.path, id: listing.manifest.id, version: listing.manifest.version,
                                    abi: listing.manifest.abi.description, status: quarantine == nil ? .loaded : .failed,
                                    error: quarantine.map { "\(listing.path): \($0)" })
            } + failures.values.map(\.record)
            all.sort { $0.path < $1.path }
            return (folderError.map { [$0] } ?? []) + all
        }
    }

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

    /// The operation `id`, loading its plugin first if it is only listed. Nil when no plugin offers it, or when its
    /// plugin fails to load now (the failure is recorded).
    public func operation(id: String) -> RegisteredOperation? {
        locked {
            guard let path = operationOwners[id], let image = ensureLoaded(path),
                  let compiled = image.compiled[id] else { return nil }
            return RegisteredOperation(plugin: image, compiled: compiled)
        }
    }

    /// The `*.so` files in `directory`, sorted by name, as paths that start with `directory` as given.
    public static func pluginFiles(in directory: String) throws -> [String] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory)
        let prefix = directory.hasSuffix("/") ? directory : directory + "/"
        return names.filter { $0.hasSuffix(".so") && !$0.hasPrefix(".") }.sorted().map { prefix + $0 }
    }

    // MARK: - Loading

    /// Lists (or, without a scanner, loads) every plugin in `directory`. A folder that cannot be read is one failed
    /// record, not a crash.
    public func loadDirectory(_ directory: String) {
        locked {
            folderError = nil
            do { _ = try Self.pluginFiles(in: directory) } catch {
                folderError = PluginRecord(path: directory, status: .failed,
                                           error: "\(directory): cannot read the plugin folder (\((error as NSError).localizedDescription)) — check --plugins or RBS_PLUGINS")
                return
            }
            rescan(directory)
        }
    }

    /// Brings the registry in line with the plugin folder: lists or loads new files, replaces changed ones (new
    /// runs get the new version; running modules finish on the old one), withdraws removed ones. A new version that
    /// fails leaves the last working one in service. A file that failed is not tried again until it changes.
    /// - Parameter only: just the plugin with this id, file name or path.
    @discardableResult
    public func rescan(_ directory: String, only: String? = nil) -> [ReloadReport] {
        locked {
            var reports: [ReloadReport] = []
            let files = (try? Self.pluginFiles(in: directory)) ?? []
            let present = Set(files)
            for listing in listings where !present.contains(listing.path) && matches(listing.path, listing.manifest.id, only) {
                withdraw(path: listing.path)
                reports.append(ReloadReport(change: .removed, path: listing.path, pluginID: listing.manifest.id,
                                            oldVersion: listing.manifest.version, milliseconds: 0))
            }
            for path in failures.keys where !present.contains(path) { failures[path] = nil }

            var cache = cacheDirectory.map(PluginCache.load(from:))
            // The trust policy is checked on every file at every scan and its refusals are never cached: signing a
            // plugin or trusting its publisher takes effect without touching the plugin.
            let policy = locator.optional(PluginLoadPolicy.self)
            var changed: [(path: String, fingerprint: PluginCache.Fingerprint)] = []
            for path in files {
                let current = byPath[path]
                guard matches(path, current?.manifest.id, only) else { continue }
                let fingerprint: PluginCache.Fingerprint
                var bytes: Data?
                if policy?.verify == nil || policy?.readsBytes == false, let status = PluginCache.status(path),
                   let cached = cache?.entries[path]?.fingerprint, cached.sameStatus(as: status) {
                    fingerprint = cached  // the same file, unchanged: no need to read and hash it again
                } else {
                    guard let read = PluginCache.read(path) else { continue }
                    fingerprint = read.fingerprint
                    bytes = read.bytes
                }
                if let current, current.hash == fingerprint.hash { continue }
                if current == nil, let failure = failures[path], failure.hash == fingerprint.hash { continue }
                if let verify = policy?.verify {
                    do throws(PluginProblem) { try verify(bytes.map { [UInt8]($0) } ?? [], path) } catch {
                        let refusal = PluginLoadError(path: path, problem: error).description
                        if current == nil { failures[path] = (PluginRecord(path: path, status: .failed, error: refusal), nil) }
                        reports.append(ReloadReport(change: .failed, path: path, pluginID: current?.manifest.id,
                                                    oldVersion: current?.manifest.version, milliseconds: 0, error: refusal))
                        continue
                    }
                }
                changed.append((path, fingerprint))
            }
            guard !changed.isEmpty else { return reports }

            // Manifests: from the cache when the fingerprint matches, else from a scan.
            var results: [String: ScanResult] = [:]
            if let scanner {
                var toScan: [String] = []
                for (path, fingerprint) in changed {
                    if let entry = cache?.entries[path], entry.fingerprint == fingerprint {
                        results[path] = entry.result
                    } else {
                        toScan.append(path)
                    }
                }
                if !toScan.isEmpty {
                    let scanned = scanner.scan(toScan, progress: progress)
                    for path in toScan {
                        let result = scanned[path] ?? .failed("\(path): the scanner gave no answer")
                        results[path] = result
                        if let fingerprint = changed.first(where: { $0.path == path })?.fingerprint {
                            cache?.entries[path] = PluginCache.Entry(fingerprint: fingerprint, result: result)
                        }
                    }
                }
                // Written only when something was scanned or a file went away: a warm start writes nothing.
                if let cacheDirectory, var kept = cache,
                   !toScan.isEmpty || kept.entries.keys.contains(where: { !present.contains($0) }) {
                    kept.entries = kept.entries.filter { present.contains($0.key) }
                    kept.save(to: cacheDirectory)
                }
            }

            for (path, fingerprint) in changed {
                let began = ContinuousClock.now
                let old = byPath[path]
                do throws(PluginLoadError) {
                    if let result = results[path] {
                        guard case .plugin(let manifest, let services) = result else {
                            if case .failed(let why) = result { throw PluginLoadError(path: path, problem: .scanCrashed(Self.strip(why, path))) }
                            continue
                        }
                        if let check = policy?.checkManifest {
                            do throws(PluginProblem) { try check(manifest, path, fingerprint.hash) } catch {
                                throw PluginLoadError(path: path, problem: error)
                            }
                        }
                        try admit(manifest, path: path, replacing: old?.path)
                        if let old, old.image != nil {
                            // The old version is in use: load the new one now, so new runs get it.
                            try replaceLoaded(path: path, manifest: manifest, services: services, hash: fingerprint.hash)
                        } else {
                            if old != nil { withdraw(path: path) }
                            insert(Listing(path: path, manifest: manifest, services: services, hash: fingerprint.hash))
                        }
                    } else {
                        // No scanner: load into this process now.
                        let image = try loader.load(path: path)
                        try admit(image.manifest, path: path, replacing: old?.path, image: image)
                        try start(image, replacing: old?.image)
                        if old != nil { withdraw(path: path) }
                        insert(Listing(path: path, manifest: image.manifest, services: image.hostTable.registered.map(\.id),
                                       hash: image.contentHash, image: image))
                    }
                    failures[path] = nil
                    reports.append(ReloadReport(change: old == nil ? .added : .updated, path: path,
                                                pluginID: byPath[path]?.manifest.id,
                                                oldVersion: old?.manifest.version,
                                                newVersion: byPath[path]?.manifest.version,
                                                milliseconds: Self.milliseconds(began.duration(to: .now))))
                } catch {
                    if old == nil {
                        failures[path] = (PluginRecord(path: path, status: .failed, error: error.description), fingerprint.hash)
                    }
                    reports.append(ReloadReport(change: .failed, path: path, pluginID: old?.manifest.id,
                                                oldVersion: old?.manifest.version,
                                                milliseconds: Self.milliseconds(began.duration(to: .now)),
                                                error: error.description))
                }
            }
            collectRetired()
            return reports
        }
    }

    /// Loads and registers one file at once (tests and tools): the same checks as a folder load.
    @discardableResult
    public func load(path: String) -> PluginImage? {
        locked {
            let directory = (path as NSString).deletingLastPathComponent
            let folder = directory.isEmpty ? "." : directory
            rescan(folder, only: path)
            // The registry names files as the folder listing does ("./x.so" for "x.so").
            let listed = byPath[path] != nil ? path
                : (folder.hasSuffix("/") ? folder : folder + "/") + (path as NSString).lastPathComponent
            guard byPath[listed] != nil else { return nil }
            return ensureLoaded(listed)
        }
    }

    /// Stops replaced or removed versions that no running module uses any more (C images are unloaded then).
    public func collectRetired() {
        locked {
            let idle = retired.filter { $0.liveModules == 0 }
            retired.removeAll { $0.liveModules == 0 }
            for image in idle { image.stop(locator: locator) }
        }
    }

    /// Stops every plugin (deinit; C images are closed).
    public func unloadAll() {
        locked {
            for listing in listings.reversed() { listing.image?.stop(locator: locator) }
            for path in Array(byPath.keys) { withdraw(path: path) }
            retired.removeAll { $0.liveModules == 0 }
            collectRetired()
        }
    }

    // MARK: - Internals

    /// Checks a manifest's ids against the plugins in service (other than the file it replaces).
    private func admit(_ manifest: PluginManifest, path: String, replacing: String?,
                       image: PluginImage? = nil) throws(PluginLoadError) {
        func fail(_ problem: PluginProblem) -> PluginLoadError {
            if let image, image !== replacing.flatMap({ byPath[$0] })?.image {
                image.stop(locator: locator)
            }
            return PluginLoadError(path: path, problem: problem)
        }
        if let other = pluginOwners[manifest.id], other != replacing {
            throw fail(.duplicatePlugin(id: manifest.id, otherPath: other))
        }
        for operation in manifest.operations {
            if let other = operationOwners[operation.id], other != replacing {
                throw fail(.duplicateOperation(id: operation.id, otherPath: other))
            }
        }
    }

    /// Starts `image`; with `old`, hands over its state (rbs.state/1) and its services' place.
    private func start(_ image: PluginImage, replacing old: PluginImage?) throws(PluginLoadError) {
        let state = old.flatMap { PluginState.save(from: $0) }
        old?.hostTable.withdrawServices()
        do { try image.start() } catch {
            old?.reregisterServices()
            if image !== old { image.stop(locator: locator) }
            throw PluginLoadError(path: image.path, problem: error)
        }
        if let state { PluginState.load(state, into: image) }
    }

    /// Loads the new version of a plugin whose old version is loaded, and puts it in service.
    private func replaceLoaded(path: String, manifest: PluginManifest, services: [String], hash: String) throws(PluginLoadError) {
        let old = byPath[path]?.image
        let image = try loader.load(path: path, pluginID: manifest.id)
        try start(image, replacing: old)
        withdraw(path: path)
        insert(Listing(path: path, manifest: image.manifest, services: services, hash: image.contentHash, image: image))
    }

    /// Loads a listed plugin into the host. On failure the plugin leaves service with its reason recorded.
    private func ensureLoaded(_ path: String) -> PluginImage? {
        guard let listing = byPath[path] else { return nil }
        if let image = listing.image { return image }
        do {
            let image = try loader.load(path: listing.path, pluginID: listing.manifest.id)
            try start(image, replacing: nil)
            byPath[path]?.image = image
            byPath[path]?.manifest = image.manifest
            sortedCache = nil
            return image
        } catch {
            withdraw(path: path)
            failures[listing.path] = (PluginRecord(path: listing.path, status: .failed, error: error.description), listing.hash)
            locator.optional((any HostLog).self)?.write(level: .error, source: "rbs-host", message: error.description)
            return nil
        }
    }

    /// The table of service `id`, loading the listed plugin that provides it.
    private func loadProvider(of id: String) -> UnsafeRawPointer? {
        locked {
            guard let path = serviceOwners[id], byPath[path]?.image == nil, ensureLoaded(path) != nil else { return nil }
            return locator.table(id: id, fallback: false)
        }
    }

    private func insert(_ listing: Listing) {
        byPath[listing.path] = listing
        pluginOwners[listing.manifest.id] = listing.path
        for operation in listing.manifest.operations { operationOwners[operation.id] = listing.path }
        for service in listing.services { serviceOwners[service] = listing.path }
        sortedCache = nil
    }

    /// Takes a file's plugin out of service; its image is stopped once no module runs on it.
    private func withdraw(path: String) {
        guard let listing = byPath.removeValue(forKey: path) else { return }
        if let image = listing.image { retired.append(image) }
        if pluginOwners[listing.manifest.id] == path { pluginOwners[listing.manifest.id] = nil }
        for operation in listing.manifest.operations where operationOwners[operation.id] == path {
            operationOwners[operation.id] = nil
        }
        for service in listing.services where serviceOwners[service] == path { serviceOwners[service] = nil }
        sortedCache = nil
    }

    private func matches(_ path: String, _ id: String?, _ only: String?) -> Bool {
        guard let only else { return true }
        return id == only || path == only || path.hasSuffix("/" + only)
    }

    /// A scan's message already names the file; the record adds it again.
    private static func strip(_ message: String, _ path: String) -> String {
        message.hasPrefix(path + ": ") ? String(message.dropFirst(path.count + 2)) : message
    }

    static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }
}
