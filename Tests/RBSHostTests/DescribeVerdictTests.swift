import Foundation
import Testing

/// `describe` and `run` agree (issue 28): the text, the JSON `ready` and the exit status come from one verdict, and a
/// run its plugin's worker ended is never "ready to submit".
@Suite("describe: one verdict for text, JSON and run")
struct DescribeVerdictTests {
    /// A sandbox whose plugin folder holds only the fixture that crashes when `name` is committed (both its atoms are
    /// optional, so the form is complete before the crash as after it), run in a worker.
    private func crashing() throws -> HostSandbox {
        let sandbox = try HostSandbox()
        sandbox.plugins = try CheckFixtures.folder(in: sandbox, "crash")
        try CheckFixtures.build("crash_value_changed", into: sandbox.plugins)
        return sandbox
    }

    private let fault = "plugin tests.check.crash, operation check.crash: value_changed(name) — "

    @Test("after the worker crashed: the text says not ready naming the crash, the JSON says ready false, both exit 1, and run refuses")
    func crashedWorker() throws {
        let sandbox = try crashing()
        let arguments = ["describe", "check.crash", "--isolation", "plugin", "--set", "name=boom"]

        let text = try sandbox.host(arguments)
        #expect(text.status == 1, "\(text)")
        let verdict = text.stdout.split(separator: "\n").last.map(String.init) ?? ""
        #expect(verdict.hasPrefix("not ready: " + fault), "\(text.stdout)")
        #expect(verdict.contains("; the run was ended, nothing was signed or posted"), "\(verdict)")
        #expect(!text.stdout.contains("ready to submit"))

        let json = try sandbox.host(arguments + ["--json"])
        #expect(json.status == 1, "\(json)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], "\(json.stdout)")
        #expect(object["ready"] as? Bool == false)

        try sandbox.initKeys()
        let run = try sandbox.host(["run", "check.crash", "--isolation", "plugin", "--set", "name=boom", "--code", try sandbox.code(), "--json"])
        #expect(run.status != 0, "\(run)")
    }

    @Test("a complete form is ready in text and JSON alike, exit 0")
    func readyBoth() throws {
        let sandbox = try HostSandbox()
        let arguments = ["describe", "pay.pp.quick"] + RunTests.quick.flatMap { ["--set", $0] }
        let text = try sandbox.host(arguments)
        #expect(text.status == 0, "\(text)")
        #expect(text.stdout.split(separator: "\n").last == "ready to submit", "\(text.stdout)")
        let json = try sandbox.host(arguments + ["--json"])
        #expect(json.status == 0, "\(json)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["ready"] as? Bool == true)
    }

    @Test("a refused --set makes the text not ready as the JSON is, naming the atom")
    func refusedValue() throws {
        let sandbox = try HostSandbox()
        let text = try sandbox.host(["describe", "pay.pp.tax", "--set", "type=4"])
        #expect(text.status == 0, "\(text)")
        let verdict = text.stdout.split(separator: "\n").last.map(String.init) ?? ""
        #expect(verdict.hasPrefix("not ready: type: '4' is not one of the options"), "\(verdict)")
        #expect(try sandbox.describe("pay.pp.tax", ["type=4"]).ready == false)
    }
}
