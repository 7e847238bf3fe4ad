import Foundation
import RBSMoney

/// Staged rollouts of plugin versions (issue #32 item 3), kept in the ledger's database (`plugin_releases`, schema
/// step `v20-plugin-releases`) so that every host sharing a PostgreSQL database serves the same version to the same
/// customer: `plugin publish PKG --percent N` stores the signed package and the share of customers who get it; each
/// host reads the table every few seconds, and adds what its runs did (runs, posts, refusals by the core, worker
/// faults) to per-version counts. A rolling version whose worker faults pass its threshold is rolled back here,
/// inside the transaction that added them — once, for the whole fleet — and every host stops offering it.
public struct PluginReleases: Sendable {
    /// One published version and where its rollout stands.
    public struct Release: Sendable, Equatable {
        public var pluginID: String
        public var version: String
        /// SHA-256 of the package file (the bytes are read on their own: ``package(of:version:)``).
        public var packageSHA256: String
        /// The share of customers (0…100) who get this version, by their stable cohort.
        public var percent: Int
        public var state: State
        /// Why it is no longer rolling (a rollback's fault count, the operator's words, the version that replaced it).
        public var reason: String?
        /// A rolling version is rolled back when more than this share of its runs (in percent) ended in a worker fault…
        public var faultThreshold: Int
        /// …once it has had at least this many runs.
        public var minimumRuns: Int
        public var publishedMilliseconds: Int64
        public var publishedBy: String
        public var changedMilliseconds: Int64
    }

    public enum State: String, Sendable, Equatable {
        /// Offered to its share of customers (100: to everyone).
        case rolling
        /// Rolled back, automatically (its fault rate) or by the operator: offered to no one.
        case rolledBack = "rolled-back"
        /// A newer version of the plugin was published: offered to no one.
        case superseded
    }

    /// What one plugin version did on the hosts, as `plugin rollout status` shows it.
    public struct Counts: Sendable, Equatable {
        public var pluginID: String
        public var version: String
        /// Distinct customers (parties) who opened a run of it.
        public var customers: Int
        public var runs: Int
        public var posts: Int
        public var refusals: Int
        public var faults: Int
    }

    /// Counts a host adds: per plugin version, and the parties that opened its runs since the last flush.
    public struct Delta: Sendable, Equatable {
        public var runs = 0, posts = 0, refusals = 0, faults = 0
        public var parties: Set<String> = []

        public init() {}
        public var isEmpty: Bool { runs == 0 && posts == 0 && refusals == 0 && faults == 0 && parties.isEmpty }

        /// Adds `other`'s counts and parties to these.
        mutating func add(_ other: Delta) {
            runs += other.runs
            posts += other.posts
            refusals += other.refusals
            faults += other.faults
            parties.formUnion(other.parties)
        }
    }

    /// What ``publish(_:version:package:sha256:percent:faultThreshold:minimumRuns:by:)`` did.
    public enum Publication: Sendable, Equatable {
        /// A new rollout; the versions of the plugin that were rolling are superseded.
        case published(superseded: [String])
        /// The version was rolling: its share is now the one given.
        case changed(from: Int)
        /// The version was rolled back or superseded: it is not published again (publish a new version).
        case ended(Release)
    }

    let database: LedgerDatabase
    let clock: @Sendable () -> Date

    public init(dataDirectory: URL, location: LedgerLocation, clock: @escaping @Sendable () -> Date = Date.init)
        throws(LedgerError) {
        database = try LedgerDatabase.joining(dataDirectory: dataDirectory, location: location)
        self.clock = clock
    }

    /// Where the releases are, as messages name it.
    public var place: String { database.place }

    public func close() { try? database.close() }

    /// Publishes `version` of `pluginID` to `percent` of customers, or changes the share of a rolling one. The
    /// package was verified by the caller; every host verifies it again before it loads it.
    public func publish(_ pluginID: String, version: String, package: Data, sha256: String, percent: Int,
                        faultThreshold: Int, minimumRuns: Int, by who: String) throws(LedgerError) -> Publication {
        let now = Timestamp.milliseconds(clock())
        return try database.write { db in
            let known = try Self.releases(db, pluginID: pluginID)
            if let current = known.first(where: { $0.version == version }) {
                guard current.state == .rolling else { return .ended(current) }
                try db.execute("UPDATE plugin_releases SET percent = ?, fault_threshold = ?, minimum_runs = ?, changed_ms = ? WHERE plugin_id = ? AND version = ?",
                               Int64(percent), Int64(faultThreshold), Int64(minimumRuns), now, pluginID, version)
                return .changed(from: current.percent)
            }
            let superseded = known.filter { $0.state == .rolling }.map(\.version)
            try db.execute("""
                UPDATE plugin_releases SET state = 'superseded', reason = ?, changed_ms = ?
                WHERE plugin_id = ? AND state = 'rolling'
                """, "version \(version) was published", now, pluginID)
            try db.execute("""
                INSERT INTO plugin_releases (plugin_id, version, package, package_sha256, percent, state, fault_threshold,
                                             minimum_runs, published_ms, published_by, changed_ms)
                VALUES (?, ?, ?, ?, ?, 'rolling', ?, ?, ?, ?, ?)
                """, pluginID, version, package, sha256, Int64(percent), Int64(faultThreshold), Int64(minimumRuns), now, who, now)
            return .published(superseded: superseded)
        }
    }

    /// Rolls back the rolling version of `pluginID` (the operator's decision); nil when none is rolling.
    public func rollBack(_ pluginID: String, reason: String) throws(LedgerError) -> Release? {
        // The reason is shown on one line of `plugin rollout status` and in every later refusal to publish.
        if let character = reason.unicodeScalars.first(where: {
            $0.properties.generalCategory == .control || InvisibleText.isInvisible($0)
        }) {
            throw .unshowableText(what: "the rollback's reason", character: UnicodeText.codePoint(character.value))
        }
        let now = Timestamp.milliseconds(clock())
        return try database.write { db in
            guard var rolling = try Self.releases(db, pluginID: pluginID).first(where: { $0.state == .rolling }) else { return nil }
            try db.execute("UPDATE plugin_releases SET state = 'rolled-back', reason = ?, changed_ms = ? WHERE plugin_id = ? AND version = ?",
                           reason, now, pluginID, rolling.version)
            rolling.state = .rolledBack
            rolling.reason = reason
            rolling.changedMilliseconds = now
            return rolling
        }
    }

    /// Every release, newest first within each plugin (no package bytes).
    public func releases() throws(LedgerError) -> [Release] {
        try database.read { db in try Self.releases(db, pluginID: nil) }
    }

    /// The package file of a release, as it was published.
    public func package(of pluginID: String, version: String) throws(LedgerError) -> Data? {
        try database.read { db in
            try db.value(Data.self, "SELECT package FROM plugin_releases WHERE plugin_id = ? AND version = ?", pluginID, version)
        }
    }

    /// Every plugin version's counts, in plugin id and version order.
    public func counts() throws(LedgerError) -> [Counts] {
        try database.read { db in
            try db.rows("""
                SELECT c.plugin_id, c.version, c.runs, c.posts, c.refusals, c.faults,
                       (SELECT COUNT(*) FROM plugin_version_parties p WHERE p.plugin_id = c.plugin_id AND p.version = c.version) AS parties
                FROM plugin_version_counts c ORDER BY c.plugin_id, c.version
                """).map { row in
                Counts(pluginID: try row.decode(forColumn: "plugin_id"), version: try row.decode(forColumn: "version"),
                       customers: Int(try row.decode(Int64.self, forColumn: "parties")),
                       runs: Int(try row.decode(Int64.self, forColumn: "runs")), posts: Int(try row.decode(Int64.self, forColumn: "posts")),
                       refusals: Int(try row.decode(Int64.self, forColumn: "refusals")),
                       faults: Int(try row.decode(Int64.self, forColumn: "faults")))
            }
        }
    }

    /// Adds a host's counts and, in the same transaction, rolls back each rolling version whose faults now pass its
    /// threshold. Returns the versions it rolled back.
    @discardableResult
    public func add(_ deltas: [PluginVersion: Delta]) throws(LedgerError) -> [Release] {
        guard deltas.values.contains(where: { !$0.isEmpty }) else { return [] }
        let now = Timestamp.milliseconds(clock())
        return try database.write { db in
            // In a fixed order, so two hosts adding at once take the rows' locks in the same order.
            for (version, delta) in deltas.sorted(by: { ($0.key.pluginID, $0.key.version) < ($1.key.pluginID, $1.key.version) })
                where !delta.isEmpty {
                try db.execute("""
                    INSERT INTO plugin_version_counts (plugin_id, version, runs, posts, refusals, faults) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (plugin_id, version) DO UPDATE SET runs = plugin_version_counts.runs + excluded.runs,
                        posts = plugin_version_counts.posts + excluded.posts,
                        refusals = plugin_version_counts.refusals + excluded.refusals,
                        faults = plugin_version_counts.faults + excluded.faults
                    """, version.pluginID, version.version, Int64(delta.runs), Int64(delta.posts), Int64(delta.refusals),
                    Int64(delta.faults))
                for party in delta.parties.sorted() {
                    try db.execute("""
                        INSERT INTO plugin_version_parties (plugin_id, version, party) VALUES (?, ?, ?)
                        ON CONFLICT (plugin_id, version, party) DO NOTHING
                        """, version.pluginID, version.version, party)
                }
            }
            var rolledBack: [Release] = []
            for version in deltas.keys where deltas[version]?.faults ?? 0 > 0 {
                guard var release = try Self.releases(db, pluginID: version.pluginID)
                    .first(where: { $0.version == version.version && $0.state == .rolling }),
                      let row = try db.row("SELECT runs, faults FROM plugin_version_counts WHERE plugin_id = ? AND version = ?",
                                           version.pluginID, version.version) else { continue }
                let runs = Int(try row.decode(Int64.self, forColumn: "runs")), faults = Int(try row.decode(Int64.self, forColumn: "faults"))
                guard runs >= release.minimumRuns, faults * 100 > release.faultThreshold * runs else { continue }
                let reason = "rolled back automatically: \(faults) of its \(runs) runs ended in a worker fault, more than the threshold of \(release.faultThreshold)%"
                try db.execute("UPDATE plugin_releases SET state = 'rolled-back', reason = ?, changed_ms = ? WHERE plugin_id = ? AND version = ?",
                               reason, now, version.pluginID, version.version)
                release.state = .rolledBack
                release.reason = reason
                release.changedMilliseconds = now
                rolledBack.append(release)
            }
            return rolledBack
        }
    }

    private static func releases(_ db: any SQLTransaction, pluginID: String?) throws -> [Release] {
        let columns = "plugin_id, version, package_sha256, percent, state, reason, fault_threshold, minimum_runs, published_ms, published_by, changed_ms"
        let rows = if let pluginID {
            try db.rows("SELECT \(columns) FROM plugin_releases WHERE plugin_id = ? ORDER BY published_ms DESC, version DESC", pluginID)
        } else {
            try db.rows("SELECT \(columns) FROM plugin_releases ORDER BY plugin_id, published_ms DESC, version DESC")
        }
        return try rows.map { row in
            let state: String = try row.decode(forColumn: "state")
            return Release(pluginID: try row.decode(forColumn: "plugin_id"), version: try row.decode(forColumn: "version"),
                           packageSHA256: try row.decode(forColumn: "package_sha256"),
                           percent: Int(try row.decode(Int64.self, forColumn: "percent")),
                           state: State(rawValue: state) ?? .rolledBack, reason: try row.decode(forColumn: "reason"),
                           faultThreshold: Int(try row.decode(Int64.self, forColumn: "fault_threshold")),
                           minimumRuns: Int(try row.decode(Int64.self, forColumn: "minimum_runs")),
                           publishedMilliseconds: try row.decode(forColumn: "published_ms"),
                           publishedBy: try row.decode(forColumn: "published_by"),
                           changedMilliseconds: try row.decode(forColumn: "changed_ms"))
        }
    }
}

/// One version of one plugin: what counts are kept by.
public struct PluginVersion: Sendable, Hashable {
    public var pluginID: String
    public var version: String

    public init(_ pluginID: String, _ version: String) {
        self.pluginID = pluginID
        self.version = version
    }
}

/// What this host's runs did per plugin version since the counts were last added to the ledger
/// (``PluginReleases/add(_:)``). One per process: every front end of a host opens, signs and meets faults through
/// the same core, which counts here without a database write on the request's path.
public final class PluginVersionCounters: @unchecked Sendable {
    public static let shared = PluginVersionCounters()
    private let lock = NSLock()
    private var pending: [PluginVersion: PluginReleases.Delta] = [:]

    public init() {}

    public func run(_ version: PluginVersion, party: String) {
        lock.withLock {
            pending[version, default: .init()].runs += 1
            pending[version, default: .init()].parties.insert(party)
        }
    }

    public func posted(_ version: PluginVersion) { lock.withLock { pending[version, default: .init()].posts += 1 } }
    public func refused(_ version: PluginVersion) { lock.withLock { pending[version, default: .init()].refusals += 1 } }
    public func fault(_ version: PluginVersion) { lock.withLock { pending[version, default: .init()].faults += 1 } }

    /// Takes what was counted (the counters start again from zero).
    public func take() -> [PluginVersion: PluginReleases.Delta] {
        lock.withLock {
            defer { pending = [:] }
            return pending
        }
    }

    /// Gives back counts that could not be added (the database could not be reached): they are added next time.
    public func giveBack(_ deltas: [PluginVersion: PluginReleases.Delta]) {
        lock.withLock {
            for (version, delta) in deltas { pending[version, default: .init()].add(delta) }
        }
    }
}
