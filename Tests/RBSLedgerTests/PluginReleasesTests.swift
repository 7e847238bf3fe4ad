import Foundation
@testable import RBSLedger
import Testing

/// Staged rollouts in the ledger's database (``PluginReleases``, schema step `v20-plugin-releases`): publishing,
/// widening, superseding, the counts several hosts add, and the automatic rollback decided inside the transaction that
/// adds the fault passing the threshold — on the engine of ``TestEngine/current``, as the rest of the ledger suite.
@Suite struct PluginReleasesTests {
    static let package = Data("rbs-plugin-package 1\n…".utf8)

    static func releases(_ fixture: Fixture, _ clock: ManualClock = ManualClock()) throws -> PluginReleases {
        try PluginReleases(dataDirectory: fixture.directory, location: fixture.location, clock: clock.closure)
    }

    @Test("publish, widen, supersede: one version rolls per plugin; an ended version is not published again")
    func publishWidenSupersede() throws {
        let fixture = try Fixture()
        let releases = try Self.releases(fixture)
        defer { releases.close() }
        #expect(try releases.releases().isEmpty)
        #expect(try releases.publish("ru.bank.x", version: "1.1.0", package: Self.package, sha256: "aa", percent: 10,
                                     faultThreshold: 20, minimumRuns: 5, by: "ops") == .published(superseded: []))
        #expect(try releases.publish("ru.bank.x", version: "1.1.0", package: Self.package, sha256: "aa", percent: 50,
                                     faultThreshold: 20, minimumRuns: 5, by: "ops") == .changed(from: 10))
        #expect(try releases.publish("ru.bank.x", version: "1.2.0", package: Self.package, sha256: "bb", percent: 5,
                                     faultThreshold: 20, minimumRuns: 5, by: "ops") == .published(superseded: ["1.1.0"]))
        let listed = try releases.releases()
        #expect(listed.map(\.version) == ["1.2.0", "1.1.0"], "newest first")
        let old = try #require(listed.first { $0.version == "1.1.0" })
        #expect(old.state == .superseded && old.reason == "version 1.2.0 was published" && old.percent == 50)
        guard case .ended(let ended) = try releases.publish("ru.bank.x", version: "1.1.0", package: Self.package, sha256: "aa",
                                                           percent: 100, faultThreshold: 20, minimumRuns: 5, by: "ops") else {
            Issue.record("a superseded version was published again")
            return
        }
        #expect(ended.state == .superseded)
        #expect(try releases.package(of: "ru.bank.x", version: "1.2.0") == Self.package)
        // The operator's rollback: the rolling version only; a reason that would break `rollout status`' line (a
        // line feed, a bidi override, a line separator) is refused naming the character, and nothing is rolled back.
        for bad in ["first\nsecond", "a\u{202E}b", "a\u{2028}b", "\u{1B}[2J"] {
            #expect(throws: LedgerError.self) { try releases.rollBack("ru.bank.x", reason: "rolled back by ops: " + bad) }
        }
        do {
            _ = try releases.rollBack("ru.bank.x", reason: "x\ny")
        } catch {
            #expect(error.description.contains("U+000A"), "\(error)")
        }
        #expect(try releases.releases().first { $0.version == "1.2.0" }?.state == .rolling)
        let rolled = try #require(try releases.rollBack("ru.bank.x", reason: "rolled back by ops: a bad fee"))
        #expect(rolled.version == "1.2.0" && rolled.state == .rolledBack)
        #expect(try releases.rollBack("ru.bank.x", reason: "again") == nil, "nothing is rolling any more")
    }

    @Test("counts from several hosts add up; a fault rate above the threshold rolls back only after the minimum runs")
    func countsAndAutomaticRollback() throws {
        let fixture = try Fixture()
        let releases = try Self.releases(fixture)
        defer { releases.close() }
        _ = try releases.publish("ru.bank.x", version: "1.1.0", package: Self.package, sha256: "aa", percent: 10,
                                 faultThreshold: 20, minimumRuns: 5, by: "ops")
        let canary = PluginVersion("ru.bank.x", "1.1.0"), stable = PluginVersion("ru.bank.x", "1.0.0")
        var first = PluginReleases.Delta()
        first.runs = 3
        first.faults = 2
        first.posts = 1
        first.parties = ["customer:1", "customer:2"]
        var steady = PluginReleases.Delta()
        steady.runs = 40
        steady.posts = 30
        steady.refusals = 2
        steady.parties = ["customer:3"]
        // 2 faults in 3 runs is far above 20%, but 3 runs are fewer than the minimum of 5: it keeps rolling.
        #expect(try releases.add([canary: first, stable: steady]).isEmpty)
        #expect(try releases.releases().first?.state == .rolling)
        // Another host's counts: one more run without a fault, one more party (and one it saw already).
        let other = try Self.releases(fixture)
        defer { other.close() }
        var second = PluginReleases.Delta()
        second.runs = 2
        second.parties = ["customer:2", "customer:4"]
        #expect(try other.add([canary: second]).isEmpty, "a delta without faults never rolls back")
        // The next fault: 3 of 6 runs, above 20% and past the minimum: rolled back in that very transaction.
        var third = PluginReleases.Delta()
        third.runs = 1
        third.faults = 1
        let rolled = try other.add([canary: third])
        #expect(rolled.map(\.version) == ["1.1.0"])
        #expect(rolled.first?.reason == "rolled back automatically: 3 of its 6 runs ended in a worker fault, more than the threshold of 20%")
        #expect(try releases.releases().first?.state == .rolledBack)
        let counts = try releases.counts()
        #expect(counts == [
            .init(pluginID: "ru.bank.x", version: "1.0.0", customers: 1, runs: 40, posts: 30, refusals: 2, faults: 0),
            .init(pluginID: "ru.bank.x", version: "1.1.0", customers: 3, runs: 6, posts: 1, refusals: 0, faults: 3),
        ])
        // A rolled-back version is not rolled back twice.
        #expect(try releases.add([canary: third]).isEmpty)
    }

    @Test("a threshold is 'more than': exactly the threshold's share keeps the version rolling")
    func thresholdIsExclusive() throws {
        let fixture = try Fixture()
        let releases = try Self.releases(fixture)
        defer { releases.close() }
        _ = try releases.publish("ru.bank.y", version: "2.0.0", package: Self.package, sha256: "cc", percent: 100,
                                 faultThreshold: 25, minimumRuns: 4, by: "ops")
        var delta = PluginReleases.Delta()
        delta.runs = 4
        delta.faults = 1
        #expect(try releases.add([PluginVersion("ru.bank.y", "2.0.0"): delta]).isEmpty, "1 of 4 is 25%, not more")
        var more = PluginReleases.Delta()
        more.faults = 1
        #expect(try releases.add([PluginVersion("ru.bank.y", "2.0.0"): more]).count == 1, "2 of 4 is more")
    }

    @Test("counts a host could not add are given back and added with the next ones")
    func countersGiveBack() {
        let counters = PluginVersionCounters()
        let version = PluginVersion("ru.bank.x", "1.0.0")
        counters.run(version, party: "customer:1")
        counters.posted(version)
        let taken = counters.take()
        #expect(counters.take().isEmpty)
        counters.fault(version)
        counters.giveBack(taken)
        let merged = counters.take()[version]
        #expect(merged?.runs == 1 && merged?.posts == 1 && merged?.faults == 1 && merged?.parties == ["customer:1"])
    }
}
