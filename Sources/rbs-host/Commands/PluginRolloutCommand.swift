import ArgumentParser
import Foundation
import RBSCore
import RBSLedger

/// `rbs-host plugin publish PKG --percent N`: a staged rollout (issue #32 item 3). The package goes into the ledger's
/// database — with `--database`, the PostgreSQL every host of the bank shares — and each host serves its version to
/// the customers whose stable cohort falls inside the share, from its next sync (every 2 s in a REPL or `serve`).
struct PluginPublishCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish", abstract: "Roll a plugin package out to a share of customers on every host of this ledger.",
        discussion: "Publish again with a larger --percent to widen it (a customer in the first 10% stays in at 50%); --percent 100 gives it to everyone. A version whose runs end in worker faults more often than --fault-threshold (after --minimum-runs runs) is rolled back on every host automatically; `plugin rollout status` says why. Publishing a new version of the plugin supersedes the one rolling. A form already open finishes on the version it started with.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The package file (.rbspkg), made by `rbs-host plugin pack`.") var package: String
    @Option(help: ArgumentHelp("The share of customers who get this version, 1 to 100.", valueName: "percent")) var percent: Int
    @Option(name: .customLong("fault-threshold"), help: ArgumentHelp("Roll back when more than this share of its runs (percent, 1 to 100) end in a worker fault.", valueName: "percent"))
    var faultThreshold = 20
    @Option(name: .customLong("minimum-runs"), help: ArgumentHelp("…once it has had at least this many runs.", valueName: "n"))
    var minimumRuns = 5
    @Flag(name: .customLong("allow-downgrade"), help: "Publish a version lower than one published before or last in service here (a rollback on purpose).")
    var allowDowngrade = false

    func validate() throws {
        guard (1...100).contains(percent) else { throw ValidationError("--percent \(percent): give 1 to 100 (to stop a rollout: plugin rollout rollback ID)") }
        guard (1...100).contains(faultThreshold) else { throw ValidationError("--fault-threshold \(faultThreshold): give 1 to 100") }
        guard minimumRuns >= 1 else { throw ValidationError("--minimum-runs \(minimumRuns): give 1 or more") }
    }

    func run() throws {
        let language = global.language
        var verified: PluginPackager.Verified?
        let bytes: [UInt8]
        do { bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: package))) } catch {
            Terminal.error(HostMessage.describe(PackageError.io(path: package, reason: (error as NSError).localizedDescription), language),
                           label: HostMessage.errorLabel.text(language))
            throw ExitCode.failure
        }
        try PackageRefusal.exit(language) { () throws(PackageError) in
            let policy = PluginTrustPolicy(dataDirectory: global.paths.data, location: global.paths.database, development: false)
            verified = try PluginPackager.verify(bytes, path: package, policy: policy)
        }
        guard let verified else { return }
        let manifest = verified.manifest
        let releases = try Rollouts.open(global)
        defer { releases.close() }
        // No silent downgrade, as install: a lower version than customers were given needs --allow-downgrade.
        do {
            let published = try releases.releases().filter { $0.pluginID == manifest.id && $0.state != .rolledBack }.map(\.version)
            try PackageRefusal.exit(language) { () throws(PackageError) in
                try PluginPackager.checkPublication(manifest, path: package, published: published,
                                                    dataDirectory: global.paths.data, allowDowngrade: allowDowngrade)
            }
        } catch let error as LedgerError {
            Terminal.error(error.description, label: HostMessage.errorLabel.text(language))
            throw ExitCode.failure
        }
        let publication: PluginReleases.Publication
        do {
            publication = try releases.publish(manifest.id, version: manifest.version, package: Data(bytes),
                                               sha256: verified.packageSHA256, percent: percent, faultThreshold: faultThreshold,
                                               minimumRuns: minimumRuns, by: PluginHistory.user(HostEnvironment.current.user))
        } catch {
            Terminal.error(error.description, label: HostMessage.errorLabel.text(language))
            throw ExitCode.failure
        }
        switch publication {
        case .published(let superseded):
            print(HostMessage.published(manifest.id, manifest.version, percent: percent, faultThreshold: faultThreshold,
                                        minimumRuns: minimumRuns, place: releases.place, superseded: superseded, language))
        case .changed(let from):
            print(HostMessage.rolloutWidened(manifest.id, manifest.version, percent: percent, from: from, language))
        case .ended(let release):
            Terminal.error(HostMessage.rolloutEnded(release, language), label: HostMessage.errorLabel.text(language))
            throw ExitCode.failure
        }
    }
}

/// `rbs-host plugin rollout status|rollback`.
struct PluginRolloutCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rollout", abstract: "See or stop the staged rollouts of plugin versions.",
        subcommands: [Status.self, Rollback.self])

    /// `plugin rollout status [--json]`.
    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status", abstract: "Per version: the share, the state, the customers served, runs, posts, refusals by the core and worker faults.",
            discussion: "Counts are every host's, added at each host's sync. A version not published (the plugin folder's) is listed with its counts for comparison.")

        @OptionGroup var global: GlobalOptions
        @Flag(help: "Print [{plugin, version, percent, state, reason, customers, runs, posts, refusals, faults, faultThreshold, minimumRuns, publishedAt, publishedBy}].")
        var json = false

        struct Line: Encodable {
            var plugin: String
            var version: String
            var percent: Int?
            var state: String
            var reason: String?
            var customers = 0, runs = 0, posts = 0, refusals = 0, faults = 0
            /// A published version's automatic rollback: more than this % of its runs faulting, once it has had
            /// `minimumRuns` runs (`plugin publish --fault-threshold --minimum-runs`).
            var faultThreshold: Int?
            var minimumRuns: Int?
            var publishedAt: String?
            var publishedBy: String?
        }

        func run() throws {
            let language = global.language
            let releases = try Rollouts.open(global)
            defer { releases.close() }
            let lines: [Line]
            do { lines = Self.lines(try releases.releases(), try releases.counts()) } catch {
                Terminal.error(error.description, label: HostMessage.errorLabel.text(language))
                throw ExitCode.failure
            }
            if json { return JSONOutput.print(lines) }
            guard !lines.isEmpty else {
                return print(HostMessage.nothingPublished(releases.place, language))
            }
            var table = Table(header: HostMessage.rolloutHeader(language))
            table.rightAligned = [4, 5, 6, 7, 8]
            table.rows = lines.map { line in
                [line.plugin, line.version, line.percent.map { "\($0)%" } ?? "—",
                 HostMessage.rolloutState(PluginReleases.State(rawValue: line.state), language),
                 "\(line.customers)", "\(line.runs)", "\(line.posts)", "\(line.refusals)", "\(line.faults)"]
            }
            print(table.render())
            // What would roll a rolling version back, beside its counts.
            for line in lines where line.state == PluginReleases.State.rolling.rawValue {
                if let threshold = line.faultThreshold, let minimum = line.minimumRuns {
                    print(HostMessage.rolloutLimit(line.plugin, line.version, faultThreshold: threshold, minimumRuns: minimum, language))
                }
            }
            for line in lines where line.reason != nil && line.state == PluginReleases.State.rolledBack.rawValue {
                print("\(line.plugin) \(line.version): \(line.reason ?? "")")
            }
        }

        /// Every released version and every version with counts, by plugin then newest release first.
        static func lines(_ releases: [PluginReleases.Release], _ counts: [PluginReleases.Counts]) -> [Line] {
            var byVersion = Dictionary(counts.map { (PluginVersion($0.pluginID, $0.version), $0) }, uniquingKeysWith: { a, _ in a })
            let published = Set(releases.map(\.pluginID))
            var lines: [Line] = []
            for release in releases {
                var line = Line(plugin: release.pluginID, version: release.version, percent: release.percent,
                                state: release.state.rawValue, reason: release.reason,
                                faultThreshold: release.faultThreshold, minimumRuns: release.minimumRuns,
                                publishedAt: ISO8601DateFormatter().string(from: Timestamp.date(milliseconds: release.publishedMilliseconds)),
                                publishedBy: release.publishedBy)
                if let counted = byVersion.removeValue(forKey: PluginVersion(release.pluginID, release.version)) { line.fill(counted) }
                lines.append(line)
            }
            // The other versions of a published plugin (the plugin folder's), to compare its fault rate with.
            for counted in byVersion.values.sorted(by: { ($0.pluginID, $0.version) < ($1.pluginID, $1.version) })
                where published.contains(counted.pluginID) {
                var line = Line(plugin: counted.pluginID, version: counted.version, percent: nil, state: "not-published")
                line.fill(counted)
                lines.append(line)
            }
            return lines.sorted { $0.plugin < $1.plugin }
        }
    }

    /// `plugin rollout rollback ID [--reason TEXT]`.
    struct Rollback: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rollback", abstract: "Stop the rollout of plugin ID on every host: its customers get the plugin folder's version again.",
            discussion: "Forms already open on it finish on it. The version is never published again; publish a new one.")

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The plugin id.") var id: String
        @Option(help: ArgumentHelp("Why, as `plugin rollout status` will say it.", valueName: "text")) var reason: String?

        func run() throws {
            let language = global.language
            let releases = try Rollouts.open(global)
            defer { releases.close() }
            let who = PluginHistory.user(HostEnvironment.current.user)
            let rolled: PluginReleases.Release?
            do { rolled = try releases.rollBack(id, reason: "rolled back by \(who)" + (reason.map { ": \($0)" } ?? "")) } catch {
                Terminal.error(error.description, label: HostMessage.errorLabel.text(language))
                throw ExitCode.failure
            }
            guard let rolled else {
                Terminal.error(HostMessage.nothingRolling(id, place: releases.place, language), label: HostMessage.errorLabel.text(language))
                throw ExitCode.failure
            }
            print(HostMessage.rolledBack(rolled, language))
        }
    }
}

extension PluginRolloutCommand.Status.Line {
    mutating func fill(_ counts: PluginReleases.Counts) {
        customers = counts.customers
        runs = counts.runs
        posts = counts.posts
        refusals = counts.refusals
        faults = counts.faults
    }
}

/// The rollouts of the host's ledger, or the ledger's own error (a fresh folder has none yet).
enum Rollouts {
    static func open(_ global: GlobalOptions) throws -> PluginReleases {
        do { return try PluginReleases(dataDirectory: global.paths.data, location: global.paths.database) } catch {
            Terminal.error(error.description, label: HostMessage.errorLabel.text(global.language))
            throw ExitCode.failure
        }
    }
}
