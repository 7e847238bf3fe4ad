import Foundation
import Testing

/// `rbs-host basket sign --file FILE …` (issues #18, #21): several documents, one code, each posted or rejected on
/// its own; its `--json` shape; the same request id answering the first outcomes; OCRA over the whole basket.
@Suite("basket sign")
struct BasketCommandTests {
    struct BasketJSON: Decodable {
        struct Total: Decodable, Equatable {
            var currency: String
            var amount: String
        }

        struct DocumentReport: Decodable {
            var position: Int
            var status: String
            var journal: Int64?
            var document: RunJSON.Document?
            var errors: [RunJSON.Issue]
            var posting: RunJSON.Posting?
        }

        struct Issue: Decodable, Equatable {
            var document: Int?
            var atom: String?
            var message: String
        }

        var status: String
        var basket: String?
        var totals: [Total]
        var repeated: Bool
        var documents: [DocumentReport]
        var errors: [Issue]
    }

    struct ChallengeJSON: Decodable {
        var challenge: String
        var basket: String
        var totals: [BasketJSON.Total]
        var documents: [RunJSON.Document]
    }

    static func payment(_ name: String, _ account: String, _ amount: String) -> [String: Any] {
        ["operation": "pay.pp.quick",
         "set": ["srcAccount=\(Demo.current)", "destName=\(name)", "destInn=7707083893", "destAccount=\(account)",
                 "destBic=\(Demo.bic)", "destDesc=оплата по счёту 7", "amount=\(amount)"]]
    }

    /// Writes `documents` as a basket file in the sandbox and returns its path.
    static func file(_ sandbox: HostSandbox, _ documents: [[String: Any]], name: String = "basket.json") throws -> String {
        let url = sandbox.data.appendingPathComponent(name)
        try JSONSerialization.data(withJSONObject: ["documents": documents]).write(to: url)
        return url.path
    }

    func sign(_ sandbox: HostSandbox, _ file: String, _ extra: [String],
              sourceLocation: SourceLocation = #_sourceLocation) throws -> (BasketJSON, ProcessResult) {
        let result = try sandbox.host(["basket", "sign", "--file", file] + extra + ["--json"], sourceLocation: sourceLocation)
        let report = try decode(BasketJSON.self, result.stdout, sourceLocation: sourceLocation)
        #expect(result.status == (report.status == "posted" ? 0 : 1), "\(result)", sourceLocation: sourceLocation)
        return (report, result)
    }

    @Test("three payments with one code: each posted, in one basket; the same --request-id answers the first outcomes; journal and verify know the basket")
    func threePosted() throws {
        let sandbox = try HostSandbox()
        try sandbox.initKeys()
        let file = try Self.file(sandbox, [Self.payment("ООО Ромашка", "40702810938000000001", "1 000,50"),
                                          Self.payment("ООО Лютик", Demo.external, "500"),
                                          Self.payment("ООО Василёк", "40702810938000000001", "0,50")])
        sandbox.step()
        let (report, _) = try sign(sandbox, file, ["--code", try sandbox.code(), "--request-id", "b-1"])
        #expect(report.status == "posted" && !report.repeated && report.errors.isEmpty)
        #expect(report.totals == [.init(currency: "RUB", amount: "1501.00")])
        #expect(report.documents.map(\.position) == [1, 2, 3] && report.documents.map(\.journal) == [1, 2, 3])
        #expect(report.documents.map { $0.document?.fields["name"] } == ["ООО Ромашка", "ООО Лютик", "ООО Василёк"])
        #expect(report.documents.allSatisfy { $0.status == "posted" && $0.posting?.debit == Demo.current })
        let basket = try #require(report.basket)
        #expect(basket.count == 64)

        // A retry (the same forms, so new documents) with the same request id: the first outcomes, nothing posted.
        sandbox.step()
        let (again, _) = try sign(sandbox, file, ["--code", try sandbox.code(), "--request-id", "b-1"])
        #expect(again.repeated && again.basket == basket && again.documents.map(\.journal) == [1, 2, 3])
        #expect(again.documents.map { $0.document?.id } == report.documents.map { $0.document?.id })

        let journal = try sandbox.host(["journal", "--json"])
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(journal.stdout.utf8)) as? [[String: Any]])
        #expect(entries.count == 3 && entries.allSatisfy { $0["basket"] as? String == basket })
        let show = try sandbox.host(["journal", "show", "2"])
        #expect(show.stdout.contains(basket) && show.stdout.contains("2 of 3"), "\(show)")
        let verify = try sandbox.host(["verify"])
        #expect(verify.status == 0 && verify.stdout == "ok 3 entries\n", "\(verify)")
    }

    @Test("a payment the balance no longer covers after the first is rejected on its own; the first is posted (partial, exit 1)")
    func partial() throws {
        let sandbox = try HostSandbox()
        try sandbox.initKeys()
        let file = try Self.file(sandbox, [Self.payment("ООО Ромашка", "40702810938000000001", "100000"),
                                          Self.payment("ООО Лютик", Demo.external, "60000")])
        sandbox.step()
        let (report, result) = try sign(sandbox, file, ["--code", try sandbox.code(), "--request-id", "p-1"])
        #expect(report.status == "partial" && result.status == 1)
        #expect(report.documents.map(\.status) == ["posted", "rejected"])
        #expect(report.documents[1].errors.first?.message.contains("insufficient funds") == true, "\(report.documents[1].errors)")
        // The same request id again, for people: the first outcomes, each on its line.
        let text = try sandbox.host(["basket", "sign", "--file", file, "--code", try sandbox.code(), "--request-id", "p-1"])
        let lines = text.stdout.split(separator: "\n").map(String.init)
        #expect(text.status == 1 && lines.first == "Basket \(report.basket!.prefix(16))…: 1 of 2 posted (signed before: its first outcomes)", "\(text)")
        #expect(lines.contains("  1. posted — journal entry 1") && lines.contains("  2. rejected — journal entry 2"), "\(text)")
    }

    @Test("--lang ru: the basket's outcome, each document's status and the core's reason in Russian, amounts as Russian writes them")
    func partialInRussian() throws {
        let sandbox = try HostSandbox()
        try sandbox.initKeys()
        let file = try Self.file(sandbox, [Self.payment("ООО Ромашка", "40702810938000000001", "100000"),
                                          Self.payment("ООО Лютик", Demo.external, "60000")])
        sandbox.step()
        let russian = try sandbox.host(["--lang", "ru", "basket", "sign", "--file", file, "--code", try sandbox.code()])
        let screen = russian.stdout.split(separator: "\n").map(String.init)
        #expect(russian.status == 1 && screen.count == 5 && screen[0].hasSuffix(": проведено 1 из 2"), "\(russian)")
        #expect(Array(screen.dropFirst()) == [
            "  1. проведено — запись журнала 1",
            "    \(Demo.current) → 40702810938000000001: 100\u{00A0}000,00 RUB; остаток 50\u{00A0}000,00 RUB",
            "  2. отклонено — запись журнала 2",
            "    ⚠ недостаточно средств на счёте \(Demo.current): остаток 50\u{00A0}000,00 RUB, сумма 60\u{00A0}000,00 RUB",
        ], "\(russian)")
        // Read back from the journal (journal show, the receipt) the reason is said from its journaled facts.
        let show = try sandbox.host(["--lang", "ru", "journal", "show", "2"])
        #expect(show.stdout.split(separator: "\n").map(String.init)
                    .contains("  Причина:                  недостаточно средств на счёте \(Demo.current): остаток 50\u{00A0}000,00 RUB, сумма 60\u{00A0}000,00 RUB"),
                "\(show)")
    }

    @Test("a refused value names its document and atom; nothing is signed and the code is not used")
    func invalidValue() throws {
        let sandbox = try HostSandbox()
        try sandbox.initKeys()
        var bad = Self.payment("ООО Лютик", Demo.external, "500")
        bad["set"] = (bad["set"] as! [String]).map { $0.hasPrefix("destInn=") ? "destInn=123" : $0 }
        let file = try Self.file(sandbox, [Self.payment("ООО Ромашка", "40702810938000000001", "10"), bad])
        sandbox.step()
        let code = try sandbox.code()
        let (report, _) = try sign(sandbox, file, ["--code", code])
        #expect(report.status == "invalid" && report.documents.isEmpty && report.basket == nil)
        #expect(report.errors.first?.document == 2 && report.errors.first?.atom == "destInn", "\(report.errors)")
        // The code was not spent.
        let good = try Self.file(sandbox, [Self.payment("ООО Ромашка", "40702810938000000001", "10")], name: "good.json")
        #expect(try sign(sandbox, good, ["--code", code]).0.status == "posted")
        let broken = sandbox.data.appendingPathComponent("broken.json")
        try Data(#"{"documents": [{"set": []}]}"#.utf8).write(to: broken)
        let refused = try sandbox.host(["basket", "sign", "--file", broken.path, "--code", code])
        #expect(refused.status != 0 && refused.stderr.contains("document 1 has no \"operation\""), "\(refused)")
    }

    @Test("a document repeating a payment posted in the last 24 hours stops the basket (nothing signed, the code not used) unless --confirm-duplicate")
    func duplicate() throws {
        let sandbox = try HostSandbox()
        try sandbox.initKeys()
        let first = Self.payment("ООО Ромашка", "40702810938000000001", "10")
        let posted = try sandbox.run("pay.pp.quick", first["set"] as! [String])
        #expect(posted.report.status == "posted")
        let file = try Self.file(sandbox, [Self.payment("ООО Лютик", Demo.external, "20"), first])
        sandbox.step()
        let code = try sandbox.code()
        let (refused, _) = try sign(sandbox, file, ["--code", code])
        #expect(refused.status == "invalid" && refused.errors.map(\.document) == [2], "\(refused.errors)")
        #expect(refused.errors.first?.message.contains("repeats journal entry 1") == true, "\(refused.errors)")
        let (confirmed, _) = try sign(sandbox, file, ["--code", code, "--confirm-duplicate"])
        #expect(confirmed.status == "posted" && confirmed.documents.map(\.journal) == [2, 3])
    }

    @Test("OCRA: --challenge covers the basket; the response posts it, and is refused for the same file with one amount changed")
    func ocra() throws {
        let sandbox = try HostSandbox()
        let enrolled = try sandbox.host(["keys", "init", "--name", "tester", "--method", "ocra"])
        try #require(enrolled.status == 0, "\(enrolled)")
        let documents = [Self.payment("ООО Ромашка", "40702810938000000001", "1 000,50"), Self.payment("ООО Лютик", Demo.external, "500")]
        let file = try Self.file(sandbox, documents)
        let issued = try sandbox.host(["basket", "sign", "--file", file, "--challenge", "--json"])
        try #require(issued.status == 0, "\(issued)")
        let challenge = try decode(ChallengeJSON.self, issued.stdout)
        #expect(challenge.challenge.count == 12 && challenge.documents.count == 2)
        #expect(challenge.totals == [.init(currency: "RUB", amount: "1500.50")])
        let response = try sandbox.host(["keys", "respond", challenge.challenge]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)

        // The same file with the second amount changed is another basket: the response does not answer it.
        let changed = try Self.file(sandbox, [documents[0], Self.payment("ООО Лютик", Demo.external, "500,01")], name: "changed.json")
        let (refused, _) = try sign(sandbox, changed, ["--response", response, "--basket", challenge.basket])
        #expect(refused.status == "invalid" && refused.errors.first?.message.contains("does not answer") == true, "\(refused.errors)")

        let (posted, _) = try sign(sandbox, file, ["--response", response, "--basket", challenge.basket])
        #expect(posted.status == "posted" && posted.basket == challenge.basket)
        #expect(posted.documents.map { $0.document?.id } == challenge.documents.map(\.id))
        let verify = try sandbox.host(["verify"])
        #expect(verify.stdout == "ok 2 entries\n", "\(verify)")
    }
}
