import Foundation
import Testing

/// A plain `list` starts without ArgumentParser (`QuickList`); anything else it is given goes through ArgumentParser.
/// Both ways print the same, byte for byte: each case runs as given (the fast path) and with `--lang en` added, which
/// the fast path leaves to ArgumentParser and which `list` does not use.
@Suite("list: the start-up fast path")
struct ListStartTests {
    /// `arguments` both ways; the two results must be identical.
    private func bothWays(_ sandbox: HostSandbox, _ arguments: [String], environment: [String: String?] = [:],
                          before: () throws -> Void = {},
                          sourceLocation: SourceLocation = #_sourceLocation) throws -> ProcessResult {
        try before()
        let quick = try sandbox.host(arguments, environment: environment, sourceLocation: sourceLocation)
        try before()
        let parsed = try sandbox.host(arguments + ["--lang", "en"], environment: environment, sourceLocation: sourceLocation)
        expectIdentical(quick, parsed, "\(arguments)", sourceLocation: sourceLocation)
        return quick
    }

    @Test("list and list --json print the same with and without ArgumentParser, in every option spelling")
    func sameOutputBothWays() throws {
        let sandbox = try HostSandbox()
        let table = try bothWays(sandbox, ["list"])
        #expect(table.status == 0 && table.stdout.contains("transfer.own"), "\(table)")
        let json = try bothWays(sandbox, ["list", "--json"])
        #expect(json.status == 0 && json.stdout.hasPrefix("[\n  {\n"), "\(json)")
        let spelled = try bothWays(sandbox, ["list", "--dev", "--json", "--plugins=\(sandbox.plugins.path)",
                                             "--data", sandbox.data.path])
        #expect(spelled.stdout == json.stdout)
    }

    @Test("a corrupt plugin cache, a missing plugin folder, a folder others can write to: the same messages both ways")
    func sameErrorsBothWays() throws {
        let sandbox = try HostSandbox()
        let cache = sandbox.data.appendingPathComponent("plugin-cache.bin")
        let corrupt = try bothWays(sandbox, ["list", "--json"]) {
            try Data("not a cache".utf8).write(to: cache)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: cache.path)
        }
        #expect(corrupt.status == 0 && corrupt.stdout.contains("\"transfer.own\""), "rescanned: \(corrupt)")

        let missing = sandbox.data.appendingPathComponent("no-such-folder").path
        let gone = try bothWays(sandbox, ["list", "--plugins", missing])
        #expect(gone.stderr.contains("\(missing): cannot read the plugin folder"), "\(gone)")
        #expect(gone.stdout.hasPrefix("No operations: \(missing)"), "\(gone)")

        let open = sandbox.data.appendingPathComponent("open-folder")
        try FileManager.default.createDirectory(at: open, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Repo.plugins.appendingPathComponent("transfer-own.so"),
                                         to: open.appendingPathComponent("transfer-own.so"))
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: open.path)
        let refused = try bothWays(sandbox, ["list", "--json", "--plugins", open.path])
        #expect(refused.stdout == "[\n\n]\n" && refused.stderr.contains(open.path), "\(refused)")
    }

    @Test("a bad RBS_ISOLATION and a data folder others can read stop list the same way both ways")
    func sameRefusalsBothWays() throws {
        let sandbox = try HostSandbox()
        let isolation = try bothWays(sandbox, ["list"], environment: ["RBS_ISOLATION": "sandbox"])
        #expect(isolation.status != 0 && isolation.stderr.contains("RBS_ISOLATION=sandbox: use none or plugin"), "\(isolation)")

        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: sandbox.data.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: sandbox.data.path) }
        let exposed = try bothWays(sandbox, ["list", "--json"])
        #expect(exposed.status != 0 && exposed.stdout.isEmpty && exposed.stderr.contains("chmod"), "\(exposed)")
    }

    @Test("list --help, an unknown option and a missing value are ArgumentParser's as before")
    func everythingElseIsArgumentParsers() throws {
        let sandbox = try HostSandbox()
        let help = try sandbox.host(["list", "--help"])
        #expect(help.status == 0 && help.stdout.contains("USAGE: rbs-host list") && help.stdout.contains("--json"), "\(help)")
        let bogus = try sandbox.host(["list", "--bogus"])
        #expect(bogus.status != 0 && bogus.stderr.contains("Unknown option '--bogus'"), "\(bogus)")
        let noValue = try sandbox.host(["list", "--plugins"])
        #expect(noValue.status != 0 && noValue.stderr.contains("Missing value for '--plugins <dir>'"), "\(noValue)")
    }

    /// What JSONEncoder writes for the operations (pretty-printed, sorted keys, slashes unescaped): the text
    /// `list --json` has always printed.
    private struct Operation: Codable {
        var id, title, category, plugin, pluginVersion: String
        var unavailable: String?
    }

    @Test("list --json escapes quotes, backslashes, slashes and non-ASCII text exactly as JSONEncoder does")
    func jsonTextIsJSONEncoders() throws {
        let sandbox = try HostSandbox()
        let folder = sandbox.data.appendingPathComponent("odd-titles")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // No control character: a title holding one is refused at load (ShownTextTests), a terminal would run it.
        let title = "Say \"hi\" \\ to a/b now — Перевод 😀"
        let source = """
        #include "rbs_plugin.h"
        static const rbs_atom_descriptor_t atoms[] = {
            { .id = "amount", .kind = RBS_ATOM_INPUT, .input_type = RBS_INPUT_AMOUNT, .currency = "RUB", .caption = "Amount" },
            { .id = "send", .kind = RBS_ATOM_BUTTON, .caption = "Send", .flags = RBS_ATOM_FLAG_SUBMIT },
        };
        static int token;
        static void *create(const rbs_operation_descriptor_t *o, const rbs_host_t *h, rbs_module_t *m) { (void)o; (void)h; (void)m; return &token; }
        static void destroy(void *i) { (void)i; }
        static rbs_status_t build(void *i, const rbs_document_builder_t *b) { (void)i; return b->put(b, "x", "1") ? RBS_OK : RBS_FAILED; }
        static const rbs_operation_descriptor_t operations[] = {
            { .id = "odd.title", .title = \(Self.cLiteral(title)), .category = "Odd/\\"cat\\"", .atom_count = 2,
              .atoms = atoms, .create = create, .destroy = destroy, .build_document = build },
        };
        static const rbs_plugin_descriptor_t descriptor = { .id = "odd.plugin", .name = "Odd", .version = "1.0.0",
            .vendor = "tests", .operation_count = 1, .operations = operations };
        static const rbs_plugin_entry_t entry = { .abi_version = RBS_ABI_VERSION_INIT, .descriptor = &descriptor };
        RBS_EXPORT const rbs_plugin_entry_t *rbs_plugin_entry(void) { return &entry; }
        """
        let file = folder.appendingPathComponent("odd.c")
        try source.write(to: file, atomically: true, encoding: .utf8)
        let include = Repo.root.appendingPathComponent("SDK/Sources/CRBSPlugin/include")
        let compiled = try runProcess(URL(fileURLWithPath: "/usr/bin/env"),
                                      ["cc", "-std=c11", "-shared", "-fPIC", "-fvisibility=hidden", "-I", include.path,
                                       "-o", folder.appendingPathComponent("odd.so").path, file.path],
                                      environment: ProcessInfo.processInfo.environment)
        try #require(compiled.status == 0, "cc: \(compiled)")
        try FileManager.default.removeItem(at: file)

        for arguments in [["list", "--json", "--plugins", folder.path], ["list", "--json", "--plugins", Repo.plugins.path]] {
            let listed = try bothWays(sandbox, arguments)
            try #require(listed.status == 0 && listed.stdout.hasSuffix("\n"), "\(listed)")
            let operations = try JSONDecoder().decode([Operation].self, from: Data(listed.stdout.utf8))
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let expected = String(decoding: try encoder.encode(operations), as: UTF8.self) + "\n"
            #expect(listed.stdout == expected)
            if arguments.contains(folder.path) {
                #expect(operations.map(\.title) == [title] && operations.map(\.category) == ["Odd/\"cat\""], "\(listed)")
            }
        }
    }

    /// `text` as a C string literal (every byte outside printable ASCII as an octal escape).
    private static func cLiteral(_ text: String) -> String {
        "\"" + text.utf8.map { byte -> String in
            switch byte {
            case UInt8(ascii: "\""): "\\\""
            case UInt8(ascii: "\\"): "\\\\"
            case 0x20..<0x7F: String(UnicodeScalar(byte))
            default: "\\" + String(byte, radix: 8).leftPadded(to: 3)
            }
        }.joined() + "\""
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
