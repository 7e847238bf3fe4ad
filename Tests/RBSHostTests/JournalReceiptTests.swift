import Foundation
import Testing

/// `journal N`, `journal show N`, the journal's filters and `journal receipt N` (text, HTML, PDF rendered by poppler).
@Suite("journal show, filters and receipts")
struct JournalReceiptTests {
    struct ShowJSON: Decodable {
        struct Section: Decodable {
            var title: String
            var rows: [Row]
        }

        struct Row: Decodable, Equatable {
            var label: String
            var value: String
            var field: String?
        }

        var entry: JournalEntryJSON
        var title: String
        var sections: [Section]

        func value(_ label: String) -> String? { sections.flatMap(\.rows).first { $0.label == label }?.value }
    }

    @Test("journal show N --json: the entry as journal --json has it, and labelled sections as the review labels the document: document, outcome, signature")
    func showJSON() throws {
        let sandbox = try HostSandbox.withTwoPostings()
        let result = try sandbox.host(["journal", "show", "1", "--json"])
        #expect(result.status == 0, "\(result)")
        #expect(keys(try jsonObject(result.stdout)) == ["entry", "title", "sections"])
        let show = try decode(ShowJSON.self, result.stdout)
        let journal = try sandbox.journal()
        #expect(show.entry.hash == journal[0].hash && show.entry.signature == journal[0].signature)
        #expect(show.title == "Journal entry 1")
        #expect(show.sections.map(\.title) == ["Document", "Outcome", "Signature"])
        let document = show.sections[0].rows
        #expect(document.contains(.init(label: "Payee", value: "ООО Ромашка", field: "name")))
        #expect(document.contains(.init(label: "Payee's account", value: Demo.external, field: "account")))
        #expect(document.contains(.init(label: "Bank", value: "\(Demo.bankName), BIC \(Demo.bic)", field: "bic")))
        #expect(document.contains(.init(label: "Amount", value: "1,500.50 RUB", field: "amount")))
        #expect(document.contains(.init(label: "Purpose", value: "Оплата по счёту 7", field: "purpose")))
        #expect(document.contains(.init(label: "Payer", value: "tester", field: nil)))
        #expect(!document.contains { $0.field == "currency" }, "the currency is shown with the amount")
        #expect(show.value("Status") == "posted")
        #expect(show.value("Balance after") == "148,499.50 RUB")
        #expect(show.value("Document hash (SHA-256)") == journal[0].documentId)
        #expect(show.value("Signature (Ed25519)") == journal[0].signature)
        #expect(show.value("Key id") == journal[0].keyId)
        #expect(show.value("Authorised with") == "TOTP one-time code (not bound to the document)")
        #expect(show.value("Entry hash") == journal[0].hash)
    }

    @Test("journal N is journal show N; text has every labelled row; an entry that does not exist is named")
    func showText() throws {
        let sandbox = try HostSandbox.withTwoPostings()
        let show = try sandbox.host(["journal", "show", "2"])
        #expect(show.status == 0)
        #expect(try sandbox.host(["journal", "2"]).stdout == show.stdout)
        let lines = show.stdout.split(separator: "\n").map(String.init)
        #expect(lines[0] == "Journal entry 2")
        #expect(lines.contains { $0.hasPrefix("  Operation:") && $0.hasSuffix(" Transfer between own accounts (transfer.own)") })
        #expect(lines.contains { $0.hasPrefix("  Debited → credited:") && $0.hasSuffix(" \(Demo.savings) → \(Demo.current)") })
        #expect(lines.contains { $0.hasPrefix("  Recorded:") && $0.hasSuffix(" 29.05.2026 20:27:40 UTC") })
        let missing = try sandbox.host(["journal", "show", "7"])
        #expect(missing.status == 1)
        #expect(missing.stderr == "error: there is no journal entry 7: the journal has entries 1–2\n")
    }

    @Test("journal filters: --operation, --account, --from/--to and --status take exactly the entries they name")
    func filters() throws {
        let sandbox = try HostSandbox.withTwoPostings()
        func sequences(_ arguments: [String]) throws -> [Int64] {
            let result = try sandbox.host(["journal", "--json"] + arguments, environment: ["TZ": "UTC"])
            #expect(result.status == 0, "\(arguments): \(result)")
            return try decode([JournalEntryJSON].self, result.stdout).map(\.sequence)
        }
        #expect(try sequences([]) == [1, 2])
        #expect(try sequences(["--operation", "transfer.own"]) == [2])
        #expect(try sequences(["--account", Demo.external]) == [1])
        #expect(try sequences(["--account", "2"]) == [2])  // the savings account's list number
        #expect(try sequences(["--account", Demo.current]) == [1, 2])
        #expect(try sequences(["--from", "29.05.2026"]) == [2])
        #expect(try sequences(["--to", "2026-05-28"]) == [1])
        #expect(try sequences(["--status", "posted", "--operation", "pay.pp.quick"]) == [1])
        #expect(try sequences(["--status", "rejected"]) == [])
        let none = try sandbox.host(["journal", "--status", "rejected"])
        #expect(none.stdout == "No journal entry matches.\n")
        let bad = try sandbox.host(["journal", "--status", "done"])
        #expect(bad.status == 1)
        #expect(bad.stderr == "error: --status 'done' is not an outcome: use posted, rejected, acknowledged or awaiting-second-signature\n")
        // --request-id still answers as before.
        let request = try sandbox.host(["journal", "--request-id", "nope", "--json"])
        #expect(request.status == 1 && request.stdout.contains("\"status\" : \"unknown\""))
    }

    @Test("journal receipt: text and HTML carry the bank's requisites, the document, its hash and the signature")
    func textAndHTML() throws {
        let sandbox = try HostSandbox.withTwoPostings()
        let entry = try sandbox.journal()[0]
        let text = try sandbox.host(["journal", "receipt", "1", "--format", "text"])
        #expect(text.status == 0, "\(text)")
        let lines = text.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0] == "Receipt for journal entry 1")
        #expect(lines[3] == "Bank")
        #expect(lines[4].hasPrefix("  Bank:") && lines[4].hasSuffix(" \(Demo.bankName)"))
        #expect(lines.contains { $0.hasPrefix("  Correspondent account:") && $0.hasSuffix(" 30101810400000000225") })
        #expect(lines.contains { $0.hasPrefix("  Document hash (SHA-256):") && $0.hasSuffix(" \(entry.documentId)") })
        #expect(lines.contains { $0.hasPrefix("  Signature (Ed25519):") && $0.hasSuffix(" \(entry.signature)") })
        #expect(!lines.contains { $0.hasPrefix("  Balance after:") }, "a receipt is handed out: no balance on it")

        let file = sandbox.data.appendingPathComponent("receipt.html")
        let html = try sandbox.host(["journal", "receipt", "1", "--format", "html", "--output", file.path])
        #expect(html.status == 0 && html.stdout.isEmpty)
        #expect(html.stderr.hasPrefix("receipt for journal entry 1 (html, "))
        let page = try String(contentsOf: file, encoding: .utf8)
        #expect(page.hasPrefix("<!DOCTYPE html>"))
        #expect(page.contains("<tr><th>Document hash (SHA-256)</th><td>\(entry.documentId)</td></tr>"))
        #expect(page.contains("<tr><th>Payee</th><td>ООО Ромашка</td></tr>"))
    }

    @Test("journal receipt --format pdf renders with poppler, and its text holds the document hash and the Cyrillic payee")
    func pdf() throws {
        let sandbox = try HostSandbox.withTwoPostings()
        let entry = try sandbox.journal()[0]
        let file = sandbox.data.appendingPathComponent("receipt.pdf")
        let result = try sandbox.host(["journal", "receipt", "1", "--output", file.path])
        #expect(result.status == 0, "\(result)")
        let bytes = try Data(contentsOf: file)
        #expect(bytes.starts(with: Data("%PDF-1.4".utf8)))
        let environment = ProcessInfo.processInfo.environment
        let text = try runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["pdftotext", "-layout", file.path, "-"], environment: environment)
        try #require(text.status == 0, "pdftotext (poppler-utils, make test installs it): \(text)")
        #expect(text.stderr.isEmpty, "poppler complains about the file: \(text.stderr)")
        let lines = text.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.contains(entry.documentId))
        #expect(lines.contains { $0.hasPrefix("Payee") && $0.hasSuffix("ООО Ромашка") })
        #expect(lines.contains { $0.hasPrefix("Purpose") && $0.hasSuffix("Оплата по счёту 7") })
        #expect(lines.first == "Receipt for journal entry 1")
        let png = sandbox.data.appendingPathComponent("receipt")
        let render = try runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["pdftoppm", "-png", "-r", "50", "-singlefile", file.path, png.path],
                                    environment: environment)
        #expect(render.status == 0 && render.stderr.isEmpty, "\(render)")
        let image = try Data(contentsOf: png.appendingPathExtension("png"))
        #expect(image.starts(with: Data([0x89, 0x50, 0x4E, 0x47])))
    }

    @Test("journal receipt refuses a bad format, a missing entry and a folder that does not exist, saying which")
    func refusals() throws {
        let sandbox = try HostSandbox.withTwoPostings()
        let format = try sandbox.host(["journal", "receipt", "1", "--format", "docx"])
        #expect(format.status == 1 && format.stderr == "error: --format 'docx' is not a receipt format: use pdf, html, text or qr\n")
        let missing = try sandbox.host(["journal", "receipt", "9", "--format", "text"])
        #expect(missing.status == 1 && missing.stdout.isEmpty)
        #expect(missing.stderr == "error: there is no journal entry 9: the journal has entries 1–2\n")
        let nowhere = try sandbox.host(["journal", "receipt", "1", "--format", "text", "--output", "/nonexistent/dir/r.txt"])
        #expect(nowhere.status == 1 && nowhere.stderr.hasPrefix("error: cannot write the receipt to /nonexistent/dir/r.txt: "))
    }
}
