import Foundation

/// A rescan, in the order it runs: list the folder, withdraw what went away, fingerprint and trust what is new or
/// changed, read manifests (cache or scan), settle contested ids, put the rest in service. Each phase takes the
/// state lock only to read or update the registry; plugin code (a scan, `init`) runs without it.
extension PluginRegistry {
    /// Brings the registry in line with the plugin folder: lists or loads new files, replaces changed ones (new
    /// runs get the new version; running modules finish on the old one), withdraws removed ones. A new version that
    /// fails leaves the last working one in service. A file that failed is not tried again until it changes.
    /// - Parameter only: just the plugin with this id, file name or path.
    @discardableResult
    public func rescan(_ directory: String, only: String? = nil) -> [ReloadReport] {
        let reports = rescanning.withLock { rescanned(directory, only: only) }
        noteRefusedReplacements(reports)
        return reports
    }

    /// Remembers, per file, a new version refused while the old one stays in service (``PluginRecord/replacementRefused``),
    /// and forgets it once the file is in service again, replaced or gone.
    private func noteRefusedReplacements(_ reports: [ReloadReport]) {
        guard !reports.isEmpty else { return }
        locked {
            for report in reports {
                if report.change == .failed, report.oldVersion != nil, let problem = report.problem {
                    refusedReplacements[report.path] = problem
                } else if report.change != .failed, !refusedReplacements.isEmpty {
                    refusedReplacements[report.path] = nil
                }
            }
        }
    }

    private func rescanned(_ directory: String, only: String?) -> [ReloadReport] {
        let folder = list(directory)
        var reports = withdrawRemoved(folder, only: only)
        var cache = cacheDirectory.map(PluginCache.load(from:))
        let changed = changedFiles(folder, only: only, cache: cache, reports: &reports)
        guard !changed.isEmpty else { return reports }
        let found = manifests(of: changed, in: folder, cache: &cache)
        reports += putInService(changed, found, lastInService: cache?.inService ?? [])
        if let cacheDirectory, var kept = cache {
            // Compared key by key: a warm start finds them the same and builds no set.
            let inService: Set<String>? = locked {
                let same = byPath.count == kept.inService.count && byPath.keys.allSatisfy(kept.inService.contains)
                return same ? nil : Set(byPath.keys)
            }
            if let inService {
                kept.inService = inService
                kept.save(to: cacheDirectory)
            }
        }
        recordVersionsInService()
        collectRetired()
        return reports
    }

    /// What the folder holds: the plugin files to consider, and the set of them, made when first asked for (a first
    /// warm start never asks: nothing was in service, and the cache has no entry for a file that went away).
    final class FolderListing {
        let files: [String]
        private(set) lazy var present = Set(files)
        /// How many of `files` have an entry in the cache, when every file was looked up there.
        var filesInCache: Int?

        init(files: [String] = []) {
            self.files = files
        }
    }

    /// The `*.so` files in `directory`, sorted by name, as paths that start with `directory` as given.
    ///
    /// Read with `readdir`, names kept as bytes: FileManager made a `String` of every name and the sort compared
    /// them as Unicode text, a tenth of a warm `list`. An ASCII name is filtered and sorted by its bytes, which is
    /// the order `String` gives it; a folder with any other name is sorted as `String`s, as before.
    public static func pluginFiles(in directory: String) throws -> [String] {
        let prefix = directory.hasSuffix("/") ? directory : directory + "/"
        guard let names = PluginFolderNames(directory) else {
            // FileManager says why, in the words the folder's failed record has always quoted.
            let names = try FileManager.default.contentsOfDirectory(atPath: directory)
            return names.filter(Self.isPluginName).sorted().map { prefix + $0 }
        }
        guard names.other.isEmpty else {
            return (names.ascii + names.other.filter(Self.isPluginName)).sorted().map { prefix + $0 }
        }
        return names.sortedASCII(after: prefix)
    }

    /// Whether a file name is a plugin's: `*.so`, not hidden (the rule ``PluginFolderNames`` applies to bytes).
    static func isPluginName(_ name: String) -> Bool {
        var name = name
        return name.withUTF8(PluginFolderNames.isPluginName)
    }

    // MARK: - Phase 1: list the folder

    /// Reads the folder and checks it against the trust policy. A folder that cannot be read or is refused is one
    /// failed record, and nothing in it is in service.
    private func list(_ directory: String) -> FolderListing {
        let files: [String]
        var problem: PluginLoadError?
        do {
            files = try Self.pluginFiles(in: directory)
            if let check = loader.policy?.checkFolder {
                do throws(PluginProblem) { try check(directory) } catch { problem = PluginLoadError(path: directory, problem: error) }
            }
        } catch {
            files = []
            problem = PluginLoadError(path: directory, problem: .unreadableFolder((error as NSError).localizedDescription))
        }
        locked { folderError = problem.map { PluginRecord(failed: $0) } }
        guard problem == nil else { return FolderListing() }
        return FolderListing(files: files)
    }

    /// Withdraws the plugins whose files went away; forgets failures of files that went away.
    private func withdrawRemoved(_ folder: FolderListing, only: String?) -> [ReloadReport] {
        locked {
            var reports: [ReloadReport] = []
            for listing in listings where !folder.present.contains(listing.path) && matches(listing.path, listing.manifest.id, only) {
                waitForLoad(of: listing.path)
                withdraw(path: listing.path)
                reports.append(ReloadReport(change: .removed, path: listing.path, pluginID: listing.manifest.id,
                                            oldVersion: listing.manifest.version, milliseconds: 0))
            }
            for path in failures.keys where !folder.present.contains(path) { failures[path] = nil }
            return reports
        }
    }

    // MARK: - Phase 2: fingerprint and trust

    /// A file that is new or changed since the registry last saw it, and passed the trust policy.
    struct Candidate {
        var path: String
        var fingerprint: PluginCache.Fingerprint
        /// What the cache says of the file when its entry has this fingerprint.
        var cached: ScanResult?
    }

    /// The files that are new or changed and pass the trust policy. The policy is checked on every file at every
    /// scan and its refusals are never cached: signing a plugin or trusting its publisher takes effect without
    /// touching the plugin. A file that is not a readable regular file is refused here with what it is.
    private func changedFiles(_ folder: FolderListing, only: String?, cache: PluginCache?,
                              reports: inout [ReloadReport]) -> [Candidate] {
        let policy = loader.policy
        // A policy that reads no bytes checks an unchanged file's permissions on the status read for its
        // fingerprint; its folder passed `checkFolder` when the folder was listed.
        let checkStatus = policy?.readsBytes == false && policy?.checkFolder != nil ? policy?.checkFileStatus : nil
        var changed: [Candidate] = []
        var filesInCache = 0
        defer { if only == nil { folder.filesInCache = filesInCache } }
        for path in folder.files {
            let (current, failure) = locked { (byPath[path], failures[path]) }
            guard matches(path, current?.manifest.id, only) else { continue }
            func refuse(_ problem: PluginProblem, until hash: String?) {
                let refusal = PluginLoadError(path: path, problem: problem)
                if current == nil { locked { failures[path] = (PluginRecord(failed: refusal), hash) } }
                reports.append(ReloadReport(change: .failed, path: path, pluginID: current?.manifest.id,
                                            oldVersion: current?.manifest.version, milliseconds: 0,
                                            error: refusal.description, problem: refusal))
            }
            let fingerprint: PluginCache.Fingerprint
            var bytes: Data?
            var permissions: (mode: UInt32, owner: UInt32)?
            let entry = cache?.entries[path]
            if entry != nil { filesInCache += 1 }
            if policy?.verify == nil || policy?.readsBytes == false, let status = PluginCache.fileStatus(path),
               let cached = entry?.fingerprint, cached.sameStatus(as: status.fingerprint) {
                fingerprint = cached  // the same file, unchanged: no need to read and hash it again
                permissions = (status.mode, status.owner)
            } else {
                switch PluginCache.read(path) {
                case .success(let read):
                    fingerprint = read.fingerprint
                    bytes = read.bytes
                case .failure(let problem):
                    // Reported again at every rescan that finds it, like a trust refusal, until it is fixed.
                    if failure?.record.error != PluginLoadError(path: path, problem: problem).description || current != nil {
                        refuse(problem, until: nil)
                    }
                    continue
                }
            }
            if let current, current.hash == fingerprint.hash { continue }
            if current == nil, let failure, failure.hash == fingerprint.hash { continue }
            if let verify = policy?.verify {
                do throws(PluginProblem) {
                    if let checkStatus, let permissions {
                        try checkStatus(path, permissions.mode, permissions.owner)
                    } else {
                        try verify(bytes.map { [UInt8]($0) } ?? [], path)
                    }
                } catch {
                    refuse(error, until: nil)
                    continue
                }
            }
            changed.append(Candidate(path: path, fingerprint: fingerprint,
                                     cached: entry.flatMap { $0.fingerprint == fingerprint ? $0.result : nil }))
        }
        return changed
    }

    // MARK: - Phase 3: manifests

    /// What a candidate turned out to be: a manifest (scanned or cached) with its services, a loaded but not yet
    /// started image (no scanner), or why not.
    enum Found {
        case listed(PluginManifest, services: [String])
        case opened(PluginImage)
        case failed(PluginLoadError)

        var manifest: PluginManifest? {
            switch self {
            case .listed(let manifest, _): manifest
            case .opened(let image): image.manifest
            case .failed: nil
            }
        }
    }

    /// Manifests from the cache when the fingerprint matches, else from a scan; without a scanner, each file is
    /// opened in this process (not started). The cache is written only when something was scanned or a file went
    /// away: a warm start writes nothing.
    /// - Returns: what each of `changed` is, in the same order.
    private func manifests(of changed: [Candidate], in folder: FolderListing, cache: inout PluginCache?) -> [Found] {
        guard let scanner else {
            return changed.map { candidate in
                do throws(PluginLoadError) { return .opened(try loader.load(path: candidate.path)) } catch {
                    return .failed(error)
                }
            }
        }
        var results = changed.map(\.cached)
        let toScan = changed.indices.filter { results[$0] == nil }
        if !toScan.isEmpty {
            let scanned = scanner.scan(toScan.map { changed[$0].path }, progress: progress)
            for index in toScan {
                let candidate = changed[index]
                let result = scanned[candidate.path] ?? .failed(.noAnswer)
                results[index] = result
                cache?.entries[candidate.path] = PluginCache.Entry(fingerprint: candidate.fingerprint, result: result)
            }
        }
        if let cacheDirectory, var kept = cache,
           !toScan.isEmpty || hasEntriesOfFilesGone(kept, folder) {
            kept.entries = kept.entries.filter { folder.present.contains($0.key) }
            kept.save(to: cacheDirectory)
            cache = kept
        }
        let policy = loader.policy
        return zip(changed, results).map { candidate, result -> Found in
            let path = candidate.path
            switch result {
            case .plugin(let manifest, let services)?:
                if let check = policy?.checkManifest {
                    do throws(PluginProblem) { try check(manifest, path, candidate.fingerprint.hash) } catch {
                        return .failed(PluginLoadError(path: path, problem: error))
                    }
                }
                return .listed(manifest, services: services)
            case .failed(.refused(let problem))?:
                return .failed(PluginLoadError(path: path, problem: problem))
            case .failed(let failure)?:
                return .failed(PluginLoadError(path: path, problem: .scanFailed(failure)))
            case nil:
                return .failed(PluginLoadError(path: path, problem: .scanFailed(.noAnswer)))
            }
        }
    }

    /// Whether `cache` has an entry for a file that is not in the folder. When every file was looked up in the cache
    /// and as many had an entry as it has, none is (the paths are distinct): no set of the folder's files is made.
    private func hasEntriesOfFilesGone(_ cache: PluginCache, _ folder: FolderListing) -> Bool {
        if folder.filesInCache == cache.entries.count { return false }
        return cache.entries.keys.contains { !folder.present.contains($0) }
    }

    // MARK: - Phase 4: admission and service

    /// Settles ids several new files claim at once, checks the rest against the plugins in service, and puts the
    /// admitted ones in service (loading at once what has no scanner, or whose old version is loaded).
    /// - Parameter found: what each of `changed` is, in the same order.
    private func putInService(_ changed: [Candidate], _ found: [Found],
                              lastInService: Set<String>) -> [ReloadReport] {
        var reports: [ReloadReport] = []
        reports.reserveCapacity(changed.count)
        let contested = contestedClaims(changed, found, lastInService: lastInService)
        locked {
            byPath.reserveCapacity(byPath.count + changed.count)
            pluginOwners.reserveCapacity(pluginOwners.count + changed.count)
            operationOwners.reserveCapacity(operationOwners.count + changed.count)
        }
        for (candidate, found) in zip(changed, found) {
            let path = candidate.path
            let began = ContinuousClock.now
            func failed(_ error: PluginLoadError, old: Listing?) -> ReloadReport {
                ReloadReport(change: .failed, path: path, pluginID: old?.manifest.id, oldVersion: old?.manifest.version,
                             milliseconds: Self.milliseconds(began.duration(to: .now)), error: error.description,
                             problem: error)
            }
            // A lower version of the plugin in service is refused unless the operator allowed it by name; the
            // version in service stays.
            // At a start (nothing in service at the path), the version last in service on the data folder counts.
            if let manifest = found.manifest,
               let refusal = downgradeRefusal(manifest, replacing: locked({ byPath[path]?.manifest })) {
                if case .opened(let image) = found { image.stop(locator: locator) }
                let error = PluginLoadError(path: path, problem: refusal)
                let old = locked { byPath[path] }
                // Listed as failed, and tried again at the next rescan (an operator's permission may come by then).
                if old == nil { locked { failures[path] = (PluginRecord(failed: error), nil) } }
                reports.append(failed(error, old: old))
                continue
            }
            // A manifest (cached or scanned) whose file has no loaded version: admitted and put in service under one
            // hold of the lock, as a warm start lists every plugin. A loaded old version takes the way below.
            if case .listed(let manifest, let services) = found, contested.isEmpty || contested[path] == nil {
                let listed: (old: Listing?, clash: PluginLoadError?)? = locked {
                    waitForLoad(of: path)
                    let old = byPath[path]
                    guard old?.image == nil else { return nil }
                    if let clash = clash(manifest, path: path) {
                        let error = PluginLoadError(path: path, problem: clash)
                        if old == nil { failures[path] = (PluginRecord(failed: error), candidate.fingerprint.hash) }
                        return (old, error)
                    }
                    if old != nil { withdraw(path: path) }
                    insert(Listing(path: path, manifest: manifest, services: services, hash: candidate.fingerprint.hash))
                    if !failures.isEmpty { failures[path] = nil }  // (removing from an empty dictionary still hashes)
                    return (old, nil)
                }
                if let (old, clash) = listed {
                    reports.append(clash.map { failed($0, old: old) }
                        ?? ReloadReport(change: old == nil ? .added : .updated, path: path, pluginID: manifest.id,
                                        oldVersion: old?.manifest.version, newVersion: manifest.version,
                                        milliseconds: Self.milliseconds(began.duration(to: .now))))
                    continue
                }
            }
            let old: Listing? = locked {
                waitForLoad(of: path)
                return byPath[path]
            }
            var opened: PluginImage?
            do throws(PluginLoadError) {
                switch found {
                case .failed(let error): throw error
                case .opened(let image):
                    opened = image
                    if let problem = contested[path] { throw PluginLoadError(path: path, problem: problem) }
                    try admit(image.manifest, path: path)
                    try start(image, replacing: old?.image)
                    opened = nil
                    locked {
                        if old != nil { withdraw(path: path) }
                        insert(Listing(path: path, manifest: image.manifest, services: image.hostTable.registered.map(\.id),
                                       hash: image.contentHash, image: image))
                    }
                case .listed(let manifest, let services):
                    // Only a contested id or a loaded old version comes here (the rest was listed above). The old
                    // version is in use: load the new one now, so new runs get it.
                    if let problem = contested[path] { throw PluginLoadError(path: path, problem: problem) }
                    try admit(manifest, path: path)
                    let image = try loader.load(path: path, pluginID: manifest.id)
                    opened = image
                    try start(image, replacing: old?.image)
                    opened = nil
                    locked {
                        if old != nil { withdraw(path: path) }
                        insert(Listing(path: path, manifest: image.manifest, services: services,
                                       hash: image.contentHash, image: image))
                    }
                }
                let now = locked { byPath[path] }
                locked { failures[path] = nil }
                reports.append(ReloadReport(change: old == nil ? .added : .updated, path: path,
                                            pluginID: now?.manifest.id, oldVersion: old?.manifest.version,
                                            newVersion: now?.manifest.version,
                                            milliseconds: Self.milliseconds(began.duration(to: .now))))
            } catch {
                // An image opened for this file and not put in service is closed (unless it is the one in service).
                if let opened, opened !== old?.image { opened.stop(locator: locator) }
                if old == nil {
                    locked { failures[path] = (PluginRecord(failed: error), candidate.fingerprint.hash) }
                }
                reports.append(failed(error, old: old))
            }
        }
        return reports
    }

    /// Ids (plugin or operation) that more than one of the new or changed files claims, where no plugin in service
    /// holds them: the file that was in service at the last start keeps them (the cache remembers), else the file
    /// that has been in the folder longest (status change time: a file dropped in later cannot look older); every
    /// other claimant is refused, naming the one that keeps it. So a newcomer never takes an id away by sorting first.
    private func contestedClaims(_ changed: [Candidate], _ found: [Found],
                                 lastInService: Set<String>) -> [String: PluginProblem] {
        // Most often nobody claims anything twice: find that out with two sets before mapping every claim.
        var pluginIDs: Set<String> = [], operationIDs: Set<String> = []
        pluginIDs.reserveCapacity(changed.count)
        operationIDs.reserveCapacity(changed.count)
        let contested = found.contains { found in
            guard let manifest = found.manifest else { return false }
            return !pluginIDs.insert(manifest.id).inserted
                || manifest.operations.contains { !operationIDs.insert($0.id).inserted }
        }
        guard contested else { return [:] }
        var claims: [String: [String]] = [:]  // "plugin:ID" / "operation:ID" → paths
        for (candidate, found) in zip(changed, found) {
            guard let manifest = found.manifest else { continue }
            claims["plugin:" + manifest.id, default: []].append(candidate.path)
            for operation in manifest.operations { claims["operation:" + operation.id, default: []].append(candidate.path) }
        }
        let changedAt = Dictionary(uniqueKeysWithValues: changed.map { ($0.path, $0.fingerprint.changed) })
        var refused: [String: PluginProblem] = [:]
        for (key, paths) in claims.filter({ $0.value.count > 1 }).sorted(by: { $0.key < $1.key }) {
            let isPlugin = key.hasPrefix("plugin:")
            let id = String(key.drop { $0 != ":" }.dropFirst())
            // A file in service that already holds the id (its update) keeps it; admission refuses the others.
            let holder = locked { isPlugin ? pluginOwners[id] : operationOwners[id] }
            if let holder, paths.contains(holder) { continue }
            let remembered = paths.filter(lastInService.contains)
            let oldest = paths.min { (changedAt[$0] ?? 0, $0) < (changedAt[$1] ?? 0, $1) }
            guard let keeper = remembered.count == 1 ? remembered[0] : oldest else { continue }
            for path in paths where path != keeper && refused[path] == nil {
                refused[path] = isPlugin ? .duplicatePlugin(id: id, otherPath: keeper)
                    : .duplicateOperation(id: id, otherPath: keeper)
            }
        }
        return refused
    }

    /// Checks a manifest's ids against the plugins in service (other than the file it replaces).
    private func admit(_ manifest: PluginManifest, path: String) throws(PluginLoadError) {
        if let clash = locked({ clash(manifest, path: path) }) { throw PluginLoadError(path: path, problem: clash) }
    }

    /// The first id of `manifest` that a plugin in service (other than the file it replaces) holds (state lock held).
    private func clash(_ manifest: PluginManifest, path: String) -> PluginProblem? {
        if let other = pluginOwners[manifest.id], other != path {
            return .duplicatePlugin(id: manifest.id, otherPath: other)
        }
        for operation in manifest.operations {
            if let other = operationOwners[operation.id], other != path {
                return .duplicateOperation(id: operation.id, otherPath: other)
            }
        }
        return nil
    }

    private func matches(_ path: String, _ id: String?, _ only: String?) -> Bool {
        guard let only else { return true }
        return id == only || path == only || path.hasSuffix("/" + only)
    }
}
