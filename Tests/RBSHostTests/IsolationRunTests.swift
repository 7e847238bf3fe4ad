import Foundation
import Testing

/// The example operations run with their plugins in sandboxed workers — the default — through the real binary.
@Suite("Runs in plugin workers")
struct IsolationRunTests {
    @Test("by default all four example operations post from sandboxed workers, and the journal verifies",
          .timeLimit(.minutes(3)))
    func examplesInWorkers() throws {
        let sandbox = try HostSandbox()
        try sandbox.initKeys()
        let runs: [(String, [String])] = [
            ("pay.pp.quick", RunTests.quick),
            ("pay.pp.tax", DescribeTaxTests.common + ["type=1", "basis=ТП", "period=КВ.02.2026"]),
            ("transfer.own", ["fromAccount=\(Demo.savings)", "toAccount=\(Demo.current)", "amount=1 000,25"]),
            ("card.block", ["cardNumber=4111111111111111", "reason=compromised", "confirm=yes"]),
        ]
        for (operation, assignments) in runs {
            sandbox.step()
            let code = try sandbox.code()
            let result = try sandbox.host(sandbox.runArguments(operation, assignments, code: code))
            let report = try decode(RunJSON.self, result.stdout)
            #expect(report.status == "posted", "\(operation): \(result)")
            #expect(!result.stderr.contains("inside the host process"), "\(result.stderr)")
        }
        let verify = try sandbox.host(["verify"])
        #expect(verify.stdout == "ok 4 entries\n", "\(verify)")
        // The setting is read, not ignored: a mode that does not exist is refused with what to write.
        let wrong = try sandbox.host(["list"], environment: ["RBS_ISOLATION": "sandbox"])
        #expect(wrong.status != 0)
        #expect(wrong.stderr.contains("RBS_ISOLATION=sandbox: use none or plugin"), "\(wrong)")
    }

    static let notice = "plugins run inside the host process (--isolation none): for development only — a plugin can read the host's keys and ledger\n"

    @Test("--isolation none (or RBS_ISOLATION=none) says at start that plugins run inside the host process")
    func inProcessSaysSo() throws {
        let sandbox = try HostSandbox()
        let flag = try sandbox.host(["list", "--isolation", "none"])
        #expect(flag.status == 0 && flag.stderr == Self.notice, "\(flag)")
        let variable = try sandbox.host(["list"], environment: ["RBS_ISOLATION": "none"])
        #expect(variable.status == 0 && variable.stderr == Self.notice, "\(variable)")
        let plain = try sandbox.host(["list"])
        #expect(plain.status == 0 && plain.stderr == "", "\(plain)")
        #expect(plain.stdout == flag.stdout)
        // A plugin pinned to none in isolation.conf is named.
        #expect(FileManager.default.createFile(atPath: sandbox.data.appendingPathComponent("isolation.conf").path,
                                               contents: Data("pay.pp.quick none\n".utf8), attributes: [.posixPermissions: 0o600]))
        let pinned = try sandbox.host(["list"])
        #expect(pinned.stderr == "plugin pay.pp.quick runs inside the host process (pinned to none in isolation.conf): for development only\n",
                "\(pinned)")
    }
}
