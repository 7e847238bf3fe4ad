import Foundation
import RBSLedger
import Testing
@testable import RBSCore

/// ``EntryReport`` (what `journal show` and receipts say) and the PDF writer, on a real ledger and DejaVu Sans.
@Suite("Entry reports and receipts")
struct ReceiptTests {
    /// A ledger with keys, one posted payment (entry 1) and one the core rejected for want of funds (entry 2).
    private func ledger() throws -> Ledger {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rbs-receipt-tests-\(UUID().uuidString)")
        let ledger = try Ledger.create(dataDirectory: directory).ledger
        _ = try KeyStore(dataDirectory: directory).initialize(name: "Test", force: false)
        let identity = try KeyStore(dataDirectory: directory).load()
        for amount in ["1500.50", "99999999.00"] {
            let document = try ledger.draft(operation: "pay.pp.quick", plugin: "ru.example.payments.quick", pluginVersion: "1.0.0", fields: [
                DocumentField("from", "40817810438000000001"), DocumentField("account", "40702810638000000123"),
                DocumentField("amount", amount), DocumentField("currency", "RUB"), DocumentField("name", "ООО Ромашка"),
                DocumentField("purpose", "Оплата по счёту 7"), DocumentField("bic", DemoBank.bic), DocumentField("uin", "0"),
            ])
            _ = try ledger.bank.submit(signed: try identity.sign(document), publicKey: identity.publicKey)
        }
        return ledger
    }

    @Test("a receipt starts with the bank's requisites, labels every field in the review's order and leaves out the balance")
    func receiptContent() throws {
        let ledger = try ledger()
        let report = try EntryReport(sequence: 1, ledger: ledger, directory: nil, receipt: true)
        #expect(report.sections.map(\.title) == ["Bank", "Document", "Outcome", "Signature"])
        #expect(report.sections[0].rows.map(\.value) == ["the bank with BIC 044525225", "044525225", "30101810400000000225"])
        #expect(report.sections[1].rows.compactMap(\.field) == ["amount", "name", "account", "bic", "from", "purpose", "uin"])
        #expect(report.sections[1].rows.first { $0.field == "uin" }?.label == "uin")
        #expect(!report.sections.flatMap(\.rows).contains { $0.label == "Balance after" })
        let shown = try EntryReport(sequence: 1, ledger: ledger, directory: nil, receipt: false)
        #expect(shown.sections.map(\.title) == ["Document", "Outcome", "Signature"])
        #expect(shown.sections[1].rows.first { $0.label == "Balance after" }?.value == "148,499.50 RUB")
        // Without the operation's descriptor (its plugin is gone), the contract's keys under the host's captions.
        #expect(shown.sections[0].rows.first { $0.field == "amount" }.map { "\($0.label): \($0.value)" } == "Amount: 1,500.50 RUB")
        #expect(shown.sections[0].rows.first { $0.field == "bic" }?.label == "Bank")
        #expect(shown.sections[0].rows.first { $0.label == "Payer" }?.value == "Test")
    }

    @Test("a rejected entry has no receipt, and says why; journal show still shows it with its reason")
    func rejected() throws {
        let ledger = try ledger()
        #expect {
            try EntryReport(sequence: 2, ledger: ledger, directory: nil, receipt: true)
        } throws: { error in
            let text = (error as? ReceiptError)?.description ?? ""
            return text.hasPrefix("journal entry 2 was rejected (") && text.hasSuffix("only a posted (or accepted) entry has a receipt (see `journal show 2`)")
        }
        let shown = try EntryReport(sequence: 2, ledger: ledger, directory: nil, receipt: false)
        #expect(shown.sections[1].rows.first { $0.label == "Status" }?.value == "rejected")
        #expect(shown.sections[1].rows.contains { $0.label == "Reason" && !$0.value.isEmpty })
    }

    @Test("DejaVu Sans is read: Cyrillic and digits have glyphs and widths, an unknown character is glyph 0")
    func font() throws {
        let font = try TrueTypeFont(path: ReceiptFormat.fontPath)
        #expect(font.unitsPerEm == 2048)
        for scalar in "ЖЩя0a".unicodeScalars { #expect(font.glyph(scalar) != 0, "\(scalar)") }
        #expect(font.width(font.glyph("0")) == 636)  // DejaVu Sans' figures: 1303/2048 em
        #expect(font.glyph("\u{E000}") == 0)
        #expect(throws: ReceiptError.font(path: "/nonexistent.ttf", detail: "it is missing or unreadable")) {
            try TrueTypeFont(path: "/nonexistent.ttf")
        }
    }

    @Test("the PDF's cross-reference table points at every object, and its trailer at the catalog")
    func pdfStructure() throws {
        let ledger = try ledger()
        let report = try EntryReport(sequence: 1, ledger: ledger, directory: nil, receipt: true)
        let pdf = try ReceiptFormat.pdf.render(report)
        let text = String(decoding: pdf, as: Unicode.ASCII.self)
        let startxref = try #require(text.range(of: "startxref\n", options: .backwards))
        let xrefOffset = try #require(Int(text[startxref.upperBound...].prefix { $0.isNumber }))
        let xref = pdf.subdata(in: xrefOffset..<pdf.count)
        let lines = String(decoding: xref, as: Unicode.ASCII.self).split(separator: "\n")
        #expect(lines[0] == "xref")
        let count = try #require(Int(lines[1].split(separator: " ")[1]))
        for number in 1..<count {
            let offset = try #require(Int(lines[2 + number].prefix(10)))
            let header = String(decoding: pdf.subdata(in: offset..<offset + 12), as: Unicode.ASCII.self)
            #expect(header.hasPrefix("\(number) 0 obj\n"), "object \(number) at \(offset): \(header)")
        }
        #expect(text.contains("/Root \(count - 1) 0 R"))
        #expect(text.hasSuffix("%%EOF\n"))
        // The font is embedded whole.
        let font = try Data(contentsOf: URL(fileURLWithPath: ReceiptFormat.fontPath))
        #expect(pdf.range(of: font) != nil)
    }

    @Test("a long label wraps in its column: no word of the page is drawn over another (a Russian budget payment's field 107)")
    func longLabelsWrap() throws {
        var writer = PDFWriter(font: try TrueTypeFont(path: ReceiptFormat.fontPath))
        writer.heading("Квитанция")
        writer.row(label: "Налоговый период или код таможенного органа (107)", value: "МС.03.2026")
        writer.row(label: "Номер документа-основания (108)", value: "0")
        writer.row(label: "Назначение платежа", value: String(repeating: "НДФЛ за март 2026, в т.ч. НДС 20% ", count: 6))
        writer.row(label: "Хеш документа", value: String(repeating: "ab12", count: 16))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("rbs-label-\(UUID().uuidString).pdf")
        try writer.finish().write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        // Every word's box, as poppler reads the page back.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["pdftotext", "-bbox", file.path, "-"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "pdftotext (poppler-utils, make test installs it) failed")
        let words = String(decoding: data, as: UTF8.self).split(separator: "\n").filter { $0.contains("<word ") }
        let boxes: [(text: Substring, x0: Double, y0: Double, x1: Double, y1: Double)] = words.compactMap { line in
            func number(_ name: String) -> Double? {
                guard let range = line.range(of: name + "=\"") else { return nil }
                return Double(line[range.upperBound...].prefix { $0 != "\"" })
            }
            guard let x0 = number("xMin"), let y0 = number("yMin"), let x1 = number("xMax"), let y1 = number("yMax"),
                  let start = line.firstIndex(of: ">"), let end = line.lastIndex(of: "<") else { return nil }
            return (line[line.index(after: start)..<end], x0, y0, x1, y1)
        }
        #expect(boxes.count > 30)
        #expect(boxes.contains { $0.text == "(107)" } && boxes.contains { $0.text == "МС.03.2026" })
        for (i, a) in boxes.enumerated() {
            for b in boxes[(i + 1)...] {
                let overlap = min(a.x1, b.x1) - max(a.x0, b.x0) > 0.5 && min(a.y1, b.y1) - max(a.y0, b.y0) > 0.5
                #expect(!overlap, "'\(a.text)' is drawn over '\(b.text)'")
            }
        }
    }
}
