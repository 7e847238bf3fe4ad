/// An ISO 4217 currency: its alphabetic code and how many minor units (digits after the decimal separator) it has.
///
/// The table is ISO 4217 list one, generated into `ISO4217Table.swift` by `Scripts/generate-iso4217.py` from the
/// committed `iso4217-list-one.xml`. Codes are matched case-insensitively and kept upper-case. Codes of list one
/// without minor units ("N.A.": XAU, XDR, XTS, ...) are not currencies an amount can be written in.
public struct Currency: Hashable, Sendable, CustomStringConvertible {
    /// The alphabetic code, upper-case: "RUB".
    public let code: String
    /// The numeric code: 643 for RUB.
    public let number: Int
    /// Digits after the decimal separator: 2 for RUB, 0 for JPY, 3 for KWD, 4 for CLF.
    public let minorUnits: Int
    /// The currency's English name in list one: "Russian Ruble".
    public let name: String

    /// The currency with `code` (any case), or nil when ISO 4217 list one has no such currency with minor units.
    public init?(code: String) {
        guard let entry = Self.byCode[code.uppercased()] else { return nil }
        self = entry
    }

    /// The currency with `code`, or the reason there is none (a message a person can act on).
    public static func named(_ code: String) throws(CurrencyError) -> Currency {
        if let currency = Currency(code: code) { return currency }
        if nonMonetaryCodes.contains(code.uppercased()) { throw .noMinorUnits(code.uppercased()) }
        throw .unknown(code)
    }

    private init(code: String, number: Int, minorUnits: Int, name: String) {
        self.code = code
        self.number = number
        self.minorUnits = minorUnits
        self.name = name
    }

    public static let rub = Currency(code: "RUB", number: 643, minorUnits: 2, name: "Russian Ruble")
    public static let usd = Currency(code: "USD", number: 840, minorUnits: 2, name: "US Dollar")
    public static let eur = Currency(code: "EUR", number: 978, minorUnits: 2, name: "Euro")

    /// Every currency of the table, by code.
    public static var all: [Currency] { table.map { Currency(code: $0.code, number: $0.number, minorUnits: $0.minorUnits, name: $0.name) } }

    private static let byCode: [String: Currency] = Dictionary(uniqueKeysWithValues: all.map { ($0.code, $0) })

    public var description: String { code }
}

/// Why a currency code was refused.
public enum CurrencyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not a code of ISO 4217 list one.
    case unknown(String)
    /// A code of list one without minor units (a precious metal, SDR, a test code): no amount can be written in it.
    case noMinorUnits(String)

    public var description: String {
        switch self {
        case .unknown(let code):
            "unknown currency '\(code)'; use an ISO 4217 code such as RUB, USD or EUR"
        case .noMinorUnits(let code):
            "\(code) has no minor units in ISO 4217 (a metal, a fund unit or a test code); amounts cannot be entered in it"
        }
    }
}
