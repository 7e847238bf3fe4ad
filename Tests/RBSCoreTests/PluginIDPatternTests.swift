import Foundation
import RBSCore
import RBSMoney
import Testing

/// What a publisher key trusted with `--ids` may sign (issue #32 item 2): the patterns and the entry's verdict.
@Suite struct PluginIDPatternTests {
    @Test("an exact id admits itself only; a prefix admits the ids below it, never itself or a longer word; * admits all")
    func admits() throws {
        let exact = try PluginIDPattern("ru.mybank.topup")
        #expect(exact.admits("ru.mybank.topup"))
        #expect(!exact.admits("ru.mybank.topup2") && !exact.admits("ru.mybank") && !exact.admits("ru.mybank.topup.x"))
        let prefix = try PluginIDPattern("ru.mybank.*")
        #expect(prefix.admits("ru.mybank.topup") && prefix.admits("ru.mybank.cards.block"))
        #expect(!prefix.admits("ru.mybank") && !prefix.admits("ru.mybank.") && !prefix.admits("ru.mybanker.topup")
                    && !prefix.admits("xru.mybank.topup"))
        #expect(try PluginIDPattern("*").admits("anything.at.all"))
        #expect(try PluginIDPattern.list(" ru.a.* , ru.b ,").map(\.text) == ["ru.a.*", "ru.b"])
        #expect(try PluginIDPattern.list("").isEmpty)
    }

    @Test("patterns that could never name a plugin id, or would match more than they say, are refused by name")
    func refused() {
        for bad in ["", "ru..x", "ru.*.x", "*.ru", "ru.mybank*", "ru/x", ".ru", "ru.", "ру.банк", "ru.my bank", "**"] {
            #expect(throws: TrustError.badIDPattern(bad.trimmingCharacters(in: .whitespaces)), "\(bad)") { try PluginIDPattern(bad) }
        }
    }

    @Test("an entry refuses a revoked key first, then one past its last day, then an id outside its scope")
    func entryVerdict() throws {
        let key = String(repeating: "ab", count: 32)
        let today = try CalendarDay.parse("2026-11-26", .iso)
        let scoped = TrustedKeys.Entry(key: key, name: nil, ids: ["ru.mybank.*"], expires: "2026-11-26")
        #expect(scoped.refusal(signing: "ru.mybank.topup", today: today) == nil, "the last day itself is still trusted")
        #expect(scoped.refusal(signing: "ru.other.topup", today: today)
                    == .outsideKeyScope(publicKey: key, pluginID: "ru.other.topup", ids: ["ru.mybank.*"]))
        #expect(scoped.refusal(signing: "ru.mybank.topup", today: try #require(today.adding(days: 1)))
                    == .expiredKey(publicKey: key, lastDay: "2026-11-26"))
        var revoked = scoped
        revoked.revoked = "2026-11-20"
        revoked.revokedReason = "leaked"
        #expect(revoked.refusal(signing: "ru.mybank.topup", today: today)
                    == .revokedKey(publicKey: key, on: "2026-11-20", reason: "leaked"))
        let unscoped = TrustedKeys.Entry(key: key, name: nil)
        #expect(unscoped.refusal(signing: "any.id", today: today) == nil)
        // A damaged stored scope admits nothing: it never widens what the key may sign.
        let damaged = TrustedKeys.Entry(key: key, name: nil, ids: ["ru..x"])
        #expect(damaged.refusal(signing: "ru..x", today: today) != nil)
    }
}
