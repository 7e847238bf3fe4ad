import Foundation
@testable import RBSLedger
import Testing

/// The trusted publisher keys in the ledger's database (``TrustedPublishers``, the shared engine's plugin trust):
/// run on the engine of ``TestEngine/current``, as the rest of the ledger suite.
@Suite struct TrustedPublishersTests {
    static let first = String(repeating: "ab", count: 32)
    static let second = String(repeating: "0c", count: 32)

    @Test("a key is added once, renamed when a new name is given, listed in the order added and removed by what matches")
    func addRenameListRemove() throws {
        let fixture = try Fixture()
        let clock = ManualClock()
        let publishers = try TrustedPublishers(dataDirectory: fixture.directory, location: fixture.location, clock: clock.closure)
        defer { publishers.close() }
        #expect(try publishers.keys().isEmpty)
        #expect(try publishers.add(Self.first.uppercased(), name: "Bank") == .added)
        clock.advance(1)
        #expect(try publishers.add(Self.second, name: nil) == .added)
        #expect(try publishers.add(Self.first, name: "Bank") == .unchanged)
        #expect(try publishers.add(Self.first, name: nil) == .unchanged, "no name given: the old one stays")
        #expect(try publishers.add(Self.first, name: "Bank (2026)") == .renamed)
        let keys = try publishers.keys()
        #expect(keys.map(\.key) == [Self.first, Self.second], "lowercase, in the order added")
        #expect(keys.map(\.name) == ["Bank (2026)", nil])
        #expect(keys[1].addedMilliseconds - keys[0].addedMilliseconds == 1000)

        // Another connection (another host) sees the same keys.
        let other = try TrustedPublishers(dataDirectory: fixture.directory, location: fixture.location)
        defer { other.close() }
        #expect(try other.keys().map(\.key) == [Self.first, Self.second])
        let removed = try other.remove { $0.name == "Bank (2026)" }
        #expect(removed == .removed(keys[0]))
        #expect(try other.remove { $0.key == Self.first } == nil, "removed once")
        #expect(try publishers.keys().map(\.key) == [Self.second])
    }

    @Test("a grant sets the ids and the last day; given again it replaces them; a revoked key stays, refused by add and remove")
    func scopeTermAndRevocation() throws {
        let fixture = try Fixture()
        let clock = ManualClock()
        let publishers = try TrustedPublishers(dataDirectory: fixture.directory, location: fixture.location, clock: clock.closure)
        defer { publishers.close() }
        #expect(try publishers.add(Self.first, name: "Bank", grant: .init(ids: "ru.mybank.*", expires: "2027-01-31")) == .added)
        var key = try #require(try publishers.keys().first)
        #expect(key.ids == "ru.mybank.*" && key.expires == "2027-01-31" && key.revokedMilliseconds == nil)
        #expect(try publishers.add(Self.first, name: nil, grant: .init(ids: "ru.mybank.*")) == .unchanged)
        #expect(try publishers.add(Self.first, name: nil, grant: .init(expires: .some(nil))) == .updated)
        key = try #require(try publishers.keys().first)
        #expect(key.ids == "ru.mybank.*" && key.expires == nil, "only what the grant gives changes")
        #expect(try publishers.add(Self.first, name: "Bank 2", grant: .init()) == .renamed)

        clock.advance(5)
        guard case .revoked(let revoked) = try publishers.revoke(Self.first, name: nil, reason: "key leaked") else {
            Issue.record("not revoked")
            return
        }
        #expect(revoked.revokedReason == "key leaked" && revoked.name == "Bank 2" && revoked.ids == "ru.mybank.*")
        let stored = try #require(try publishers.keys().first)
        #expect(stored == revoked && stored.revokedMilliseconds == Timestamp.milliseconds(clock.closure()))
        #expect(try publishers.revoke(Self.first, name: nil, reason: "again") == .alreadyRevoked(stored), "the first revocation stands")
        #expect(try publishers.add(Self.first, name: "Bank", grant: .init(ids: "")) == .revoked(stored))
        #expect(try publishers.remove { $0.key == Self.first } == .revoked(stored))
        #expect(try publishers.keys() == [stored], "still listed, unchanged")

        // A key never trusted here can be revoked ahead of anyone trusting it.
        guard case .revoked(let ahead) = try publishers.revoke(Self.second, name: "Stolen", reason: nil) else {
            Issue.record("not revoked")
            return
        }
        #expect(ahead.name == "Stolen" && ahead.ids == "" && ahead.revokedMilliseconds != nil)
        #expect(try publishers.add(Self.second, name: nil) == .revoked(ahead))
    }
}
