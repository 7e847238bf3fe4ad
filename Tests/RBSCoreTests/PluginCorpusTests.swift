import Foundation
import RBSCore
import Testing

/// Every broken plugin gets one clear line naming the file, what is wrong and what to do; the host loads the rest.
@Suite("Broken plugin corpus")
struct PluginCorpusTests {
    /// The corpus sources and the text each one's error must contain (from its `// expect:` line).
    static let cases: [(file: String, expect: String)] = {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: Fixtures.corpus.path)) ?? []
        return files.filter { $0.hasSuffix(".c") }.sorted().compactMap { name in
            guard let text = try? String(contentsOf: Fixtures.corpus.appendingPathComponent(name), encoding: .utf8),
                  let line = text.split(separator: "\n").first(where: { $0.hasPrefix("// expect: ") }) else { return nil }
            return (name, String(line.dropFirst("// expect: ".count)))
        }
    }()

    @Test("the corpus has at least 20 broken C plugins")
    func corpusSize() {
        #expect(Self.cases.count >= 20)
    }

    @Test("each broken C plugin fails with its message, and a good plugin beside it still loads")
    func eachBrokenPluginFails() throws {
        let folder = Fixtures.temporaryDirectory("corpus")
        for (file, _) in Self.cases {
            try Fixtures.compile(Fixtures.corpus.appendingPathComponent(file),
                                 to: folder.appendingPathComponent(file.replacingOccurrences(of: ".c", with: ".so")))
        }
        try Fixtures.compile(Fixtures.abi10.appendingPathComponent("plugin.c"), to: folder.appendingPathComponent("zz-good.so"),
                             include: Fixtures.abi10.appendingPathComponent("include"))
        let runtime = Fixtures.runtime(plugins: folder)
        runtime.loadPlugins()
        for (file, expect) in Self.cases {
            let path = folder.appendingPathComponent(file.replacingOccurrences(of: ".c", with: ".so")).path
            let record = try #require(runtime.registry.records.first { $0.path == path }, "no record for \(file)")
            #expect(record.status == .failed, "\(file) loaded but should fail with: \(expect)")
            let error = record.error ?? ""
            #expect(error.contains(expect), "\(file): expected “\(expect)” in “\(error)”")
            #expect(error.hasPrefix(path + ": "), "\(file): the message must start with the file: \(error)")
            #expect(error.contains(" — ") || error.contains("—"), "\(file): the message must say what to do: \(error)")
            #expect(!error.contains("\n"), "\(file): one line only")
        }
        #expect(runtime.registry.operation(id: "abi10.op") != nil, "a good plugin beside broken ones still loads")
    }

    @Test("a file that is not ELF, an empty file and a truncated ELF are refused before dlopen")
    func notPluginsAtAll() throws {
        let folder = Fixtures.temporaryDirectory("notelf")
        try Data("#!/bin/sh\necho hi\n".utf8).write(to: folder.appendingPathComponent("script.so"))
        try Data().write(to: folder.appendingPathComponent("empty.so"))
        let good = try Fixtures.compile(Fixtures.abi10.appendingPathComponent("plugin.c"),
                                        to: Fixtures.temporaryDirectory().appendingPathComponent("good.so"),
                                        include: Fixtures.abi10.appendingPathComponent("include"))
        let bytes = try Data(contentsOf: good)
        try bytes.prefix(bytes.count / 3).write(to: folder.appendingPathComponent("truncated.so"))
        try bytes.prefix(40).write(to: folder.appendingPathComponent("header-only.so"))
        var wrongType = bytes
        wrongType[16] = 2  // ET_EXEC
        try wrongType.write(to: folder.appendingPathComponent("executable.so"))
        let runtime = Fixtures.runtime(plugins: folder)
        runtime.loadPlugins()
        func error(_ name: String) -> String {
            runtime.registry.records.first { $0.path.hasSuffix("/" + name) }?.error ?? "(no record)"
        }
        #expect(error("script.so").contains("not an ELF file"))
        #expect(error("empty.so").contains("the file is empty"))
        #expect(error("truncated.so").contains("truncated ELF file"))
        #expect(error("header-only.so").contains("truncated ELF file"))
        #expect(error("executable.so").contains("not a shared object"))
        #expect(runtime.registry.records.allSatisfy { $0.status == .failed })
    }

    @Test("two files with the same plugin id: the second is refused and names the first")
    func duplicatePluginID() throws {
        let folder = Fixtures.temporaryDirectory("clash")
        try Fixtures.compile(Fixtures.clashes.appendingPathComponent("plugin_a.c"), to: folder.appendingPathComponent("a.so"))
        try Fixtures.compile(Fixtures.clashes.appendingPathComponent("plugin_b.c"), to: folder.appendingPathComponent("b.so"))
        let runtime = Fixtures.runtime(plugins: folder)
        runtime.loadPlugins()
        let second = try #require(runtime.registry.records.first { $0.path.hasSuffix("b.so") })
        #expect(second.status == .failed)
        #expect(second.error?.contains("plugin id 'test.clash.plugin' is already used by \(folder.path)/a.so") == true)
        #expect(runtime.registry.operation(id: "clash.plugin.a") != nil)
        #expect(runtime.registry.operation(id: "clash.plugin.b") == nil, "nothing of a refused plugin is registered")
    }

    @Test("the same operation id in two plugins: the second is refused and names both files")
    func duplicateOperationAcrossPlugins() throws {
        let folder = Fixtures.temporaryDirectory("clash")
        try Fixtures.compile(Fixtures.clashes.appendingPathComponent("operation_a.c"), to: folder.appendingPathComponent("a.so"))
        try Fixtures.compile(Fixtures.clashes.appendingPathComponent("operation_b.c"), to: folder.appendingPathComponent("b.so"))
        let runtime = Fixtures.runtime(plugins: folder)
        runtime.loadPlugins()
        let second = try #require(runtime.registry.records.first { $0.path.hasSuffix("b.so") })
        #expect(second.error == "\(folder.path)/b.so: operation id 'clash.operation' is already offered by \(folder.path)/a.so — give the operation another id or remove one plugin")
        #expect(runtime.registry.operation(id: "clash.operation.b2") == nil)
        #expect(runtime.registry.operation(id: "clash.operation")?.plugin.id == "test.clash.operation.a")
    }

    @Test("a plugin folder that does not exist is one failed record, not a crash")
    func missingFolder() {
        let runtime = Fixtures.runtime(plugins: URL(fileURLWithPath: "/nonexistent/plugins"))
        runtime.loadPlugins()
        #expect(runtime.registry.records.count == 1)
        #expect(runtime.registry.records[0].error?.contains("cannot read the plugin folder") == true)
    }
}
