import Foundation
import Testing

/// A payment with a fee through the one-shot commands (issue #32 item 4): `run`'s line and JSON, `journal show`,
/// `journal receipt` and `statement` render the amount, the fee and the total debited.
@Suite("Fees in run, journal and statement")
struct FeeCommandTests {
    static let topUp = ["srcAccount=\(Demo.current)", "operatorCode=mts", "phone=9161234567", "amount=2500"]

    @Test("the form's fee line, written by the plugin while it runs, is in the reader's language (rbs.run-texts/1)")
    func liveFeeLine() throws {
        let sandbox = try HostSandbox()
        #expect(try sandbox.describe("topup.mobile", Self.topUp)["feeInfo"].caption == "Fee 1%: 25.00 ₽, total debited 2525.00 ₽")
        #expect(try sandbox.describe("topup.mobile", Self.topUp, language: "ru")["feeInfo"].caption
                == "Комиссия 1%: 25,00 ₽, к списанию 2525,00 ₽")
        // Before an amount: the declared line, translated by rbs.texts/1.
        #expect(try sandbox.describe("topup.mobile", [], language: "ru")["feeInfo"].caption == "Комиссия 1% (не меньше 1 ₽)")
        #expect(try sandbox.describe("topup.mobile", [])["feeInfo"].caption == "Fee 1% (at least 1 ₽)")
    }

    @Test("run prints amount + fee = total; its JSON posting has fee, feeAccount, totalDebited; journal show, the receipt and the statement show them")
    func rendered() throws {
        let sandbox = try HostSandbox()
        try sandbox.initKeys()
        sandbox.step()
        let json = try sandbox.host(sandbox.runArguments("topup.mobile", Self.topUp, code: try sandbox.code()))
        #expect(json.status == 0, "\(json)")
        let object = try #require(try jsonObject(json.stdout) as? [String: Any])
        let posting = try #require(object["posting"] as? [String: String])
        #expect(posting == ["debit": Demo.current, "credit": "40702810100000001234", "amount": "2500.00", "currency": "RUB",
                            "balanceAfter": "147475.00", "fee": "25.00", "feeAccount": "70601810300000000001", "totalDebited": "2525.00"])

        sandbox.step()
        let text = try sandbox.host(["run", "topup.mobile"] + Self.topUp.flatMap { ["--set", $0] } + ["--code", try sandbox.code(), "--confirm-duplicate"])
        #expect(text.status == 0, "\(text)")
        #expect(text.stdout.split(separator: "\n").map(String.init).contains(
            "  \(Demo.current) → 40702810100000001234: 2,500.00 RUB + fee 25.00 RUB = 2,525.00 RUB; balance now 144,950.00 RUB"), "\(text.stdout)")

        let shown = try sandbox.host(["journal", "show", "1"])
        let rows = shown.stdout.split(separator: "\n").map { $0.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) } }
        for row in [["Amount", "2,500.00 RUB"], ["Fee", "25.00 RUB"], ["Total debited", "2,525.00 RUB"],
                    ["Fee posted", "25.00 RUB: \(Demo.current) → 70601810300000000001"]] {
            #expect(rows.contains(row), "\(row) in \(shown.stdout)")
        }
        let receipt = try sandbox.host(["journal", "receipt", "1", "--format", "text", "--lang", "ru"])
        #expect(receipt.stdout.split(separator: "\n").contains { $0.hasPrefix("  Всего к списанию:") && $0.hasSuffix(" 2\u{A0}525,00 RUB") },
                "\(receipt.stdout)")

        let statement = try sandbox.host(["statement", Demo.current, "--json"])
        let lines = try #require((try jsonObject(statement.stdout) as? [String: Any])?["lines"] as? [[String: Any]])
        #expect(lines.map { "\($0["journal"] as? Int ?? 0) \($0["kind"] as? String ?? "") \($0["amount"] as? String ?? "")" }
                == ["1 payment -2500.00", "1 fee -25.00", "2 payment -2500.00", "2 fee -25.00"])
        let verify = try sandbox.host(["verify"])
        #expect(verify.status == 0, "\(verify)")
    }
}
