import Foundation
import Testing
@testable import RBSCore

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
