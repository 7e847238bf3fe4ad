import Foundation
import RBSLedger
import Testing
@testable import RBSCore

/// An amount in the currency of the account chosen in another field (`rbs.amount-currency/1`, ABI 1.6): the example
/// transfer.own's amount follows its debit account, so a transfer from the USD account is asked for, checked, shown
/// and handed to the plugin in USD — it was "amount, RUB" while the document debited dollars.
@Suite("An amount in the chosen account's currency")
struct AmountCurrencyTests {
    /// DemoAccounts.list: 1 Current (RUB), 2 Savings (RUB), 3 Blocked, 4 Dollars (USD).
    static let dollars = "40817840999910004315"

    /// The example transfer-own plugin alone, in the host's process or in a worker.
    static func runtime(isolated: Bool) throws -> Runtime {
        let plugins = Fixtures.temporaryDirectory("amount-currency")
        try FileManager.default.copyItem(at: Fixtures.plugins.appendingPathComponent("transfer-own.so"),
                                         to: plugins.appendingPathComponent("transfer-own.so"))
        if isolated {
            try #require(FileManager.default.isExecutableFile(atPath: WorkerIsolationTests.worker.path), "build rbs-host first (swift build)")
        }
        let runtime = Runtime(paths: HostPaths(plugins: plugins.path, data: Fixtures.temporaryDirectory("amount-currency-data")),
                              accounts: StaticAccounts(DemoAccounts.list), log: StandardErrorLog(minimum: .error),
                              isolation: isolated ? WorkerIsolationTests.settings(deadline: .seconds(10)) : nil)
        runtime.loadPlugins()
        return runtime
    }

    @Test("transfer.own's amount follows its debit account; the manifest cache keeps that")
    func declared() throws {
        let runtime = try Self.runtime(isolated: false)
        defer { runtime.registry.unloadAll() }
        let operation = try #require(runtime.registry.operation(id: "transfer.own"))
        let amount = try #require(operation.descriptor.atoms.first { $0.id == "amount" })
        #expect(amount.currencyOfAccount == "fromAccount")
        #expect(amount.currency == "RUB")  // what a host older than ABI 1.6 asks for
        let fingerprint = PluginCache.Fingerprint(size: 1, modified: 2, changed: 3, inode: 4, hash: "h")
        let cache = PluginCache(hostABI: ABIVersion.host.description, entries: ["/p/transfer-own.so": PluginCache.Entry(
            fingerprint: fingerprint, result: .plugin(operation.plugin.manifest, services: []))])
        let decoded = try PluginCacheCodec.decode(PluginCacheCodec.encode(cache))
        guard case .plugin(let manifest, _) = decoded.entries["/p/transfer-own.so"]?.result else {
            Issue.record("the cache lost the entry")
            return
        }
        #expect(manifest.operations.first?.atoms.first { $0.id == "amount" }?.currencyOfAccount == "fromAccount")
    }

    @Test("from the USD account the amount is asked for, checked, shown and signed in USD", arguments: [false, true])
    func inTheAccountsCurrency(isolated: Bool) throws {
        let runtime = try Self.runtime(isolated: isolated)
        defer { runtime.registry.unloadAll() }
        let form = try runtime.open("transfer.own")
        defer { form.close() }
        // Nothing chosen yet: the declared currency.
        #expect(form.atom("amount")?.descriptor.currency == "RUB")
        try form.commit("fromAccount", text: "4", reader: .person)
        #expect(form.atom("amount")?.descriptor.currency == "USD")
        #expect(form.declaration(of: "amount")?.currency == "USD")
        #expect(FormSession.expected(try #require(form.declaration(of: "amount"))) == "an amount in USD")
        // An amount in another currency than the account's is refused, whatever front end sent it.
        #expect(throws: FormSessionError.mismatch(id: "amount", expected: "an amount in USD", got: "an amount in RUB")) {
            try form.commit("amount", value: .money(10, currency: "RUB"))
        }
        try form.commit("toAccount", text: "1", reader: .person)
        try form.commit("amount", text: "10,50", reader: .person)
        #expect(form.atom("amount")?.value == "10.50")
        #expect(form.atom("amount")?.error == nil)
        guard case .ready(let draft) = form.submit() else {
            Issue.record("not ready: \(form.attention())")
            return
        }
        let fields = Dictionary(draft.fields.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
        #expect(fields["from"] == Self.dollars)
        #expect(fields["amount"] == "10.50")
        #expect(fields["currency"] == "USD")
    }

    @Test("an amount entered for one currency is cleared, with a notice in the person's language, when the account changes currency; kept when it does not")
    func changingTheAccount() throws {
        let runtime = try Self.runtime(isolated: false)
        defer { runtime.registry.unloadAll() }
        let form = try runtime.open("transfer.own")
        defer { form.close() }
        try form.commit("fromAccount", text: "1", reader: .person)
        try form.commit("amount", text: "150", reader: .person)
        // Another ruble account: the amount stays.
        let same = try form.commit("fromAccount", text: "2", reader: .person)
        #expect(form.atom("amount")?.value == "150.00")
        #expect(!same.errors.contains { $0.0 == "amount" })
        // The dollar account: 150 typed for rubles is never taken for dollars.
        let changed = try form.commit("fromAccount", text: "4", reader: .person)
        #expect(form.atom("amount")?.value == "")
        let notice = "the account chosen is in USD, the amount was in RUB: enter it again in USD"
        #expect(form.atom("amount")?.error == notice)
        #expect(changed.errors.contains { $0.0 == "amount" && $0.1 == notice })
        #expect(form.attention().contains(AtomIssue(atom: "amount", message: notice)))
        // The plugin re-checks its form on every commit (and clears its own marks): the notice is the host's and stays.
        try form.commit("toAccount", text: "1", reader: .person)
        #expect(form.atom("amount")?.error == notice)
        form.language = .ru
        #expect(form.atom("amount")?.error == "выбран счёт в USD, сумма была в RUB: введите её заново в USD")
        // A new amount, in dollars, takes the notice away.
        try form.commit("amount", text: "25", reader: .person)
        #expect(form.atom("amount")?.error == nil)
        #expect(form.atom("amount")?.value == "25.00")
        #expect(form.attention().isEmpty)
    }

    @Test("an amount typed before any account is chosen (run --set amount=… first) says so when the account is in another currency")
    func amountBeforeTheAccount() throws {
        let runtime = try Self.runtime(isolated: false)
        defer { runtime.registry.unloadAll() }
        let form = try runtime.open("transfer.own")
        defer { form.close() }
        try form.commit("amount", text: "1000", reader: .person)
        try form.commit("fromAccount", text: "4", reader: .person)
        #expect(form.atom("amount")?.value == "")
        #expect(form.atom("amount")?.error == "the amount was entered before the account; the account chosen is in USD: enter the amount in USD")
    }
}
