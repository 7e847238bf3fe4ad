import Foundation
@testable import RBSCore
import RBSLedger
import Testing

/// What a plugin hands a person to read reaches no terminal as a control sequence: titles and captions holding one are
/// refused at load and at run time, its standard error is relayed with each control named, and a document field's
/// line breaks are shown, never run.
@Suite("Plugin texts on a terminal: no escape sequence, no carriage return runs")
struct ShownTextTests {
    @Test("a title, caption or option holding ESC, CR or LF is refused naming the field and the character; a description may hold line feeds")
    func descriptorTexts() throws {
        #expect(throws: PluginProblem.descriptor(location: "operation 'x'", issue: "title holds the control character U+001B: a terminal would run it")) {
            try DescriptorReader.shown("Title\u{1B}[31mRED", "title", at: "operation 'x'") as String
        }
        #expect(throws: PluginProblem.descriptor(location: "atom 'a'", issue: "caption holds the control character U+000D: a terminal would run it")) {
            try DescriptorReader.shown("Note\rOVER", "caption", at: "atom 'a'") as String
        }
        #expect(throws: PluginProblem.self) { try DescriptorReader.shown("one\ntwo", "hint", at: "atom 'a'") as String }
        #expect(try DescriptorReader.shown("Первая строка\nвторая", "description", at: "plugin 'p'", lines: true) as String
                == "Первая строка\nвторая")
        #expect(throws: PluginProblem.self) { try DescriptorReader.shown("a\u{9B}31m", "title", at: "operation 'x'") as String }
        #expect(ShownText.control(in: "Сумма, ₽ — 1 500") == nil)
    }

    @Test("a plugin's standard error reaches the terminal with each control byte named; text, tabs, line feeds and split UTF-8 pass whole")
    func standardError() {
        let written = Array("\u{1B}]0;PWNED\u{07}\u{1B}[2Jposted OK\r\n".utf8)
        #expect(String(decoding: StderrTail.visible(written[...]), as: UTF8.self)
                == "<U+001B>]0;PWNED<U+0007><U+001B>[2Jposted OK<U+000D>\n")
        let russian = Array("ошибка:\tнет счёта\n".utf8)
        #expect(StderrTail.visible(russian[...]) == russian)
        // A chunk that ends inside a two-byte letter: passed on as it is, the next chunk completes it.
        let split = Array("ё".utf8)
        #expect(StderrTail.visible(split[..<1]) == [split[0]] && StderrTail.visible(split[1...]) == [split[1]])
        #expect(StderrTail.visible(Array([0x7F, 0x41])[...]) == Array("<U+007F>A".utf8))
    }

    @Test("a document field's carriage return or line feed is shown as ↵ in every row a person reads, never run")
    func documentLines() {
        let rows = DocumentPresentation.rows([(key: "amount", value: "12.00"), (key: "currency", value: "RUB"),
                                              (key: "comment", value: "see below\r  Amount: 1.00 RUB"),
                                              (key: "purpose", value: "Rent May\r\n  Payee: ООО Ромашка\tverified")],
                                             presentation: { key in
                                                 FieldPresentation(label: key, role: DocumentFieldRole.ofCoreKey(key) ?? .other, atom: nil)
                                             }, directory: nil, language: .en)
        let values = Dictionary(uniqueKeysWithValues: rows.compactMap { row in row.field.map { ($0, row.value) } })
        #expect(values["comment"] == "see below \u{21B5}   Amount: 1.00 RUB")
        #expect(values["purpose"] == "Rent May \u{21B5}   Payee: ООО Ромашка verified")
        #expect(!rows.contains { $0.value.contains("\r") || $0.value.contains("\n") })
    }
}
