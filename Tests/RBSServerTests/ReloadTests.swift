import Foundation
import Hummingbird
import RBSCore
import RBSLedger
@testable import RBSServer
import Testing

@Suite("serve: hot reload")
struct ReloadTests {
    @Test("a plugin added or removed reaches open clients as reload events; an open run finishes on the plugin it started with")
    func reload() async throws {
        let plugins = FileManager.default.temporaryDirectory.appendingPathComponent("rbs-serve-plugins-\(UUID().uuidString)")
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("rbs-serve-data-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: plugins, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try Ledger.create(dataDirectory: data).ledger.close()  // the folder's first start
        defer {
            try? FileManager.default.removeItem(at: plugins)
            try? FileManager.default.removeItem(at: data)
        }
        try FileManager.default.copyItem(at: TestBank.plugins.appendingPathComponent("transfer-own.so"),
                                         to: plugins.appendingPathComponent("transfer-own.so"))
        let runtime = Runtime(paths: HostPaths(plugins: plugins.path, data: data))
        runtime.loadPlugins()
        let ledger = try runtime.ledger()
        let server = try Server(runtime: runtime, ledger: ledger, log: { _ in })
        let alice = try TestBank.add("alice", "pw", ledger)
        try await TestBank.test(server, bank: nil) { api in
            let token = try await api.login(alice)
            let run = try #require(try await api.open("transfer.own", token)["id"] as? String)
            let events = server.bank.events.subscribe(customer: alice.customer.id)

            try FileManager.default.copyItem(at: TestBank.plugins.appendingPathComponent("pay-quick.so"),
                                             to: plugins.appendingPathComponent("pay-quick.so"))
            try FileManager.default.removeItem(at: plugins.appendingPathComponent("transfer-own.so"))
            server.bank.announce(runtime.reload())

            var iterator = events.makeAsyncIterator()
            var changes: [String: String] = [:]
            for _ in 0..<2 {
                let event = try #require(await iterator.next())
                #expect(event.name == "reload")
                changes[event.data["plugin"] ?? "?"] = event.data["change"]
            }
            #expect(changes == ["ru.example.payments.quick": "added", "ru.example.transfers": "removed"])
            let operations = try await api.call(.get, "/api/v1/operations", token: token).array.compactMap { $0["id"] as? String }
            #expect(operations == ["pay.pp.quick", "topup.mobile"])
            #expect(try await api.call(.post, "/api/v1/runs", token: token, json: ["operation": "transfer.own"]).status == 404)
            // The open run still works on the version it started with.
            let shown = try await api.call(.get, "/api/v1/runs/\(run)", token: token)
            #expect(shown.status == 200 && shown.object["operation"] as? String == "transfer.own")
            #expect(try await api.commit(run, "amount", "10", token).status == 200)
        }
    }
}
