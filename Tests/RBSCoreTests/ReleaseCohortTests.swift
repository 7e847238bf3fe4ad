import Foundation
import Testing
@testable import RBSCore
import RBSLedger

/// The cohort a staged rollout chooses a party by (``ReleaseTrack/cohort(of:pluginID:)``): the same on every host
/// (Tests/Postgres/rollout.py computes it too), per plugin, and spread evenly, so --percent 10 is about a tenth.
@Suite struct ReleaseCohortTests {
    @Test("fixed values: a host and the two-host test agree on who is in which share")
    func fixedValues() {
        #expect(ReleaseTrack.cohort(of: "customer:1", pluginID: "ru.example.transfers") == 62)
        #expect(ReleaseTrack.cohort(of: "customer:2", pluginID: "ru.example.transfers") == 64)
        #expect(ReleaseTrack.cohort(of: "host", pluginID: "ru.example.transfers") == 32)
        #expect(Runtime.cohortKey(of: .customer(7)) == "customer:7")
        #expect(Runtime.cohortKey(of: .host(keyId: "abc")) == "host" && Runtime.cohortKey(of: nil) == "host")
    }

    @Test("a tenth of 5,000 parties falls in the first 10%, and each plugin draws its own")
    func evenSpread() {
        let parties = (1...5000).map { "customer:\($0)" }
        let inside = parties.filter { ReleaseTrack.cohort(of: $0, pluginID: "ru.bank.a") < 10 }
        #expect((400...600).contains(inside.count), "\(inside.count)")
        let alsoInside = inside.filter { ReleaseTrack.cohort(of: $0, pluginID: "ru.bank.b") < 10 }
        #expect(alsoInside.count < inside.count / 4, "the same parties are not the first to get every plugin")
    }
}

/// A sync every few seconds that fails the same way says so once (a stopped ledger printed its whole explanation
/// over the REPL's typed line every two seconds), and says when it works again.
@Suite("staged rollout: a failing sync is told once")
struct ReleaseSyncWarningTests {
    final class Lines: HostLog, @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        func write(level: LogLevel, source: String, message: String) { lock.withLock { lines.append(message) } }
        var all: [String] { lock.withLock { lines } }
    }

    @Test("three failed syncs, one warning; the reason it names is the ledger's")
    func once() throws {
        let data = Fixtures.temporaryDirectory("release-sync")
        let (ledger, _) = try Ledger.create(dataDirectory: data)
        try ledger.close()
        let releases = try PluginReleases(dataDirectory: data, location: .dataFolder)
        let locator = ServiceLocator()
        let log = Lines()
        locator.register(log, as: (any HostLog).self)
        let track = ReleaseTrack(releases: releases, loader: PluginLoader(imagesDirectory: data.appendingPathComponent("images"), locator: locator),
                                 locator: locator, folder: data, counters: PluginVersionCounters(),
                                 verify: { _, path throws(PackageError) in throw .io(path: path, reason: "not in this test") })
        releases.close()  // every read fails from now on
        track.sync()
        track.sync()
        track.sync()
        #expect(log.all.count == 1, "\(log.all)")
        #expect(log.all.first?.hasPrefix("the plugin releases could not be read from ") == true, "\(log.all)")
    }
}
