import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import RBSMoney

/// Reads an ED807 document (the Bank of Russia's BIC directory, UFEBS XML) into ``Bank`` entries.
///
/// Files as published are in windows-1251; they are converted to UTF-8 first. Every entry is checked: a BIC of 9
/// digits, a participant name, accounts of 20 digits; the first problem stops the import with its line and element.
final class ED807Reader: NSObject, XMLParserDelegate {
    private let file: String
    private(set) var banks: [Bank] = []
    private(set) var date: String?
    private var failure: DirectoryError?
    private var sawRoot = false
    private var current: Bank?
    private var currentLine = 0
    private var accounts: [(number: String, type: String, active: Bool)] = []
    private var seen = Set<String>()
    private weak var parser: XMLParser?

    init(file: String) { self.file = file }

    func read(_ data: Data) throws(DirectoryError) {
        let document = Self.utf8(data)
        if let (line, reason) = Self.encodingProblem(document) { throw .malformed(file: file, line: line, reason: reason) }
        let parser = XMLParser(data: document)
        self.parser = parser
        parser.delegate = self
        parser.shouldProcessNamespaces = false
        let ok = parser.parse()
        if let failure { throw failure }
        if !ok {
            let reason = parser.parserError.map { ($0 as NSError).localizedDescription } ?? "unknown error"
            throw .malformed(file: file, line: parser.lineNumber, reason: reason)
        }
        guard sawRoot else { throw .notED807(file: file, root: "(none)") }
        guard !banks.isEmpty else { throw .empty(file: file) }
    }

    /// The document as UTF-8: a windows-1251 document (as the Bank of Russia publishes it) is converted and its
    /// declaration changed to match.
    static func utf8(_ data: Data) -> Data {
        let head = String(decoding: data.prefix(200), as: UTF8.self).lowercased()
        guard head.hasPrefix("<?xml"), head.contains("windows-1251") || head.contains("cp1251"),
              let text = String(data: data, encoding: .windowsCP1251) else { return data }
        var converted = text
        if let end = converted.range(of: "?>") {
            let declaration = converted[..<end.upperBound]
            let fixed = declaration.replacingOccurrences(of: "windows-1251", with: "UTF-8", options: .caseInsensitive)
                .replacingOccurrences(of: "cp1251", with: "UTF-8", options: .caseInsensitive)
            converted.replaceSubrange(..<end.upperBound, with: fixed)
        }
        return Data(converted.utf8)
    }

    /// Why the document (after ``utf8(_:)``) is not one XMLParser should see, with its line: only UTF-8 reaches
    /// libxml2. Any other encoding it would convert itself, and one of those conversions crashed the host (FuzzED807
    /// found a document declared UTF-7 that makes libxml2 read through a NULL pointer inside `xmlParseChunk`); an
    /// ED807 file is windows-1251 (converted above) or UTF-8 in any case. NUL bytes are refused too (XML has no
    /// U+0000, and "<\0" is how libxml2 recognises UTF-16 without a byte order mark).
    static func encodingProblem(_ document: Data) -> (line: Int, reason: String)? {
        let bytes = [UInt8](document)
        var line = 1, start = 0
        for index in 0...bytes.count {
            guard index == bytes.count || bytes[index] == 0x0A || bytes[index] == 0 else { continue }
            if String(validating: bytes[start..<index], as: UTF8.self) == nil {
                return (line, "it is not UTF-8 (a windows-1251 file says so in its XML declaration)")
            }
            if index < bytes.count, bytes[index] == 0 { return (line, "it holds a NUL byte (XML has no U+0000; UTF-16 is not an ED807 encoding)") }
            line += 1
            start = index + 1
        }
        // A processing instruction other than the declaration: FoundationXML passes its data to strlen without a check
        // and crashes on one without data (FuzzED807: `<?xibm5347p1001998.?>`). ED807 has none, so none is read.
        let declarationAt = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        let isDeclaration = bytes.count > declarationAt + 5 && Array(bytes[declarationAt..<declarationAt + 5]) == Array("<?xml".utf8)
            && [0x20, 0x09, 0x0D, 0x0A].contains(bytes[declarationAt + 5])
        var lineOfMark = 1
        for index in bytes.indices {
            if bytes[index] == 0x0A { lineOfMark += 1 }
            if index > 0, bytes[index] == UInt8(ascii: "?"), bytes[index - 1] == UInt8(ascii: "<"),
               !(isDeclaration && index - 1 == declarationAt) {
                return (lineOfMark, "it holds a processing instruction (<?…?>) after the XML declaration; ED807 has none")
            }
        }
        var head = bytes.prefix(200)[...]
        if head.starts(with: [0xEF, 0xBB, 0xBF]) { head = head.dropFirst(3) }
        let text = String(decoding: head, as: UTF8.self)
        guard text.hasPrefix("<?xml") else { return nil }
        // Up to the first '>', or all of the head: libxml2 switches to the declared encoding as soon as it has read
        // it, before it finds the declaration malformed (FuzzED807: `encoding="UTF-7"@>` crashed it just the same).
        let declaration = text.prefix { $0 != ">" }
        guard let key = declaration.range(of: "encoding") else { return nil }
        let value = declaration[key.upperBound...].drop { $0 == " " || $0 == "=" || $0 == "\"" || $0 == "'" }
            .prefix { $0 != "\"" && $0 != "'" && $0 != " " }
        guard !["utf-8", "utf8"].contains(value.lowercased()) else { return nil }
        return (1, "it declares encoding \"\(value)\"; an ED807 file is windows-1251 (as the Bank of Russia publishes it) or UTF-8")
    }

    private func fail(_ element: String, _ reason: String) {
        guard failure == nil else { return }
        failure = .invalidEntry(file: file, line: parser?.lineNumber ?? 0, element: element, reason: reason)
        parser?.abortParsing()
    }

    private static func localName(_ name: String) -> String {
        name.split(separator: ":").last.map(String.init) ?? name
    }

    private static func isDigits(_ text: String, _ count: Int) -> Bool {
        text.utf8.count == count && text.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    /// A day that exists, written YYYY-MM-DD (ASCII digits only: the money module's one day reader).
    private static func isDate(_ text: String) -> Bool {
        (try? CalendarDay.parse(text, .iso)) != nil
    }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName: String?, attributes: [String: String] = [:]) {
        let name = Self.localName(elementName)
        if !sawRoot {
            guard name == "ED807" else {
                failure = .notED807(file: file, root: name)
                parser.abortParsing()
                return
            }
            sawRoot = true
            if let edDate = attributes["EDDate"] {
                guard Self.isDate(edDate) else { return fail(name, "EDDate \"\(edDate)\" is not a date YYYY-MM-DD") }
                date = edDate
            } else {
                return fail(name, "EDDate (the directory's date) is missing")
            }
            return
        }
        switch name {
        case "BICDirectoryEntry":
            let bic = attributes["BIC"] ?? ""
            guard Self.isDigits(bic, 9) else { return fail(name, "BIC \"\(bic)\" is not 9 digits") }
            guard seen.insert(bic).inserted else { return fail(name, "BIC \(bic) appears twice") }
            current = Bank(bic: bic, name: "", correspondentAccount: "", city: "")
            currentLine = parser.lineNumber
            accounts = []
        case "ParticipantInfo":
            guard current != nil else { return fail(name, "outside a BICDirectoryEntry") }
            let participant = (attributes["NameP"] ?? "").trimmingCharacters(in: .whitespaces)
            guard !participant.isEmpty else { return fail(name, "NameP (the participant's name) is missing") }
            current?.name = participant
            current?.city = attributes["Nnp"] ?? ""
            if let dateOut = attributes["DateOut"] {
                guard Self.isDate(dateOut) else { return fail(name, "DateOut \"\(dateOut)\" is not a date YYYY-MM-DD") }
                current?.closedOn = dateOut
            } else if attributes["ParticipantStatus"] == "PSDL" {
                current?.closedOn = date ?? ""
            }
        case "Accounts":
            guard current != nil else { return fail(name, "outside a BICDirectoryEntry") }
            let number = attributes["Account"] ?? ""
            guard Self.isDigits(number, 20) else { return fail(name, "Account \"\(number)\" is not 20 digits") }
            let active = attributes["AccountStatus"].map { $0 == "ACAC" } ?? (attributes["DateOut"] == nil)
            accounts.append((number, attributes["RegulationAccountType"] ?? "", active))
        default:
            break
        }
    }

    /// libxml2 may recover from an error and go on; the first error stops the import all the same.
    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        guard failure == nil else { return }
        failure = .malformed(file: file, line: parser.lineNumber, reason: (parseError as NSError).localizedDescription)
        parser.abortParsing()
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        guard Self.localName(elementName) == "BICDirectoryEntry", var bank = current else { return }
        guard !bank.name.isEmpty else {
            failure = failure ?? .invalidEntry(file: file, line: currentLine, element: "BICDirectoryEntry",
                                               reason: "BIC \(bank.bic) has no ParticipantInfo")
            parser.abortParsing()
            return
        }
        // The account a payment names with this BIC: a bank's correspondent account (CRSA) or a treasury office's
        // single treasury account (UTRA); else the first active one.
        let usable = accounts.filter(\.active)
        bank.correspondentAccount = (usable.first { $0.type == "CRSA" || $0.type == "UTRA" } ?? usable.first)?.number ?? ""
        banks.append(bank)
        current = nil
    }
}
