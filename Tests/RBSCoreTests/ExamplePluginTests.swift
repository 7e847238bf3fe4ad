import CRBSPlugin
import Foundation
@testable import RBSCore
import Testing

/// The example plugins the README's commands build into Plugins/ (`make plugins`).
@Suite("Example plugins")
struct ExamplePluginTests {
    @Test("the C and Swift example plugins in Plugins/ load, each built separately from the host")
    func examplesLoad() throws {
        let files = (try? RBSCore.PluginRegistry.pluginFiles(in: Fixtures.plugins.path)) ?? []
        try #require(!files.isEmpty, "Plugins/ is empty: run `make plugins` first (`make test` does)")
        let runtime = Fixtures.runtime(plugins: Fixtures.plugins)
        runtime.loadPlugins()
        for record in runtime.registry.records {
            #expect(record.status == .loaded, "\(record.error ?? record.path)")
        }
        let quick = try #require(runtime.registry.operation(id: "pay.pp.quick"))
        #expect(quick.plugin.isSwift)
        #expect(quick.descriptor.atoms.map(\.id) == ["srcAccount", "destName", "destInn", "destInnError", "destKpp",
                                                      "destAccount", "destBic", "destBicInfo", "destDesc", "amount",
                                                      "btnSend"])
        #expect(quick.descriptor.functions.map(\.name) == ["isDestInnCorrect"])
        let transfer = try #require(runtime.registry.operation(id: "transfer.own"))
        #expect(!transfer.plugin.isSwift)
    }

    @Test("RBSPluginKit declares requirements: pay.pp.quick answers rbs.requirements/1 with the services it needs, and loads")
    func swiftRequirements() throws {
        let runtime = Fixtures.runtime(plugins: Fixtures.plugins)
        runtime.loadPlugins()
        let quick = try #require(runtime.registry.operation(id: "pay.pp.quick"))
        let getExtension = try #require(quick.plugin.entry?.pointee.get_extension)
        let raw = try #require(getExtension(RBS_EXT_REQUIREMENTS))
        let table = raw.assumingMemoryBound(to: rbs_requirements_extension_t.self).pointee
        let features = try #require(table.features)
        #expect((0..<Int(table.count)).compactMap { features[$0].map { String(cString: $0) } } == ["rbs.accounts/1", "rbs.directory/1"])
        #expect(getExtension("rbs.other/1") == nil)
    }
}
