import Foundation
import Testing

/// `template save NAME` in the REPL and `run @NAME` (REPL and command line).
@Suite("templates")
struct TemplateTests {
    private func repl(_ sandbox: HostSandbox, _ script: String) throws -> (out: String, err: String) {
        let result = try sandbox.repl(script)
        #expect(result.status == 0)
        return (result.out, result.err)
    }

    private static let run = "run pay.pp.quick " + RunTests.quick.map { "'\($0)'" }.joined(separator: " ")

    @Test("template save keeps the form filled last (0600, no secrets); run @NAME fills it in and posts; a value the operation lost is named as dropped")
    func saveAndRun() throws {
        let sandbox = try HostSandbox()
        try sandbox.initKeys()
        sandbox.step()
        let code = try sandbox.code()
        // Every atom prefilled: 8 Enters and one to submit, then the code.
        let (out, err) = try repl(sandbox, "template save early\n\(Self.run)\n\(String(repeating: "\n", count: 9))\(code)\ntemplate save rent\ntemplate\nquit\n")
        #expect(err == "error: no form was filled yet: run an operation, then template save NAME keeps its values\n")
        #expect(out.contains("posted — journal entry 1"))
        #expect(out.contains("template rent saved: pay.pp.quick, 7 values — run @rent fills them in\nrent\n"), "\(out)")
        let file = sandbox.data.appendingPathComponent("templates/rent.json")
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let folder = try FileManager.default.attributesOfItem(atPath: file.deletingLastPathComponent().path)[.posixPermissions] as? Int
        #expect(folder == 0o700)
        struct Template: Decodable { var operation: String; var pluginVersion: String; var values: [[String: String]] }
        let template = try JSONDecoder().decode(Template.self, from: Data(contentsOf: file))
        #expect(template.operation == "pay.pp.quick" && template.pluginVersion == "1.0.0")
        #expect(template.values.map { $0["id"] ?? "" } == ["srcAccount", "destName", "destInn", "destAccount", "destBic", "destDesc", "amount"])
        #expect(template.values.last?["value"] == "1500.50")

        // A newer plugin without one of the template's atoms: the value is named as dropped, the rest is used.
        var object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        object["values"] = (object["values"] as? [Any] ?? []) + [["id": "destCode", "value": "42"]]
        try JSONSerialization.data(withJSONObject: object).write(to: file)
        sandbox.step()
        let result = try sandbox.host(["run", "@rent", "--set", "amount=10", "--code", try sandbox.code(), "--json"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr == "error: template rent: pay.pp.quick 1.0.0 has no atom destCode (its value '42' was dropped)\n")
        let report = try decode(RunJSON.self, result.stdout)
        #expect(report.document?.fields["name"] == "ООО Ромашка" && report.document?.fields["amount"] == "10.00")
    }

    @Test("run @NAME with an unknown or malformed name says which templates there are")
    func unknown() throws {
        let sandbox = try HostSandbox()
        try sandbox.initKeys()
        let missing = try sandbox.host(["run", "@nope", "--code", "000000", "--json"])
        #expect(missing.status == 1)
        #expect(try decode(RunJSON.self, missing.stdout).errors.map(\.message)
            == ["there is no template 'nope' (none saved yet: fill a form, then template save NAME)"])
        let (_, err) = try repl(sandbox, "run @../x\ntemplate save a/b\nquit\n")
        #expect(err == """
            error: '../x' cannot name a template: use 1–64 letters, digits, '.', '-' or '_'
            error: no form was filled yet: run an operation, then template save NAME keeps its values

            """)
    }
}
