import Foundation
import Testing

/// `rbs-host plugin new NAME --lang …`, followed as Examples/README.md ("Start a plugin") tells an author: from an
/// empty folder outside the checkout, the skeleton builds, passes `plugin check`, is signed with the author's key,
/// that key is trusted in a data folder (as `make run` trusts the development key in `.rbs-dev/data`), and the host
/// loads it without development mode and runs its operation to a journaled document.
@Suite("plugin new: an author follows the guide", .serialized)
struct PluginNewTests {
    /// Runs `executable arguments…` in `directory` with `environment`.
    private func run(_ executable: URL, _ arguments: [String], in directory: URL, environment: [String: String],
                     timeout: TimeInterval = 60, sourceLocation: SourceLocation = #_sourceLocation) throws -> ProcessResult {
        let child = try ChildProcess(executable, arguments, environment: environment, directory: directory)
        let result = child.finish(timeout: timeout)
        #expect(!result.timedOut, "\(child.command) timed out", sourceLocation: sourceLocation)
        return result
    }

    private func followTheGuide(_ language: String, timeout: TimeInterval) throws {
        let sandbox = try HostSandbox()
        // The author's empty folder, outside the checkout.
        let author = FileManager.default.temporaryDirectory.appendingPathComponent("rbs-author-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: author, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: author) }
        try #require(!author.standardizedFileURL.path.hasPrefix(Repo.root.standardizedFileURL.path + "/"))
        let plugins = author.appendingPathComponent("host-plugins")
        try FileManager.default.createDirectory(at: plugins, withIntermediateDirectories: true)
        sandbox.plugins = plugins
        // The author's shell: no development mode, the sandbox's data folder as RBS_HOME (the host's data folder).
        let shell = sandbox.environment(["RBS_DEV": nil])
        func host(_ arguments: [String], in directory: URL = author) throws -> ProcessResult {
            try run(Repo.binary, arguments, in: directory, environment: shell)
        }

        // 1. rbs-host plugin new NAME --lang LANG
        let name = "my-\(language)-op"
        let made = try host(["plugin", "new", name, "--lang", language])
        try #require(made.status == 0, "plugin new: \(made)")
        #expect(made.stdout.contains("plugin sign \(name).so --key") && made.stdout.contains("trust add"),
                "Next: names signing and trust: \(made.stdout)")
        let skeleton = author.appendingPathComponent(name)
        // Nothing in the skeleton points into this checkout: a team can commit it as it is.
        let checkout = Repo.root.standardizedFileURL.path
        for path in try FileManager.default.subpathsOfDirectory(atPath: skeleton.path) {
            guard let text = try? String(contentsOf: skeleton.appendingPathComponent(path), encoding: .utf8) else { continue }
            #expect(!text.contains(checkout), "\(name)/\(path) names the checkout \(checkout)")
            for token in ["my-plugin", "my_plugin", "MyPlugin"] {
                #expect(!text.contains(token) || path.hasPrefix("rbs-sdk/") || path.hasPrefix("include/")
                        || path.hasPrefix("rbs-plugin-abi/"), "\(name)/\(path) still says \(token)")
            }
        }

        // 2. make
        let built = try run(URL(fileURLWithPath: "/usr/bin/env"), ["make"], in: skeleton,
                            environment: ProcessInfo.processInfo.environment, timeout: timeout)
        try #require(built.status == 0, "make: \(built)")

        // 3. rbs-host plugin check NAME.so
        let checked = try host(["plugin", "check", "\(name).so"], in: skeleton)
        #expect(checked.status == 0, "plugin check: \(checked)")
        #expect(!checked.stdout.contains("FAIL") && checked.stdout.contains("PASS"), "\(checked.stdout)")
        // 3b. make check: the same checks and the skeleton's own cases (cases.json).
        var makeShell = shell
        makeShell["RBS_HOST"] = Repo.binary.path
        let cases = try run(URL(fileURLWithPath: "/usr/bin/env"), ["make", "check"], in: skeleton, environment: makeShell,
                            timeout: timeout)
        #expect(cases.status == 0, "make check: \(cases)")
        let caseLines = cases.stdout.split(separator: "\n").filter { $0.contains("  case ") }
        #expect(caseLines.count == 2 && caseLines.allSatisfy { $0.hasPrefix("PASS") }, "\(cases.stdout)")

        // 4. keygen, sign, trust (in the host's data folder), copy into the host's plugin folder.
        let keygen = try host(["plugin", "keygen", "publisher.key", "--name", "Author"])
        try #require(keygen.status == 0, "keygen: \(keygen)")
        let signed = try host(["plugin", "sign", "\(name)/\(name).so", "--key", "publisher.key"])
        try #require(signed.status == 0, "sign: \(signed)")
        for file in ["\(name).so", "\(name).so.sig"] {
            try FileManager.default.copyItem(at: skeleton.appendingPathComponent(file), to: plugins.appendingPathComponent(file))
        }
        // Not trusted yet: refused, with the fix named.
        let refused = try host(["list", "--json"])
        #expect(refused.stderr.contains("trust add"), "an untrusted key is refused: \(refused)")
        let trusted = try host(["trust", "add", "publisher.key.pub"])
        try #require(trusted.status == 0, "trust add: \(trusted)")

        // 5. The host loads it without --dev and runs its operation.
        let listed = try host(["list", "--json"])
        #expect(listed.status == 0, "\(listed)")
        let array = try #require(try jsonObject(listed.stdout) as? [[String: Any]])
        #expect(array.compactMap { $0["id"] as? String } == ["example.\(name)"], "\(listed)")
        #expect(array.first?["plugin"] as? String == "com.example.\(name)")
        if language == "c" {
            // The C skeleton trims the note and sets it back with value.h's constructors.
            let described = try host(["describe", "example.\(name)", "--set", "note=  padded note  ", "--json"])
            let form = try #require(try jsonObject(described.stdout) as? [String: Any], "\(described)")
            let note = (form["atoms"] as? [[String: Any]])?.first { $0["id"] as? String == "note" }
            #expect(note?["value"] as? String == "padded note", "\(described.stdout)")
        }
        try sandbox.initKeys()
        let code = try sandbox.code()
        let ran = try host(["run", "example.\(name)", "--set", "note=Hello from the guide", "--code", code, "--json"])
        #expect(ran.status == 0, "run: \(ran)")
        let report = try #require(try jsonObject(ran.stdout) as? [String: Any])
        #expect(report["status"] as? String == "posted", "\(ran)")
        #expect(try sandbox.journal().map(\.kind) == ["acknowledged"])
    }

    @Test("C: new, make, check, sign, trust, run") func c() throws { try followTheGuide("c", timeout: 60) }
    @Test("Rust (cargo build --offline, the binding crate copied in): new, make, check, sign, trust, run")
    func rust() throws { try followTheGuide("rust", timeout: 300) }
    @Test("Swift (the SDK package only, copied in): new, make, check, sign, trust, run")
    func swift() throws { try followTheGuide("swift", timeout: 600) }

    @Test("a bad name or language is refused")
    func refused() throws {
        let sandbox = try HostSandbox()
        let folder = try CheckFixtures.folder(in: sandbox, "new")
        #expect(try sandbox.host(["plugin", "new", "Bad_Name", "--lang", "c", "--dir", folder.path]).status != 0)
        #expect(try sandbox.host(["plugin", "new", "ok", "--lang", "cobol", "--dir", folder.path]).status != 0)
    }

    @Test("the templates are plugins as they stand: the C one compiles against the SDK's headers, pedantic C11")
    func templatesBuildAsTheyAre() throws {
        let template = Repo.root.appendingPathComponent("SDK/Templates/c/my_plugin.c")
        let result = try runProcess(URL(fileURLWithPath: "/usr/bin/env"),
                                    ["cc", "-std=c11", "-Wall", "-Wextra", "-pedantic", "-Werror", "-fsyntax-only",
                                     "-I", CheckFixtures.include.path, template.path],
                                    environment: ProcessInfo.processInfo.environment)
        #expect(result.status == 0, "\(result)")
    }
}
