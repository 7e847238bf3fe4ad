import Foundation
import Testing

/// Builds the C plugins of Tests/Fixtures/check for the tests of this target.
enum CheckFixtures {
    static let folder = Repo.root.appendingPathComponent("Tests/Fixtures/check")
    static let include = Repo.root.appendingPathComponent("SDK/Sources/CRBSPlugin/include")

    struct CompileError: Error, CustomStringConvertible { let description: String }

    /// Compiles `Tests/Fixtures/check/<name>.c` into `directory/<name>.so`.
    @discardableResult
    static func build(_ name: String, into directory: URL) throws -> URL {
        let output = directory.appendingPathComponent("\(name).so")
        let result = try runProcess(URL(fileURLWithPath: "/usr/bin/env"),
                                    ["cc", "-std=c11", "-shared", "-fPIC", "-fvisibility=hidden", "-I", include.path,
                                     "-o", output.path, folder.appendingPathComponent("\(name).c").path],
                                    environment: ProcessInfo.processInfo.environment, timeout: 60)
        guard result.status == 0 else { throw CompileError(description: "cc \(name).c: \(result.stderr)") }
        return output
    }

    /// A new folder (mode 0755) under the sandbox's data directory.
    static func folder(in sandbox: HostSandbox, _ name: String) throws -> URL {
        let url = sandbox.data.appendingPathComponent("\(name)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o755])
        return url
    }
}

/// `rbs-host plugin check FILE`: a good plugin passes; a crash, a leak and a hang each fail the check that was running.
@Suite("plugin check")
struct PluginCheckTests {
    /// The PASS/FAIL lines of a report, by check name.
    private func lines(_ output: String) -> [String: String] {
        var found: [String: String] = [:]
        for line in output.split(separator: "\n") where line.hasPrefix("PASS") || line.hasPrefix("FAIL") {
            let body = line.dropFirst(6)
            let name = body.components(separatedBy: "  ").first?.trimmingCharacters(in: .whitespaces) ?? ""
            found[name] = String(line)
        }
        return found
    }

    @Test("a good plugin: every check passes, exit 0")
    func good() throws {
        let sandbox = try HostSandbox()
        let plugin = try CheckFixtures.build("good", into: try CheckFixtures.folder(in: sandbox, "good"))
        let result = try sandbox.host(["plugin", "check", plugin.path])
        #expect(result.status == 0, "\(result)")
        let report = lines(result.stdout)
        for name in ["load", "create-destroy check.good", "input check.good/name", "input check.good/amount",
                     "submit check.good", "leak check.good", "unload"] {
            #expect(report[name]?.hasPrefix("PASS") == true, "\(name): \(result.stdout)")
        }
        #expect(!result.stdout.contains("FAIL"))
        #expect(report["submit check.good"]?.contains("the core would accept it ({purpose})") == true, "\(result.stdout)")
    }

    @Test("the plugin under check runs confined, as in a worker: it reads no file of the host's, writes none, and passes")
    func confined() throws {
        let sandbox = try HostSandbox()
        let plugin = try CheckFixtures.build("escape", into: try CheckFixtures.folder(in: sandbox, "escape"))
        let secret = sandbox.data.appendingPathComponent("secret-\(UUID().uuidString.prefix(8))")
        try Data("key".utf8).write(to: secret)
        let marker = sandbox.data.appendingPathComponent("left-by-plugin")
        let result = try sandbox.host(["plugin", "check", plugin.path, "--cycles", "20"],
                                      environment: ["RBS_CHECK_SECRET": secret.path, "RBS_CHECK_MARKER": marker.path])
        #expect(result.status == 0, "\(result)")
        #expect(lines(result.stdout)["create-destroy check.escape"]?.hasPrefix("PASS") == true, "\(result.stdout)")
        #expect(!FileManager.default.fileExists(atPath: marker.path), "the plugin wrote \(marker.path)")
        // Unconfined (as before), the same plugin reads the secret and aborts in create.
        #expect(FileManager.default.isReadableFile(atPath: secret.path))
    }

    @Test("a document that breaks the contract (an amount without an account) fails submit, with the core's reason")
    func documentContract() throws {
        let sandbox = try HostSandbox()
        let plugin = try CheckFixtures.build("amount_without_account", into: try CheckFixtures.folder(in: sandbox, "contract"))
        let result = try sandbox.host(["plugin", "check", plugin.path])
        #expect(result.status == 1, "\(result)")
        let submit = lines(result.stdout)["submit check.contract"] ?? "(no submit line)"
        #expect(submit.hasPrefix("FAIL"), "\(result.stdout)")
        #expect(submit.contains("the document {from, amount, currency, purpose} breaks the document contract: the core would reject it: the document has an amount but no \"account\" field (the payee's account) — see rbs_document_builder_t in rbs/operation.h"),
                "\(submit)")
        #expect(lines(result.stdout)["load"]?.hasPrefix("PASS") == true)
    }

    /// Writes `json` as a cases file in the sandbox.
    private func casesFile(_ json: String, in sandbox: HostSandbox) throws -> URL {
        let file = sandbox.data.appendingPathComponent("cases-\(UUID().uuidString).json")
        try json.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    /// The line of check `name` as `plugin check` prints it: the verdict, the name in its column, the detail.
    private func line(_ verdict: String, _ name: String, _ detail: String) -> String {
        verdict + "  " + (name.count < 34 ? name + String(repeating: " ", count: 34 - name.count) : name + " ") + detail
    }

    @Test("--cases: each case passes or fails by what it expects (the document's fields, or the atom refused and its message), naming the difference")
    func authorsCases() throws {
        let sandbox = try HostSandbox()
        let accounts = #"["fromAccount", "40817810438000000001"], ["toAccount", "40817810738000000002"]"#
        let cases = try casesFile("""
            [{"name": "between own accounts", "operation": "transfer.own",
              "values": [\(accounts), ["amount", "100.50"]], "document": {"amount": "100.50", "currency": "RUB"}},
             {"name": "a zero amount is refused", "operation": "transfer.own",
              "values": [\(accounts), ["amount", "0"]], "refused": {"atom": "amount", "message": "the amount must be greater than zero"}},
             {"name": "a wrong expectation", "operation": "transfer.own",
              "values": [\(accounts), ["amount", "100.50"]], "document": {"amount": "100.00", "nosuch": "x"}},
             {"name": "a refusal expected, a document built", "operation": "transfer.own",
              "values": [\(accounts), ["amount", "1"]], "refused": {"atom": "amount"}},
             {"name": "another message", "operation": "transfer.own",
              "values": [\(accounts), ["amount", "-5"]], "refused": {"atom": "amount", "message": "wrong"}},
             {"name": "an operation it does not have", "operation": "pay.nothing", "values": [], "refused": {}}]
            """, in: sandbox)
        let result = try sandbox.host(["plugin", "check", Repo.plugins.appendingPathComponent("transfer-own.so").path,
                                       "--cases", cases.path, "--cycles", "10"])
        #expect(result.status == 1, "\(result)")
        let found = result.stdout.split(separator: "\n").map(String.init).filter { $0.contains("  case ") }
        #expect(found == [
            line("PASS", "case 1 between own accounts", "the document has the 2 field(s) expected, and the core accepts it"),
            line("PASS", "case 2 a zero amount is refused", "amount refused: the amount must be greater than zero"),
            line("FAIL", "case 3 a wrong expectation", "the document {from, account, amount, currency, purpose} differs: amount is '100.50', expected '100.00'; nosuch is missing"),
            line("FAIL", "case 4 a refusal expected, a document built", "expected amount to be refused, but a document was built: {from, account, amount, currency, purpose}"),
            line("FAIL", "case 5 another message", "amount was refused with '-5: an amount must be positive', expected 'wrong'"),
            line("FAIL", "case 6 an operation it does not have", "the plugin has no operation 'pay.nothing' (it has transfer.own)"),
        ], "\(result.stdout)")
        #expect(result.stdout.hasSuffix("4 of 14 checks failed\n"), "\(result.stdout)")
    }

    @Test("--cases: a document built as the case expects still fails when the core would refuse it")
    func caseAskTheCore() throws {
        let sandbox = try HostSandbox()
        let plugin = try CheckFixtures.build("amount_without_account", into: try CheckFixtures.folder(in: sandbox, "contract"))
        let cases = try casesFile("""
            [{"name": "pays", "operation": "check.contract", "values": [["name", "x"], ["amount", "100.00"]],
              "document": {"amount": "100.00"}}]
            """, in: sandbox)
        let result = try sandbox.host(["plugin", "check", plugin.path, "--cases", cases.path, "--cycles", "10"])
        #expect(result.status == 1, "\(result)")
        #expect(lines(result.stdout)["case 1 pays"] == line("FAIL", "case 1 pays", "the document was built as expected, but the core would reject it: the document has an amount but no \"account\" field (the payee's account)"),
                "\(result.stdout)")
    }

    @Test("--cases: a file that is not cases is refused before any check runs, naming the file, the case and what is wrong")
    func badCasesFile() throws {
        let sandbox = try HostSandbox()
        let plugin = Repo.plugins.appendingPathComponent("transfer-own.so").path
        for (json, reason) in [
            ("{}", "not a JSON array of cases"),
            ("[]", "no cases"),
            ("[1", "not JSON"),
            (#"[{"name": "x", "operation": "a", "values": [["a"]], "document": {"a": "b"}}]"#, "case 1 (x): value 1 is not an [atom, value] pair of two texts"),
            (#"[{"name": "x", "operation": "a", "values": []}]"#, "case 1 (x): give exactly one of \"document\" (the fields expected) or \"refused\" (the atom and message expected)"),
            (#"[{"name": "x", "operation": "a", "values": [], "refused": {}, "expect": 1}]"#, "case 1 (x): unknown key 'expect' (a case has name, operation, values, and document or refused)"),
            (#"[{"operation": "a", "values": [], "refused": {}}]"#, "case 1: no \"name\" (a text)"),
        ] {
            let cases = try casesFile(json, in: sandbox)
            let result = try sandbox.host(["plugin", "check", plugin, "--cases", cases.path])
            #expect(result.status == 2 && result.stdout.isEmpty, "\(json): \(result)")
            #expect(result.stderr.hasPrefix("error: \(cases.path): \(reason)") && result.stderr.hasSuffix(" — see `rbs-host plugin check --help` for the cases format\n"),
                    "\(json): \(result.stderr)")
        }
    }

    @Test("10,000 modules of a C and a Swift plugin opened and closed in a process of their own: no memory growth",
          .timeLimit(.minutes(2)))
    func tenThousandModules() throws {
        let sandbox = try HostSandbox()
        for plugin in ["transfer-own.so", "pay-quick.so"] {
            let result = try sandbox.host(["plugin", "check", Repo.plugins.appendingPathComponent(plugin).path,
                                           "--cycles", "10000", "--leak-limit", "2", "--timeout", "60"])
            #expect(result.status == 0, "\(result)")
            let leak = lines(result.stdout).first { $0.key.hasPrefix("leak ") }?.value ?? "(no leak line)"
            #expect(leak.hasPrefix("PASS") && leak.contains("10000 create/destroy cycles"), "\(plugin): \(leak)")
        }
    }

    @Test("a path relative to the working directory works, as `plugin new` tells the author to type it")
    func relativePath() throws {
        let sandbox = try HostSandbox()
        let folder = try CheckFixtures.folder(in: sandbox, "relative")
        try CheckFixtures.build("good", into: folder)
        let command = "cd '\(folder.path)' && '\(Repo.binary.path)' plugin check good.so"
        let result = try runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", command], environment: sandbox.environment())
        #expect(result.status == 0, "\(result)")
        #expect(lines(result.stdout)["load"]?.hasPrefix("PASS") == true, "\(result.stdout)")
    }

    @Test("the example plugins pass, and each submit builds a document the core would accept")
    func examples() throws {
        let sandbox = try HostSandbox()
        for file in Repo.pluginFiles {
            let result = try sandbox.host(["plugin", "check", Repo.plugins.appendingPathComponent(file).path])
            #expect(result.status == 0, "\(file): \(result)")
            let submits = lines(result.stdout).filter { $0.key.hasPrefix("submit ") }
            #expect(!submits.isEmpty)
            for (name, line) in submits {
                #expect(line.contains("a document was built and the core would accept it"), "\(file) \(name): \(line)")
            }
            // pay-quick lists atoms in rbs.recorded-atoms/1; each keeps the promise.
            if file == "pay-quick.so" {
                let recorded = result.stdout.split(separator: "\n").filter { $0.contains("  recorded ") }
                let names = ["srcAccount", "destName", "destInn", "destKpp", "destAccount", "destDesc", "amount"]
                #expect(recorded.count == names.count, "\(result.stdout)")
                for (found, atom) in zip(recorded, names) {
                    #expect(found.hasPrefix(line("PASS", "recorded pay.pp.quick/" + atom, "")), "\(found)")
                }
            }
        }
    }

    /// `plugin check` of Tests/Fixtures/check/recorded_atoms.c (one honest recorded atom, two that break the promise),
    /// with `extra` arguments; it fails (exit 1).
    private func checkRecordedAtoms(_ extra: [String] = []) throws -> ProcessResult {
        let sandbox = try HostSandbox()
        let plugin = try CheckFixtures.build("recorded_atoms", into: try CheckFixtures.folder(in: sandbox, "recorded"))
        let result = try sandbox.host(["plugin", "check", plugin.path, "--cycles", "10"] + extra)
        #expect(result.status == 1, "\(result)")
        return result
    }

    @Test("rbs.recorded-atoms/1: an atom whose value_changed only records passes; one that sets a caption or logs fails, naming the plugin, the operation, the atom, the value and the call")
    func recordedAtoms() throws {
        let result = try checkRecordedAtoms()
        let found = result.stdout.split(separator: "\n").map(String.init).filter { $0.contains("  recorded ") }
        let promise = " — an atom listed in rbs.recorded-atoms/1 must only record its value; take it out of the list or do the rest elsewhere (see rbs/ext/recorded_atoms.h)"
        #expect(found == [
            line("PASS", "recorded check.recorded/name", "7 values handed to value_changed at once: each only recorded (no host call, RBS_OK, nothing shown changed)"),
            line("FAIL", "recorded check.recorded/amount", "plugin tests.check.recorded, operation check.recorded: value_changed of 'amount' with '100.00' called set_caption('fee', \"Fee 1.00\"), changed what the form shows (fee's caption 'Fee' → 'Fee 1.00')" + promise),
            line("FAIL", "recorded check.recorded/purpose", "plugin tests.check.recorded, operation check.recorded: value_changed of 'purpose' with 'Test' called log(1, \"purpose changed\")" + promise),
        ], "\(result.stdout)")
        #expect(result.stdout.hasSuffix("2 of 11 checks failed\n"), "\(result.stdout)")
    }

    @Test("--json: the recorded-atoms checks are results like the others, under the same keys")
    func recordedAtomsJSON() throws {
        let result = try checkRecordedAtoms(["--json"])
        let array = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]], "\(result.stdout)")
        let recorded = array.filter { ($0["name"] as? String)?.hasPrefix("recorded ") == true }
        #expect(recorded.map { $0["name"] as? String } == ["recorded check.recorded/name", "recorded check.recorded/amount", "recorded check.recorded/purpose"])
        #expect(recorded.map { $0["passed"] as? Bool } == [true, false, false])
        #expect(recorded.allSatisfy { Set($0.keys) == ["name", "passed", "detail"] })
    }

    @Test("a crash in value_changed fails the input check that ran it, names the signal, and the rest still run")
    func crash() throws {
        let sandbox = try HostSandbox()
        let plugin = try CheckFixtures.build("crash_value_changed", into: try CheckFixtures.folder(in: sandbox, "crash"))
        let result = try sandbox.host(["plugin", "check", plugin.path])
        #expect(result.status == 1, "\(result)")
        let report = lines(result.stdout)
        let failed = try #require(report["input check.crash/name"], "\(result.stdout)")
        #expect(failed.hasPrefix("FAIL"))
        #expect(failed.contains("SIGSEGV") && failed.contains("crashed"), "\(failed)")
        #expect(report["input check.crash/amount"]?.hasPrefix("PASS") == true, "checks after the crash still run: \(result.stdout)")
        #expect(report["leak check.crash"]?.hasPrefix("PASS") == true)
    }

    @Test("instances that are never freed fail the leak check")
    func leak() throws {
        let sandbox = try HostSandbox()
        let plugin = try CheckFixtures.build("leak", into: try CheckFixtures.folder(in: sandbox, "leak"))
        let result = try sandbox.host(["plugin", "check", plugin.path])
        #expect(result.status == 1, "\(result)")
        let failed = try #require(lines(result.stdout)["leak check.leak"], "\(result.stdout)")
        #expect(failed.hasPrefix("FAIL") && failed.contains("resident memory grew"), "\(failed)")
        #expect(lines(result.stdout)["create-destroy check.leak"]?.hasPrefix("PASS") == true)
    }

    @Test("a hang in create is killed after --timeout and fails create-destroy")
    func hang() throws {
        let sandbox = try HostSandbox()
        let plugin = try CheckFixtures.build("hang_create", into: try CheckFixtures.folder(in: sandbox, "hang"))
        let started = Date()
        let result = try runProcess(Repo.binary, ["plugin", "check", plugin.path, "--timeout", "1"],
                                    environment: sandbox.environment(), timeout: 60)
        #expect(result.status == 1, "\(result)")
        let failed = try #require(lines(result.stdout)["create-destroy check.hang"], "\(result.stdout)")
        #expect(failed.hasPrefix("FAIL") && failed.contains("hung") && failed.contains("killed"), "\(failed)")
        #expect(failed.contains("create"), "names what it was doing: \(failed)")
        #expect(lines(result.stdout)["load"]?.hasPrefix("PASS") == true)
        #expect(Date().timeIntervalSince(started) < 40)
    }

    @Test("a file that is not a plugin fails load and nothing else runs")
    func notAPlugin() throws {
        let sandbox = try HostSandbox()
        let file = try CheckFixtures.folder(in: sandbox, "junk").appendingPathComponent("junk.so")
        try Data("not an ELF file".utf8).write(to: file)
        let result = try sandbox.host(["plugin", "check", file.path])
        #expect(result.status == 1)
        let report = lines(result.stdout)
        #expect(report["load"]?.contains("not an ELF file") == true, "\(result.stdout)")
        #expect(report.count == 1)
    }
}
