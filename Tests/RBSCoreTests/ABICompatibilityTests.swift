import Foundation
import RBSCore
import Testing

@Suite("ABI compatibility")
struct ABICompatibilityTests {
    @Test("a plugin compiled against the frozen 1.0 headers loads and starts")
    func abi10PluginLoads() throws {
        let folder = Fixtures.temporaryDirectory("abi10")
        try Fixtures.compile(Fixtures.abi10.appendingPathComponent("plugin.c"), to: folder.appendingPathComponent("abi10.so"),
                             include: Fixtures.abi10.appendingPathComponent("include"))
        let runtime = Fixtures.runtime(plugins: folder)
        runtime.loadPlugins()
        let record = try #require(runtime.registry.records.first)
        #expect(record.status == .loaded, "\(record.error ?? "")")
        #expect(record.abi == "1.0.0")
        let operation = try #require(runtime.registry.operation(id: "abi10.op"))
        #expect(operation.descriptor.atoms.map(\.id) == ["kind", "note", "send"])
        #expect(operation.descriptor.atoms[0].options.map(\.value) == ["1", "2"])
        #expect(operation.descriptor.atoms[1].showIf == "$kind == 2")
    }

    @Test("the 1.0 snapshot's frozen structs are unchanged in the current headers")
    func frozenLayout() throws {
        // Compile a C program that checks sizes and offsets of the 1.0 snapshot against the current headers.
        let folder = Fixtures.temporaryDirectory("layout")
        let program = folder.appendingPathComponent("layout.c")
        try """
        #include <stddef.h>
        #include <stdio.h>
        #include "rbs_plugin.h"
        int main(void) {
            printf("%zu %zu %zu %zu %zu %zu %zu %zu %zu\\n", sizeof(rbs_version_t), sizeof(rbs_value_t),
                   sizeof(rbs_atom_descriptor_t), sizeof(rbs_operation_descriptor_t), sizeof(rbs_plugin_descriptor_t),
                   sizeof(rbs_plugin_entry_t), sizeof(rbs_host_t), offsetof(rbs_host_t, set_error),
                   offsetof(rbs_operation_descriptor_t, build_document));
            return 0;
        }
        """.write(to: program, atomically: true, encoding: .utf8)
        func layout(_ include: URL) throws -> String {
            let binary = folder.appendingPathComponent(UUID().uuidString)
            let (status, output) = Fixtures.run("/usr/bin/env", ["cc", "-std=c11", "-I", include.path, "-o", binary.path, program.path])
            guard status == 0 else { throw Fixtures.CompileError(description: output) }
            return Fixtures.run(binary.path, []).1
        }
        let frozen = try layout(Fixtures.abi10.appendingPathComponent("include"))
        let current = try layout(Fixtures.include)
        #expect(frozen == current)
    }
}
