import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import RBSLedger
import RBSMoney

/// The Bank of Russia's daily rates as it publishes them (`https://www.cbr.ru/scripts/XML_daily.asp`, windows-1251):
/// `<ValCurs Date="ДД.ММ.ГГГГ">`, then a `<Valute>` per currency with NumCode, CharCode, Nominal, Name and Value
/// (rubles for Nominal units, with a decimal comma). Every rate is checked; the first problem stops the import and
/// names the currency and the element.
public struct DailyRates: Sendable, Equatable {
    /// The day the rates are for (YYYY-MM-DD).
    public var date: String
    public var rates: [OfficialRate]

    /// Reads `data` (the file as published); `file` names it in errors.
    public static func read(_ data: Data, file: String) throws(DailyRatesError) -> DailyRates {
        let reader = Reader(file: file)
        let parser = XMLParser(data: ED807Reader.utf8(data))
        parser.delegate = reader
        let ok = parser.parse()
        if let failure = reader.failure { throw failure }
        guard ok else {
            throw .malformed(file: file, line: parser.lineNumber,
                             reason: parser.parserError.map { ($0 as NSError).localizedDescription } ?? "not XML")
        }
        guard let date = reader.date else { throw .notDailyRates(file: file) }
        guard !reader.rates.isEmpty else { throw .empty(file: file) }
        return DailyRates(date: date, rates: reader.rates)
    }

    /// `92,5058` (or `92.5058`): digits without leading zeros, a decimal separator and digits, as `DecimalText` reads.
    public static func decimal(_ text: String) -> Decimal? {
        // The file's decimal comma is the only difference from the core's plain decimal text (one reader of it).
        let plain = text.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: ",", with: ".")
        guard !plain.hasPrefix("-") else { return nil }
        return DecimalText.parse(plain)
    }

    private final class Reader: NSObject, XMLParserDelegate {
        let file: String
        var date: String?
        var rates: [OfficialRate] = []
        var failure: DailyRatesError?
        private var fields: [String: String]?
        private var text = ""
        private var seen = Set<String>()

        init(file: String) { self.file = file }

        private func fail(_ parser: XMLParser, _ error: DailyRatesError) {
            guard failure == nil else { return }
            failure = error
            parser.abortParsing()
        }

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                    qualifiedName: String?, attributes: [String: String] = [:]) {
            switch elementName {
            case "ValCurs":
                do throws(CalendarDayError) {
                    date = try CalendarDay.parse(attributes["Date"] ?? "", .dotted).iso
                } catch {
                    return fail(parser, .invalid(file: file, line: parser.lineNumber, currency: nil, element: "ValCurs",
                                                 reason: "Date \"\(attributes["Date"] ?? "")\" is \(error.reason)"))
                }
            case "Valute":
                guard date != nil else { return fail(parser, .notDailyRates(file: file)) }
                fields = [:]
            default:
                text = ""
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            guard fields != nil else { return }
            if elementName != "Valute" {
                fields?[elementName] = text.trimmingCharacters(in: .whitespacesAndNewlines)
                return
            }
            let found = fields ?? [:]
            fields = nil
            let code = found["CharCode"] ?? ""
            func invalid(_ element: String, _ reason: String) {
                fail(parser, .invalid(file: file, line: parser.lineNumber, currency: code.isEmpty ? nil : code,
                                      element: element, reason: reason))
            }
            guard code.count == 3, code.allSatisfy({ $0.isASCII && $0.isUppercase }) else {
                return invalid("CharCode", "\"\(code)\" is not three capital letters")
            }
            let numeric = found["NumCode"] ?? ""
            guard numeric.count == 3, numeric.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                return invalid("NumCode", "\"\(numeric)\" is not three digits")
            }
            guard let nominal = Int(found["Nominal"] ?? ""), nominal > 0 else {
                return invalid("Nominal", "\"\(found["Nominal"] ?? "")\" is not a whole number of units above 0")
            }
            guard let value = DailyRates.decimal(found["Value"] ?? ""), value > 0 else {
                return invalid("Value", "\"\(found["Value"] ?? "")\" is not a rate in rubles (92,5058)")
            }
            guard seen.insert(code).inserted else { return invalid("CharCode", "\(code) appears twice") }
            rates.append(OfficialRate(currency: code, numericCode: numeric, name: found["Name"] ?? code, nominal: nominal,
                                      value: value))
        }

        func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
            fail(parser, .malformed(file: file, line: parser.lineNumber, reason: (parseError as NSError).localizedDescription))
        }
    }
}

/// Why a file is not the Bank of Russia's daily rates.
public enum DailyRatesError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(file: String)
    case malformed(file: String, line: Int, reason: String)
    case notDailyRates(file: String)
    case empty(file: String)
    case invalid(file: String, line: Int, currency: String?, element: String, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let file): "\(file): no such file, or it cannot be read"
        case .malformed(let file, let line, let reason): "\(file):\(line): not XML: \(reason)"
        case .notDailyRates(let file):
            "\(file): not the Bank of Russia's daily rates (XML_daily.asp: <ValCurs Date=\"ДД.ММ.ГГГГ\"> with <Valute> elements)"
        case .empty(let file): "\(file): no <Valute> rates in the file"
        case .invalid(let file, let line, let currency, let element, let reason):
            "\(file):\(line): \(currency.map { "\($0): " } ?? "")<\(element)> \(reason)"
        }
    }
}
