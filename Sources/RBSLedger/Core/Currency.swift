/// The currencies the core bank keeps accounts in, with their ISO 4217 minor units.
enum Currency {
    private static let minorUnitsByCode: [String: Int] = [
        "RUB": 2, "USD": 2, "EUR": 2, "GBP": 2, "CHF": 2, "CNY": 2, "KZT": 2, "BYN": 2, "JPY": 0, "KWD": 3,
    ]

    /// Digits after the '.' for `code`, or `nil` for a currency the bank does not know.
    static func minorUnits(of code: String) -> Int? { minorUnitsByCode[code] }
}
