import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import RBSMoney
import Testing

/// The generated table against its one source, ISO 4217 list one (`Sources/RBSMoney/Currency/iso4217-list-one.xml`).
@Suite struct CurrencyTests {
    /// Every `Ccy` / `CcyMnrUnts` pair of the committed list one, read with Foundation's XML parser.
    static func listOne() throws -> [(code: String, units: String, number: Int)] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/RBSMoney/Currency/iso4217-list-one.xml")
        let reader = ListOneReader()
        let parser = XMLParser(data: try Data(contentsOf: url))
        parser.delegate = reader
        #expect(parser.parse(), "list one must parse: \(String(describing: parser.parserError))")
        return reader.entries
    }

    @Test func everyCurrencyOfListOneHasItsMinorUnits() throws {
        let entries = try Self.listOne()
        #expect(entries.count > 250)
        var codes = Set<String>()
        for entry in entries {
            codes.insert(entry.code)
            if entry.units == "N.A." {
                #expect(Currency(code: entry.code) == nil, "\(entry.code) has no minor units")
                #expect(throws: CurrencyError.noMinorUnits(entry.code)) { try Currency.named(entry.code) }
            } else {
                let currency = try #require(Currency(code: entry.code), "\(entry.code) is missing")
                #expect(currency.minorUnits == Int(entry.units), "\(entry.code)")
                #expect(currency.number == entry.number, "\(entry.code)")
            }
        }
        // And nothing in the table that list one does not have.
        #expect(Set(Currency.all.map(\.code)).isSubset(of: codes))
        #expect(Currency.all.count == Set(entries.filter { $0.units != "N.A." }.map(\.code)).count)
    }

    /// Independently known values, so a wrong source file is caught as well as a wrong generator.
    @Test func wellKnownMinorUnits() {
        let expected = ["RUB": 2, "USD": 2, "EUR": 2, "JPY": 0, "KRW": 0, "BHD": 3, "KWD": 3, "TND": 3, "CLF": 4,
                        "UYW": 4, "ISK": 0, "VND": 0, "XOF": 0, "IQD": 3]
        for (code, units) in expected { #expect(Currency(code: code)?.minorUnits == units, "\(code)") }
    }

    @Test func codesAreCaseInsensitiveAndUnknownOnesAreRefused() {
        #expect(Currency(code: "bhd")?.code == "BHD")
        #expect(Currency(code: "rub") == Currency.rub)
        #expect(Currency(code: "XYZ") == nil)
        #expect(throws: CurrencyError.unknown("XYZ")) { try Currency.named("XYZ") }
        #expect(Currency(code: "XAU") == nil)
    }
}

private final class ListOneReader: NSObject, XMLParserDelegate {
    var entries: [(code: String, units: String, number: Int)] = []
    private var text = ""
    private var code: String?
    private var units: String?
    private var number: Int?

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        text = ""
        if name == "CcyNtry" { (code, units, number) = (nil, nil, nil) }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
        switch name {
        case "Ccy": code = value
        case "CcyMnrUnts": units = value
        case "CcyNbr": number = Int(value)
        case "CcyNtry":
            if let code, let units, let number { entries.append((code, units, number)) }
        default: break
        }
    }
}
