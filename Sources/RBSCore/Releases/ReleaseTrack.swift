import Foundation
import RBSLedger

/// A host's side of staged rollouts (issue #32 item 3): it follows the ledger's `plugin_releases` (every few seconds
/// in a REPL or `serve`, once at the start of a one-shot command), loads each rolling version from its signed
/// package — verified again here, by the same checks `plugin install` makes — and tells ``Runtime`` which version a
/// party gets: the rolling one when the party's stable cohort falls inside its share, else the one in service from
/// the plugin folder. A form already open finishes on the version it started with, whatever happens to the rollout
/// meanwhile (its module holds that version's image). Each sync first adds what this host's runs did
/// (``PluginVersionCounters``) to the ledger, which rolls back a version whose worker faults pass its threshold.
public final class ReleaseTrack: @unchecked Sendable {
    /// A rolling version this host serves, loaded from its package.
    struct Served {
        var release: PluginReleases.Release
        var image: PluginImage
    }

    private let releases: PluginReleases
    private let loader: PluginLoader
    private let locator: ServiceLocator
    /// Where the rolling versions' objects and signatures are written to be loaded (`DATA/releases`, private).
    private let folder: URL
    private let verify: @Sendable ([UInt8], String) throws(PackageError) -> PluginPackager.Verified
    private let counters: PluginVersionCounters
    private let lock = NSLock()
    private var served: [String: Served] = [:]
    /// Versions that could not be served here, with why: said once, tried again only when their package changes.
    private var refused: [PluginVersion: String] = [:]
    /// Versions no longer offered whose images still run open forms.
    private var retired: [PluginImage] = []
    private var follower: Thread?
    private let stopping = NSCondition()
    private var stopRequested = false

    /// - Parameter verify: the package check of `plugin install` against this host's trust (``PluginPackager/verify(_:path:policy:)``).
    public init(releases: PluginReleases, loader: PluginLoader, locator: ServiceLocator, folder: URL,
                counters: PluginVersionCounters = .shared,
                verify: @escaping @Sendable ([UInt8], String) throws(PackageError) -> PluginPackager.Verified) {
        self.releases = releases
        self.loader = loader
        self.locator = locator
        self.folder = folder
        self.counters = counters
        self.verify = verify
    }

    private var log: (any HostLog)? { locator.optional((any HostLog).self) }

    /// The share a party's cohort is in for plugin `pluginID`: 0…99, the same on every host and for every version,
    /// so a party in the first 10% stays in the first 50%.
    public static func cohort(of party: String, pluginID: String) -> Int {
        let digest = ContentHash.sha256(Array("rbs-rollout\u{0}\(pluginID)\u{0}\(party)".utf8))
        let value = digest.prefix(8).reduce(UInt64(0)) { $0 << 4 | UInt64(Int($1.hexDigitValue ?? 0)) }
        return Int(value % 100)
    }

    /// The rolling version of `pluginID` that `party` gets, or nil: the plugin folder's version.
    func image(for pluginID: String, party: String) -> PluginImage? {
        lock.withLock {
            guard let served = served[pluginID], served.release.state == .rolling,
                  Self.cohort(of: party, pluginID: pluginID) < served.release.percent else { return nil }
            return served.image
        }
    }

    /// What the last failed sync said: a sync every few seconds that fails the same way (a stopped ledger) says it
    /// once, not over every line the person types.
    private var lastFailure: String?

    private func failed(_ message: String) {
        guard lock.withLock({ () -> Bool in
            guard lastFailure != message else { return false }
            lastFailure = message
            return true
        }) else { return }
        log?.write(level: .warning, source: "rbs-host", message: message)
    }

    /// The versions served now, by plugin id.
    public var rolling: [String: PluginReleases.Release] { lock.withLock { served.mapValues(\.release) } }

    /// Adds this host's counts to the ledger, reads the releases and serves what is rolling. Errors are logged and
    /// the next sync tries again; counts that could not be added are kept for it.
    public func sync() {
        let deltas = counters.take()
        do {
            for release in try releases.add(deltas) {
                log?.write(level: .warning, source: "rbs-host", message: "plugin \(release.pluginID) \(release.version): \(release.reason ?? "rolled back")")
            }
        } catch {
            counters.giveBack(deltas)
            failed("the rollout counts could not be added to \(releases.place): \(error) — trying again at the next sync")
        }
        let current: [PluginReleases.Release]
        do { current = try releases.releases() } catch {
            failed("the plugin releases could not be read from \(releases.place): \(error) — the versions already being "
                   + "rolled out are still served; tried again every few seconds, said again only when the reason changes")
            return
        }
        if lock.withLock({ lastFailure.take() }) != nil {
            log?.write(level: .warning, source: "rbs-host", message: "the plugin releases are read from \(releases.place) again")
        }
        let rolling = Dictionary(current.filter { $0.state == .rolling }.map { ($0.pluginID, $0) }, uniquingKeysWith: { first, _ in first })
        // Versions no longer rolling stop being offered at once; their images stop when their last form closes.
        lock.withLock {
            for (id, old) in served where rolling[id]?.version != old.release.version {
                served[id] = nil
                retired.append(old.image)
            }
            for (id, release) in rolling { served[id]?.release = release }
        }
        for (id, release) in rolling.sorted(by: { $0.key < $1.key }) where lock.withLock({ served[id] == nil }) {
            serve(release)
        }
        collectRetired()
    }

    /// Loads `release` from its package, or says once why it cannot be served here.
    private func serve(_ release: PluginReleases.Release) {
        let version = PluginVersion(release.pluginID, release.version)
        if let known = lock.withLock({ refused[version] }), known == release.packageSHA256 { return }
        let name = "release \(release.pluginID) \(release.version)"
        do {
            guard let package = try releases.package(of: release.pluginID, version: release.version) else { return }
            let verified = try verify([UInt8](package), name)
            guard verified.manifest.id == release.pluginID, verified.manifest.version == release.version else {
                throw ReleaseError.mismatch(id: verified.manifest.id, version: verified.manifest.version)
            }
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            let object = folder.appendingPathComponent("\(release.pluginID)-\(release.version).so")
            // Private, as every file of the data folder.
            for (bytes, path) in [(Data(verified.object), object.path), (Data(verified.objectSignature.text.utf8), object.path + ".sig")] {
                try bytes.write(to: URL(fileURLWithPath: path), options: .atomic)
                try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
            }
            let image = try loader.load(path: object.path, pluginID: release.pluginID)
            try image.start()
            lock.withLock { served[release.pluginID] = Served(release: release, image: image) }
            log?.write(level: .info, source: "rbs-host",
                       message: "plugin \(release.pluginID) \(release.version) is rolling out to \(release.percent)% of customers")
        } catch {
            lock.withLock { refused[version] = release.packageSHA256 }
            log?.write(level: .error, source: "rbs-host", message: "\(name) cannot be served on this host: \(error)")
        }
    }

    /// Stops the images of versions no longer offered once no form runs on them.
    private func collectRetired() {
        let idle: [PluginImage] = lock.withLock {
            let idle = retired.filter { $0.liveModules == 0 }
            retired.removeAll { $0.liveModules == 0 }
            return idle
        }
        for image in idle { image.stop(locator: locator) }
    }

    /// Syncs every `interval` on a thread of its own until ``stop()``.
    public func follow(every interval: Duration) {
        let thread = Thread { [weak self] in
            while let self, !self.waitForStop(interval) { self.sync() }
        }
        thread.name = "rbs-releases"
        lock.withLock { follower = thread }
        thread.start()
    }

    private func waitForStop(_ interval: Duration) -> Bool {
        stopping.lock()
        defer { stopping.unlock() }
        if !stopRequested { _ = stopping.wait(until: Date().addingTimeInterval(PluginRegistry.milliseconds(interval) / 1000)) }
        return stopRequested
    }

    nonisolated(unsafe) private static var tracks: [ReleaseTrack] = []
    private static let tracksLock = NSLock()

    /// Remembers `track` for ``stopAll()``.
    public static func register(_ track: ReleaseTrack) { tracksLock.withLock { tracks.append(track) } }

    /// Stops every registered track (a command has finished): what its runs did is added to the counts.
    public static func stopAll() {
        for track in tracksLock.withLock({ defer { tracks = [] }; return tracks }) { track.stop() }
    }

    /// Stops following; adds what was counted since the last sync.
    public func stop() {
        stopping.lock()
        stopRequested = true
        stopping.broadcast()
        stopping.unlock()
        _ = try? releases.add(counters.take())
    }
}

/// Why a release could not be served on this host (beside the package's own refusals).
enum ReleaseError: Error, CustomStringConvertible {
    /// The log line names the release it was published as; this says what the package is instead.
    case mismatch(id: String, version: String)

    var description: String {
        switch self {
        case .mismatch(let id, let version):
            "its package is of \(id) \(version), not of the release it was published as — publish it again"
        }
    }
}

/// Counting what runs do, by plugin version, for `plugin rollout status` and the automatic rollback.
enum VersionCount {
    static func version(of image: PluginImage) -> PluginVersion { PluginVersion(image.manifest.id, image.manifest.version) }
    static func version(of document: Document) -> PluginVersion { PluginVersion(document.plugin, document.pluginVersion) }

    /// What the core decided about a signed document: a post, or a refusal (journaled as a rejection).
    static func record(_ outcome: Outcome, of document: Document, in counters: PluginVersionCounters = .shared) {
        switch outcome {
        case .posted, .acknowledged: counters.posted(version(of: document))
        case .rejected: counters.refused(version(of: document))
        case .awaiting: break
        }
    }
}
