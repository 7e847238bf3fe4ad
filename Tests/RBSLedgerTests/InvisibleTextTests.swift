import Foundation
import Testing
@testable import RBSLedger

/// Text a person can trust (issue 31, item 4): bidirectional controls and other invisible format characters are
/// found wherever they are, and the core bank refuses a document holding one, whatever path it came by.
@Suite("Ledger: invisible characters in document text")
struct InvisibleTextTests {
    @Test("every bidirectional control and invisible format character is found, with its code, name and position",
          arguments: [
              (0x202A, "left-to-right embedding"), (0x202B, "right-to-left embedding"), (0x202C, "pop directional formatting"),
              (0x202D, "left-to-right override"), (0x202E, "right-to-left override"), (0x2066, "left-to-right isolate"),
              (0x2067, "right-to-left isolate"), (0x2068, "first strong isolate"), (0x2069, "pop directional isolate"),
              (0x200E, "left-to-right mark"), (0x200F, "right-to-left mark"), (0x061C, "arabic letter mark"),
              (0x200B, "zero width space"), (0x2060, "word joiner"), (0xFEFF, "zero width no-break space"),
              (0x00AD, "soft hyphen"), (0x2028, "line separator"), (0x2029, "paragraph separator"),
          ])
    func found(code: UInt32, name: String) throws {
        let scalar = try #require(Unicode.Scalar(code))
        let found = try #require(InvisibleText.first(in: "За Т" + String(Character(scalar)) + "вогоды 100"))
        #expect(found.position == 5)
        #expect(found.name == name)
        #expect(found.code == "U+" + String(format: "%04X", code))
        #expect(found.description == "an invisible \(name) (\(found.code)) at position 5")
    }

    @Test("ordinary text passes: Cyrillic, Latin, digits, punctuation, a no-break space, the numero sign")
    func ordinary() {
        for text in ["ООО «Ромашка»", "Оплата по счёту № 7, НДС не облагается", "1\u{00A0}500,50", "Müller & Söhne GmbH", ""] {
            #expect(InvisibleText.first(in: text) == nil, "\(text)")
        }
    }

    @Test("the shortcut for ASCII text and the ranges with no format character agrees with Unicode's tables")
    func shortcutAgreesWithTables() throws {
        for value in UInt32(0)...0x04FF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            #expect(InvisibleText.isInvisible(scalar) == (scalar.properties.generalCategory == .format), "U+\(String(value, radix: 16))")
        }
        // Text of ASCII alone takes the bytes' shortcut; one non-ASCII format character after it is still found.
        #expect(InvisibleText.first(in: "40817810438000000001 amount=100.00") == nil)
        #expect(try #require(InvisibleText.first(in: "abc\u{00AD}")).position == 4)
    }

    private func document(_ f: Fixture, name: String, purpose: String = "Оплата по счёту 7") throws -> Document {
        try f.ledger.draft(operation: "payment.domestic", plugin: "ru.example.payments", pluginVersion: "1.0.0", fields: [
            DocumentField("from", "40817810438000000001"), DocumentField("account", "40702810900000012345"),
            DocumentField("amount", "100.00"), DocumentField("currency", "RUB"), DocumentField("bic", "044525593"),
            DocumentField("name", name), DocumentField("purpose", purpose),
        ])
    }

    @Test("the core refuses a document whose payee holds U+202E before any code, naming the field, the character and its position")
    func validateRefuses() throws {
        let f = try Fixture()
        let refusal = try #require(try f.ledger.bank.validate(try document(f, name: "ООО\u{202E} Ромашка")))
        #expect(refusal.code == .invisibleCharacter)
        #expect(refusal.message == "field \"name\" contains an invisible right-to-left override (U+202E) at position 4, which can make the text read differently from what is signed")
        let purpose = try #require(try f.ledger.bank.validate(try document(f, name: "ООО Ромашка", purpose: "за\u{200B}ём")))
        #expect(purpose.message.hasPrefix("field \"purpose\" contains an invisible zero width space (U+200B) at position 3"))
        #expect(try f.ledger.bank.validate(try document(f, name: "ООО Ромашка")) == nil)
    }

    @Test("signed anyway (a path that skipped the check): the core journals it rejected and moves no money; a basket too")
    func postingRefuses() throws {
        let f = try Fixture()
        let before = try f.balance("40817810438000000001")
        let outcome = try f.ledger.signAndPost(try document(f, name: "\u{2067}ООО Ромашка\u{2069}"), code: f.nextCode())
        guard case .rejected(_, _, let reason) = outcome else {
            Issue.record("expected a rejection, got \(outcome)")
            return
        }
        #expect(reason.code == .invisibleCharacter)
        #expect(try f.balance("40817810438000000001") == before)
        let batch = try f.ledger.bank.validate(batch: [try document(f, name: "ООО Ромашка"), try document(f, name: "ООО\u{FEFF}")])
        #expect(batch[0] == nil)
        #expect(batch[1]?.code == .invisibleCharacter)
    }
}
