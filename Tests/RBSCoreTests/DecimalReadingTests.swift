import Foundation
import RBSExpressions
import RBSMoney
import Testing
@testable import RBSCore

/// Decimal text that crosses a boundary (the worker wire, a document's stored value shown to a person) is read by the
/// one plain-decimal reader (`DecimalText`): Foundation's `Decimal(string:)` reads the longest number it finds at the
/// start, so "12abc" was 12 and "1.5 RUB" 1.50 (issue #28, item 4).
@Suite("Decimal text read at the boundaries")
struct DecimalReadingTests {
    @Test("an amount shown to a person is the text that is signed: junk after a number is shown as written, not as the number before it")
    func shownAmountIsTheSignedText() {
        #expect(Amount.shown("1500.5", currency: "RUB", .en) == "1,500.50 RUB")
        #expect(Amount.shown("1.5abc", currency: "RUB", .en) == "1.5abc RUB")
        #expect(Amount.shown("12 000", currency: "RUB", .ru) == "12 000 RUB")
        #expect(Amount.shown("1e3", currency: "RUB", .en) == "1e3 RUB")
    }

    @Test("a decimal on the worker wire is plain decimal text or the message is refused")
    func wireDecimal() throws {
        func read(_ text: String) throws(WireError) -> ExprValue {
            var writer = WireWriter(.call)
            writer.u8(3)
            writer.string(text)
            var reader = WireReader(kind: .call, payload: Array(writer.bytes.dropFirst(5)))  // after the frame's length and kind
            return try reader.expression()
        }
        #expect(try read("-12.50") == .decimal(Decimal(string: "-12.5")!))
        for junk in ["12abc", "1.5 ", " 1", "1e3", "0x10", "", "-", "1."] {
            #expect(throws: WireError.self, "\(junk)") { try read(junk) }
        }
        // What the writer writes, the reader reads back exactly.
        for value in ["0.000001", "-99999999999999999999.99", "1500"] {
            let decimal = try #require(DecimalText.parse(value))
            var writer = WireWriter(.call)
            writer.expression(.decimal(decimal))
            var reader = WireReader(kind: .call, payload: Array(writer.bytes.dropFirst(5)))  // after the frame's length and kind
            #expect(try reader.expression() == .decimal(decimal))
        }
    }

    @Test("a rate in a daily rates file is plain decimal text with a comma: leading zeros, signs, exponents and junk refused")
    func rateText() throws {
        #expect(DailyRates.decimal("92,5058") == DecimalText.parse("92.5058"))
        #expect(DailyRates.decimal(" 0,9012 ") == DecimalText.parse("0.9012"))
        #expect(DailyRates.decimal("21.5637") == DecimalText.parse("21.5637"))
        for junk in ["0092,5", "-1,5", "+1,5", "1e3", "92,5abc", "92,50,58", "", ",5", "5,", "٩٢,٥", String(repeating: "9", count: 31)] {
            #expect(DailyRates.decimal(junk) == nil, "\(junk)")
        }
    }
}
