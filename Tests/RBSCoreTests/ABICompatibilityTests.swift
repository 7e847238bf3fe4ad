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

    /// Writes `source` to a file and builds it as a plugin against the current headers (and the corpus' base.h).
    private func plugin(_ name: String, _ source: String, in folder: URL) throws {
        let file = folder.appendingPathComponent("\(name).c")
        try source.replacingOccurrences(of: "BASE_H", with: Fixtures.corpus.appendingPathComponent("base.h").path)
            .write(to: file, atomically: true, encoding: .utf8)
        try Fixtures.compile(file, to: folder.appendingPathComponent("\(name).so"))
        try FileManager.default.removeItem(at: file)
    }

    @Test("the minor-version rule: a plugin built against newer minor headers that needs nothing new loads and starts")
    func newerMinorNeedingNothingNewLoads() throws {
        let folder = Fixtures.temporaryDirectory("newer-minor")
        // Built "against 1.7": it looks for a service and an extension a 1.0 host lacks, finds them absent, and goes on.
        try plugin("newer", """
            #include <rbs_plugin.h>
            #include <stddef.h>
            #include <string.h>
            static bool newer_init(const rbs_host_t *host) {
                return host->get_service(host, "rbs.future/1") == NULL && host->get_service(host, RBS_SERVICE_CLOCK) != NULL;
            }
            static const char *const needed[] = { "rbs.abi/1.0", "rbs.clock/1", "rbs.accounts/1" };
            static const rbs_requirements_extension_t requirements = { 3, needed };
            static const void *newer_extension(const char *id) {
                return strcmp(id, RBS_EXT_REQUIREMENTS) == 0 ? &requirements : NULL;
            }
            #define ABI_INIT { 1, 7, 0 }
            #define INIT newer_init
            #define GET_EXTENSION newer_extension
            #define PLUGIN_ID "test.abi.newer"
            #include "BASE_H"
            """, in: folder)
        let runtime = Fixtures.runtime(plugins: folder)
        runtime.loadPlugins()
        let record = try #require(runtime.registry.records.first)
        #expect(record.status == .loaded, "\(record.error ?? "")")
        #expect(record.abi == "1.7.0")
        #expect(runtime.registry.operation(id: "corpus.op") != nil)
    }

    @Test("a plugin that requires a newer ABI or a missing service is refused, naming the feature")
    func requirementsNameTheMissingFeature() throws {
        let folder = Fixtures.temporaryDirectory("requirements")
        for (name, feature, abi) in [("abi", "rbs.abi/1.7", "{ 1, 7, 0 }"), ("service", "rbs.sbp/1", "RBS_ABI_VERSION_INIT"),
                                     ("malformed", "rbs.abi/one", "RBS_ABI_VERSION_INIT")] {
            try plugin(name, """
                #include <rbs_plugin.h>
                #include <string.h>
                static const char *const needed[] = { "\(feature)" };
                static const rbs_requirements_extension_t requirements = { 1, needed };
                static const void *get(const char *id) { return strcmp(id, RBS_EXT_REQUIREMENTS) == 0 ? &requirements : NULL; }
                #define ABI_INIT \(abi)
                #define GET_EXTENSION get
                #define PLUGIN_ID "test.requires.\(name)"
                #define OPERATION_ID "requires.\(name)"
                #define SECOND_OPERATION_ID "requires.\(name).second"
                #include "BASE_H"
                """, in: folder)
        }
        let runtime = Fixtures.runtime(plugins: folder)
        runtime.loadPlugins()
        let errors = Dictionary(uniqueKeysWithValues: runtime.registry.records.map {
            (URL(fileURLWithPath: $0.path).deletingPathExtension().lastPathComponent, $0.error ?? "")
        })
        #expect(errors["abi"]?.contains("requires rbs.abi/1.7, which this host (ABI 1.6) does not offer; it was built against ABI 1.7") == true,
                "\(errors)")
        #expect(errors["service"]?.contains("requires rbs.sbp/1, which this host (ABI 1.6) does not offer") == true, "\(errors)")
        #expect(errors["malformed"]?.contains("requires rbs.abi/one") == true, "\(errors)")
        #expect(runtime.registry.records.allSatisfy { $0.status == .failed })
    }

    /// Every public header, on its own and all together, compiled by `compiler` with `flags`.
    private func compileHeaders(_ compiler: String, _ flags: [String], language: String) throws {
        let folder = Fixtures.temporaryDirectory("headers")
        var headers = ["rbs_plugin.h"]
        let rbs = Fixtures.include.appendingPathComponent("rbs")
        for name in try FileManager.default.contentsOfDirectory(atPath: rbs.path) where name.hasSuffix(".h") { headers.append("rbs/\(name)") }
        for name in try FileManager.default.contentsOfDirectory(atPath: rbs.appendingPathComponent("ext").path) where name.hasSuffix(".h") {
            headers.append("rbs/ext/\(name)")
        }
        #expect(headers.count >= 10)
        for header in headers {
            let unit = folder.appendingPathComponent("unit.\(language == "c" ? "c" : "cpp")")
            // Uses the inline helpers, so they are compiled, not only parsed.
            let body = header == "rbs_plugin.h" ? """
                int probe(void);
                int probe(void) {
                    rbs_value_t text = rbs_value_text("x"), money = rbs_value_money("1.00", "RUB");
                    rbs_version_t version = RBS_ABI_VERSION_INIT;
                    return (int)text.type + (int)money.type + (rbs_version_is_compatible(version) ? 1 : 0)
                        + (rbs_value_none().type == RBS_VALUE_NONE) + (int)rbs_value_integer(3).as.integer
                        + rbs_value_bool(true).as.boolean + (int)rbs_value_date("2026-01-01").as.text.length
                        + (int)rbs_value_decimal("1.5").as.text.length;
                }
                const rbs_plugin_entry_t *rbs_plugin_entry(void) { return 0; }
                """ : "int probe(void);\n"
            try "#include \"\(header)\"\n\(body)\n".write(to: unit, atomically: true, encoding: .utf8)
            let (status, output) = Fixtures.run("/usr/bin/env", [compiler] + flags + ["-I", Fixtures.include.path, unit.path])
            #expect(status == 0, "\(compiler) \(flags.joined(separator: " ")) with \(header):\n\(output)")
        }
    }

    @Test("every header compiles as pedantic C11 with warnings as errors")
    func headersCompileAsPedanticC11() throws {
        try compileHeaders("cc", ["-std=c11", "-Wall", "-Wextra", "-pedantic", "-Werror", "-fsyntax-only"], language: "c")
    }

    @Test("every header compiles as C++ (c++ -fsyntax-only), each with its own extern \"C\" guard")
    func headersCompileAsCPlusPlus() throws {
        try compileHeaders("c++", ["-fsyntax-only", "-Wall", "-Wextra", "-pedantic", "-Werror"], language: "c++")
        for header in try FileManager.default.subpathsOfDirectory(atPath: Fixtures.include.path) where header.hasSuffix(".h") {
            let text = try String(contentsOf: Fixtures.include.appendingPathComponent(header), encoding: .utf8)
            // rbs_plugin.h only includes the others.
            #expect(header == "rbs_plugin.h" || text.contains("extern \"C\" {"), "\(header) has no extern \"C\" guard")
            #expect(!text.lowercased().contains("seed"), "\(header) mentions seeds, which a plugin author cannot know")
        }
    }

    @Test("the entry symbol is declared in entry.h: a definition with another signature does not compile")
    func entryDeclared() throws {
        let folder = Fixtures.temporaryDirectory("entry")
        let unit = folder.appendingPathComponent("wrong.c")
        try "#include <rbs_plugin.h>\nRBS_EXPORT int rbs_plugin_entry(void) { return 0; }\n"
            .write(to: unit, atomically: true, encoding: .utf8)
        let (status, output) = Fixtures.run("/usr/bin/env", ["cc", "-std=c11", "-fsyntax-only", "-I", Fixtures.include.path, unit.path])
        #expect(status != 0)
        #expect(output.contains("conflicting types for") && output.contains("rbs_plugin_entry"), "\(output)")
    }

    @Test("no references to seeds in the SDK or the plugin guide: an author cannot know what they are")
    func noSeedsInTheSDKOrTheGuide() throws {
        let sdk = Fixtures.root.appendingPathComponent("SDK")
        var files = try FileManager.default.subpathsOfDirectory(atPath: sdk.path)
            .filter { !$0.contains(".build") && !$0.contains("target/") }
            .map { sdk.appendingPathComponent($0) }
        files.append(Fixtures.root.appendingPathComponent("Examples/README.md"))
        var read = 0
        for file in files {
            guard let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
            read += 1
            #expect(!text.lowercased().contains("seed"), "\(file.path) mentions seeds")
        }
        #expect(read >= 20)
    }
}
