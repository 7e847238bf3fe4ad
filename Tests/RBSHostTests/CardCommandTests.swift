import Foundation
import Testing

/// `rbs-host customers add-card|cards` and the card operations through the real binary (issue #29): the bank issues
/// a card, only its masked number is kept; its own customer blocks and unblocks it; the host's signer cannot.
@Suite("card commands")
struct CardCommandTests {
    private func customerCode(_ sandbox: HostSandbox, _ name: String) throws -> String {
        let result = try sandbox.host(["customers", "code", name])
        try #require(result.status == 0, "\(result)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("add-card issues a card on the customer's first account, masked; cards lists it; mistakes say what is wrong")
    func issueAndList() throws {
        let sandbox = try HostSandbox()
        #expect(try sandbox.host(["customers", "add", "anna"]).status == 0)
        #expect(try sandbox.host(["customers", "add", "boris"]).status == 0)
        let listed = try #require(try jsonObject(try sandbox.host(["customers", "list", "--json"]).stdout) as? [[String: Any]])
        let accounts = { (name: String) in
            ((listed.first { $0["name"] as? String == name }?["accounts"] as? [[String: Any]]) ?? []).compactMap { $0["number"] as? String }
        }
        let issued = try sandbox.host(["customers", "add-card", "anna", "--number", "4276 3800 0000 0005"])
        #expect(issued.status == 0, "\(issued)")
        #expect(issued.stdout == "card 3 issued to anna: 4276 38** **** 0005 (visa) on account \(accounts("anna")[0]), active\n")

        let table = try sandbox.host(["customers", "cards", "anna"])
        let lines = table.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
        #expect(lines.first == "id card account state reason changed entry", "\(table.stdout)")
        #expect(lines.last == "3 4276 38** **** 0005 \(accounts("anna")[0]) active — — —", "\(table.stdout)")
        let json = try #require(try jsonObject(try sandbox.host(["customers", "cards", "anna", "--json"]).stdout) as? [[String: Any]])
        #expect(json.count == 1 && json[0]["masked"] as? String == "4276 38** **** 0005" && json[0]["state"] as? String == "active")
        #expect(!table.stdout.contains("4276380000000005"))
        #expect(try sandbox.host(["customers", "cards", "boris"]).stdout == "boris has no cards (issue one with `rbs-host customers add-card`).\n")

        let luhn = try sandbox.host(["customers", "add-card", "anna", "--number", "4276380000000004"])
        #expect(luhn.status == 1 && luhn.stderr == "error: the card number is not accepted: the check digit is wrong (Luhn); a digit is mistyped\n")
        let others = try sandbox.host(["customers", "add-card", "anna", "--number", "2202200000000008", "--account", accounts("boris")[0]])
        #expect(others.status == 1 && others.stderr == "error: account \(accounts("boris")[0]) is not one of anna's accounts (see `rbs-host customers list`)\n")
        let nobody = try sandbox.host(["customers", "cards", "zed"])
        #expect(nobody.status == 1 && nobody.stderr == "error: there is no customer named 'zed' (see `rbs-host customers list`)\n")
    }

    @Test("run card.block --as the customer blocks their card; the host's signer is refused anna's card at its field")
    func blockAsCustomer() throws {
        let sandbox = try HostSandbox()
        try sandbox.initKeys()
        #expect(try sandbox.host(["customers", "add", "anna"]).status == 0)
        #expect(try sandbox.host(["customers", "add-card", "anna", "--number", "4276380000000005"]).status == 0)

        let host = try sandbox.run("card.block", ["cardNumber=4276 38** **** 0005", "reason=lost", "confirm=yes"])
        #expect(host.report.status == "invalid")
        #expect(host.report.errors.map(\.message) == ["4276 38** **** 0005 is not one of your cards: yours are 4111 11** **** 1111, 2200 00** **** 0004"])

        sandbox.step()
        let own = try sandbox.host(["run", "card.block", "--set", "cardNumber=4276 3800 0000 0005", "--set", "reason=stolen",
                                    "--set", "confirm=yes", "--as", "anna", "--code", try customerCode(sandbox, "anna"), "--json"])
        #expect(own.status == 0, "\(own)")
        let cards = try #require(try jsonObject(try sandbox.host(["customers", "cards", "anna", "--json"]).stdout) as? [[String: Any]])
        #expect(cards.first?["state"] as? String == "blocked" && cards.first?["blockReason"] as? String == "stolen")
        #expect(cards.first?["changedBySequence"] as? Int == 1)
    }
}
