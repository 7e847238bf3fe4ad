import Foundation
import Testing

/// Text a person can trust through the CLI (issue 31, item 4): the form refuses invisible characters, as the core does.
@Suite("describe and run: invisible characters in text")
struct InvisibleTextCommandTests {
    static let message = "\"Payee's full name or organisation name\" contains an invisible right-to-left override (U+202E) at position 4: it can make the text read differently from what is signed — type it without it"

    @Test("describe names the character on the payee's atom; run refuses, journals nothing, spends no code")
    func refused() throws {
        let sandbox = try HostSandbox()
        let assignments = RunTests.quick.map { $0.hasPrefix("destName=") ? "destName=ООО\u{202E} Ромашка" : $0 }
        let form = try sandbox.describe("pay.pp.quick", assignments)
        #expect(form["destName"].error == Self.message)
        #expect(form.ready == false)

        try sandbox.initKeys()
        sandbox.step()
        let code = try sandbox.code()
        let result = try sandbox.host(sandbox.runArguments("pay.pp.quick", assignments, code: code))
        #expect(result.status != 0)
        let report = try decode(RunJSON.self, result.stdout)
        #expect(report.status == "invalid")
        #expect(report.errors == [RunJSON.Issue(atom: "destName", message: "destName: " + Self.message)], "\(report.errors)")
        #expect(try sandbox.journal().isEmpty)
    }
}
