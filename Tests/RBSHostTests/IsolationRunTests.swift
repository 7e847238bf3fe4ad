import Foundation
import Testing

/// The example operations run with their plugins in workers (RBS_ISOLATION=plugin), through the real binary.
@Suite("Runs in plugin workers")
struct IsolationRunTests {
    @Test("with RBS_ISOLATION=plugin all four example operations post, and the journal verifies",
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
            let result = try sandbox.host(sandbox.runArguments(operation, assignments, code: code),
                                          environment: ["RBS_ISOLATION": "plugin"])
            let report = try decode(RunJSON.self, result.stdout)
            #expect(report.status == "posted", "\(operation): \(result)")
        }
        let verify = try sandbox.host(["verify"])
        #expect(verify.stdout == "ok 4 entries\n", "\(verify)")
        // The setting is read, not ignored: a mode that does not exist is refused with what to write.
        let wrong = try sandbox.host(["list"], environment: ["RBS_ISOLATION": "sandbox"])
        #expect(wrong.status != 0)
        #expect(wrong.stderr.contains("RBS_ISOLATION=sandbox: use none or plugin"), "\(wrong)")
    }
}
