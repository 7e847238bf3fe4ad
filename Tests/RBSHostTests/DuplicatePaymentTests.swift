import Foundation
import Testing

/// The duplicate warning: the same payee, account, amount and purpose posted in the last 24 hours.
@Suite("duplicate payments")
struct DuplicatePaymentTests {
    @Test("run refuses a repeat within 24 hours unless --confirm-duplicate, without using the code; a changed amount or a day later posts")
    func run() throws {
        let sandbox = try HostSandbox()
        try sandbox.initKeys()
        #expect(try sandbox.run("pay.pp.quick", RunTests.quick, confirmDuplicate: false).report.status == "posted")
        sandbox.step()
        let code = try sandbox.code()
        let (again, process) = try sandbox.run("pay.pp.quick", RunTests.quick, code: code, confirmDuplicate: false)
        #expect(again.status == "invalid" && again.journal == nil)
        #expect(again.errors.map(\.message) == [
            "this payment repeats journal entry 1, posted 28.05.2026 20:27:10 UTC: the same payee, account, amount and purpose "
                + "within 24 hours; nothing was signed or posted — run it again with --confirm-duplicate to post it anyway",
        ])
        #expect(process.status == 1)
        #expect(try sandbox.journal().count == 1)
        // The code was not looked at: the same code posts once confirmed.
        let confirmed = try sandbox.host(sandbox.runArguments("pay.pp.quick", RunTests.quick, code: code, confirmDuplicate: true))
        #expect(confirmed.status == 0, "\(confirmed)")
        #expect(try decode(RunJSON.self, confirmed.stdout).journal == 2)
        // Another amount is another payment.
        var other = RunTests.quick
        other[other.count - 1] = "amount=1 500,51"
        #expect(try sandbox.run("pay.pp.quick", other, confirmDuplicate: false).report.status == "posted")
        // After 24 hours the same payment is no longer a repeat.
        sandbox.clock += 24 * 60 * 60 + 60
        #expect(try sandbox.run("pay.pp.quick", RunTests.quick, confirmDuplicate: false).report.status == "posted")
        #expect(try sandbox.host(["verify"]).stdout == "ok 4 entries\n")
    }

    @Test("the REPL asks before signing a repeat: no returns to the form with nothing posted, yes goes on to the code")
    func repl() throws {
        let sandbox = try HostSandbox()
        try sandbox.initKeys()
        #expect(try sandbox.run("pay.pp.quick", RunTests.quick).report.status == "posted")
        sandbox.step()
        let code = try sandbox.code()
        let run = "run pay.pp.quick " + RunTests.quick.map { "'\($0)'" }.joined(separator: " ")
        // Every atom is prefilled: Enter keeps each value (8 atoms), and one more submits.
        let form = String(repeating: "\n", count: 9)
        let script = "\(run)\n\(form)maybe\nno\ncancel\n\(run)\n\(form)yes\n\(code)\njournal --json\nquit\n"
        let (status, out, err) = try sandbox.repl(script)
        #expect(status == 0)
        let warning = "Warning: this payment repeats journal entry 1, posted 28.05.2026 20:27:10 UTC: the same payee, account, amount and purpose within 24 hours."
        #expect(out.components(separatedBy: warning).count == 3, "asked twice:\n\(out)\n\(err)")
        #expect(err.contains("error: answer yes or no"))
        #expect(out.contains("posted — journal entry 2"), "\(out)\n\(err)")
        #expect(try sandbox.journal().count == 2)
    }
}
