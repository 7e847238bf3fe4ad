import Foundation

/// A payment QR code's text by ГОСТ Р 56042-2014 ("Стандарты финансовых операций. Символы двумерного штрихового
/// кода для осуществления платежей физических лиц"): `ST0001` (format and version), one digit for the encoding
/// (1 windows-1251, 2 UTF-8, 3 KOI8-R), one separator character (usually `|`), then `Name=value` fields separated by
/// it. Five fields are required (Name, PersonalAcc, BankName, BIC, CorrespAcc); the rest are optional, `Sum` in
/// kopecks. Reading keeps every field in its order — a field this parser does not know is kept, never dropped — and
/// checks only what the standard fixes (the header, the required fields, the digits of accounts, BIC and sum); the
/// form the values go to checks them as it checks typed ones.
public struct PaymentQR: Sendable, Equatable {
    /// The encoding digit after `ST0001`.
    public enum Encoding: Character, Sendable, CaseIterable {
        case windows1251 = "1", utf8 = "2", koi8r = "3"

        public var name: String {
            switch self {
            case .windows1251: "windows-1251"
            case .utf8: "UTF-8"
            case .koi8r: "KOI8-R"
            }
        }
    }

    /// One `key=value` field as read: the key spelled as the standard spells it when it is one of the standard's.
    public struct Field: Sendable, Equatable {
        public var key: String
        public var value: String
        public init(_ key: String, _ value: String) {
            self.key = key
            self.value = value
        }
    }

    public var encoding: Encoding
    public var separator: Character
    public var fields: [Field]

    /// The header before the encoding digit: the format id `ST` and version `0001`.
    public static let header = "ST0001"
    /// The required fields, in the standard's order.
    public static let requiredKeys = ["Name", "PersonalAcc", "BankName", "BIC", "CorrespAcc"]
    /// The standard's optional fields (its table 2), spelled as it spells them.
    public static let optionalKeys = [
        "Sum", "Purpose", "PayeeINN", "PayerINN", "DrawerStatus", "KPP", "CBC", "OKTMO", "PaytReason", "TaxPeriod",
        "DocNo", "DocDate", "TaxPaytKind", "LastName", "FirstName", "MiddleName", "PayerAddress", "PersonalAccount",
        "DocIdx", "PensAcc", "Contract", "PersAcc", "Flat", "Phone", "PayerIdType", "PayerIdNum", "ChildFio",
        "BirthDate", "PaymTerm", "PaymPeriod", "Category", "ServiceName", "CounterId", "CounterVal", "QuittId",
        "QuittDate", "InstNum", "ClassNum", "SpecFio", "AddAmount", "RuleId", "ExecId", "RegType", "UIN", "TechCode",
    ]
    /// The fields that make a payment a budget payment (taxes, duties, fines): their presence opens the budget form.
    public static let budgetKeys = ["CBC", "OKTMO", "DrawerStatus", "PaytReason", "TaxPeriod", "TaxPaytKind", "UIN"]

    private static let canonicalKeys: [String: String] = Dictionary(
        uniqueKeysWithValues: (requiredKeys + optionalKeys).map { ($0.lowercased(), $0) })

    public init(encoding: Encoding = .utf8, separator: Character = "|", fields: [Field]) {
        self.encoding = encoding
        self.separator = separator
        self.fields = fields
    }

    /// The value of `key` (the standard's spelling, any case), or nil.
    public subscript(key: String) -> String? {
        let wanted = key.lowercased()
        return fields.first { $0.key.lowercased() == wanted }?.value
    }

    /// Whether any budget field (КБК, ОКТМО, payer status, УИН …) is present.
    public var isBudgetPayment: Bool { Self.budgetKeys.contains { self[$0] != nil } }

    /// The sum in rubles (`Sum` is in kopecks), or nil when the code carries none.
    public var sum: Money? {
        guard let kopecks = self["Sum"].flatMap({ Int64($0) }) else { return nil }
        return Money(minorUnits: kopecks, currency: .rub)
    }

    /// Reads the bytes of a QR code: the header's encoding digit says how the rest is written.
    public static func parse(bytes: [UInt8]) throws(PaymentQRError) -> PaymentQR {
        let headerBytes = Array(header.utf8)
        guard bytes.count > headerBytes.count, Array(bytes.prefix(headerBytes.count)) == headerBytes else {
            throw .notPaymentQR(prefix: String(decoding: bytes.prefix(12), as: UTF8.self))
        }
        let digit = Character(Unicode.Scalar(bytes[headerBytes.count]))
        guard let encoding = Encoding(rawValue: digit) else { throw .unknownEncoding(digit) }
        let body = bytes.dropFirst(headerBytes.count + 1)
        let text: String
        switch encoding {
        case .utf8:
            guard let decoded = String(validating: body, as: UTF8.self) else {
                throw .notInEncoding(encoding, offset: (UnicodeText.firstInvalidUTF8(in: body) ?? 0) + headerBytes.count + 1)
            }
            text = decoded
        case .windows1251, .koi8r:
            switch (encoding == .koi8r ? CyrillicCodePage.koi8r : .windows1251).decode(body) {
            case .success(let decoded): text = decoded
            case .failure(let undefined): throw .notInEncoding(encoding, offset: undefined.offset + headerBytes.count + 1)
            }
        }
        return try parseBody(text, encoding: encoding)
    }

    /// Reads text already decoded (typed, pasted, or given by a scanner that converted it): the encoding digit is
    /// kept as written but the text is taken as it is.
    public static func parse(text: String) throws(PaymentQRError) -> PaymentQR {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.hasPrefix(header), trimmed.count > header.count else {
            throw .notPaymentQR(prefix: String(trimmed.prefix(12)))
        }
        let digit = trimmed[trimmed.index(trimmed.startIndex, offsetBy: header.count)]
        guard let encoding = Encoding(rawValue: digit) else { throw .unknownEncoding(digit) }
        return try parseBody(String(trimmed.dropFirst(header.count + 1)), encoding: encoding)
    }

    /// The part after the encoding digit: the separator, then the fields.
    static func parseBody(_ body: String, encoding: Encoding) throws(PaymentQRError) -> PaymentQR {
        // Scanners often end the text with a line break; it is never part of a value.
        let body = body.trimmingCharacters(in: .newlines)
        guard let separator = body.first, separator != "=", !separator.isLetter, !separator.isNumber else {
            throw .noSeparator
        }
        var fields: [Field] = []
        for (index, part) in body.dropFirst().split(separator: separator, omittingEmptySubsequences: false).enumerated() {
            // A separator at the very end leaves an empty part: not a field.
            if part.isEmpty { continue }
            guard let equals = part.firstIndex(of: "="), equals != part.startIndex else {
                throw .malformedField(position: index + 1, text: String(part.prefix(40)))
            }
            let written = String(part[..<equals])
            let key = canonicalKeys[written.lowercased()] ?? written
            let value = String(part[part.index(after: equals)...])
            if fields.contains(where: { $0.key == key }) { throw .duplicateField(key) }
            // A control or format character (an escape sequence, a line break, a bidirectional override) has no
            // place in a payment's text; shown, it could clear or rewrite what the person reads before signing.
            if let scalar = (written + value).unicodeScalars.first(where: Self.isUnprintable) {
                throw .unprintable(field: key, code: scalar.value)
            }
            fields.append(Field(key, value))
        }
        let code = PaymentQR(encoding: encoding, separator: separator, fields: fields)
        try code.checkStandardFields()
        return code
    }

    /// A control character (Unicode Cc: C0, DEL, C1) or an invisible format character (Cf: bidirectional controls,
    /// zero-width characters, the soft hyphen).
    static func isUnprintable(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) { return true }
        if scalar.value < 0xAD { return false }
        return scalar.properties.generalCategory == .format
    }

    /// The checks the standard fixes: the five required fields, the digits and lengths of accounts, BIC and sum.
    public func checkStandardFields() throws(PaymentQRError) {
        for key in Self.requiredKeys {
            guard let value = self[key], !value.isEmpty else { throw .missingField(key) }
        }
        func digits(_ key: String, _ counts: [Int], allowZero: Bool = false) throws(PaymentQRError) {
            guard let value = self[key], !value.isEmpty else { return }
            if allowZero && value == "0" { return }
            guard value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), counts.contains(value.utf8.count) else {
                throw .invalidValue(field: key, value: value, expected: .digits(counts, orZero: allowZero))
            }
        }
        try digits("PersonalAcc", [20])
        try digits("BIC", [9])
        // A payment to a treasury account names the single treasury account; some issuers write 0 where none is.
        try digits("CorrespAcc", [20], allowZero: true)
        try digits("PayeeINN", [10, 12], allowZero: true)
        try digits("PayerINN", [10, 12], allowZero: true)
        try digits("CBC", [20], allowZero: true)
        try digits("OKTMO", [8, 11], allowZero: true)
        try digits("UIN", [20, 25], allowZero: true)
        if let sum = self["Sum"] {
            guard !sum.isEmpty, sum.utf8.count <= 18, sum.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                throw .invalidValue(field: "Sum", value: sum, expected: .kopecks)
            }
        }
        // Lengths (Name 160, BankName 45, Purpose 210 by the standard) are not refused here: treasury offices' bank
        // names run longer in real codes, and the form checks the lengths of what it keeps.
    }

    /// The text of the code: header, encoding digit, separator and fields in order.
    public var text: String {
        Self.header + String(encoding.rawValue) + String(separator)
            + fields.map { "\($0.key)=\($0.value)" }.joined(separator: String(separator))
    }

    /// The bytes of the code in its encoding, or nil when a value has a character the encoding cannot write, or holds
    /// the separator.
    public var bytes: [UInt8]? {
        guard fields.allSatisfy({ !$0.value.contains(separator) && !$0.key.contains(separator) }) else { return nil }
        switch encoding {
        case .utf8: return Array(text.utf8)
        case .windows1251: return CyrillicCodePage.windows1251.encode(text)
        case .koi8r: return CyrillicCodePage.koi8r.encode(text)
        }
    }
}

/// Why a payment QR code's text was refused; each names the field or the place.
public enum PaymentQRError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text does not start with `ST0001`.
    case notPaymentQR(prefix: String)
    /// The digit after `ST0001` is not 1, 2 or 3.
    case unknownEncoding(Character)
    /// The byte at `offset` (from the start of the code) is not a character of the declared encoding.
    case notInEncoding(PaymentQR.Encoding, offset: Int)
    /// Nothing, a letter, a digit or `=` where the separator should be.
    case noSeparator
    /// A part between separators without `key=` (1-based `position` among the fields).
    case malformedField(position: Int, text: String)
    case duplicateField(String)
    case missingField(String)
    case invalidValue(field: String, value: String, expected: Expectation)
    /// A field whose name or value holds a control or invisible format character (its code point).
    case unprintable(field: String, code: UInt32)

    /// What a field's value must be.
    public enum Expectation: Sendable, Equatable {
        /// One of these numbers of ASCII digits, or "0" too.
        case digits([Int], orZero: Bool)
        /// `Sum`: kopecks, digits only, at most 18.
        case kopecks

        public var description: String {
            switch self {
            case .digits(let counts, let orZero):
                counts.map(String.init).joined(separator: " or ") + " digits" + (orZero ? " (or 0)" : "")
            case .kopecks: "the sum in kopecks: digits only, at most 18"
            }
        }
    }

    public var description: String {
        switch self {
        case .notPaymentQR(let prefix):
            "not a payment QR code: the text starts with \"\(Self.visible(prefix))\", not ST0001 (ГОСТ Р 56042-2014)"
        case .unknownEncoding(let digit):
            "unknown encoding '\(Self.visible(String(digit)))' after ST0001: 1 (windows-1251), 2 (UTF-8) or 3 (KOI8-R)"
        case .notInEncoding(let encoding, let offset):
            "byte \(offset + 1) is not \(encoding.name) text, which the code's header (ST0001\(encoding.rawValue)) declares"
        case .noSeparator:
            "no separator after ST0001 and the encoding digit: the next character separates the fields (usually |)"
        case .malformedField(let position, let text):
            "field \(position) (\"\(Self.visible(text))\") is not Name=value"
        case .duplicateField(let key):
            "the field \(Self.visible(key)) appears twice"
        case .missingField(let key):
            "the required field \(key) is missing or empty (required: \(PaymentQR.requiredKeys.joined(separator: ", ")))"
        case .invalidValue(let field, let value, let expected):
            "\(Self.visible(field))=\(Self.visible(value)): expected \(expected.description)"
        case .unprintable(let field, let code):
            "the field \(Self.visible(field)) holds the control or invisible character \(UnicodeText.codePoint(code)), which a payment's text never does: "
                + "the code is refused rather than shown"
        }
    }

    /// `text` as it can be shown: each control or invisible format character written as its code point (`U+001B`),
    /// so a refused code's text cannot act on the terminal or page that shows the refusal.
    public static func visible(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: PaymentQR.isUnprintable) else { return text }
        var shown = ""
        for scalar in text.unicodeScalars {
            if PaymentQR.isUnprintable(scalar) { shown += "<" + UnicodeText.codePoint(scalar.value) + ">" } else { shown.unicodeScalars.append(scalar) }
        }
        return shown
    }
}
