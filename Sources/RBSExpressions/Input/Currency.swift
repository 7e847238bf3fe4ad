/// ISO 4217 currencies the host knows how to enter amounts in.
public enum Currency {
    private static let minorUnitsByCode: [String: Int] = [
        "RUB": 2, "USD": 2, "EUR": 2, "GBP": 2, "CNY": 2, "CHF": 2, "JPY": 0, "KZT": 2, "BYN": 2,
        "KWD": 3, "BHD": 3, "OMR": 3, "JOD": 3, "UAH": 2, "AMD": 2, "TRY": 2, "INR": 2, "KRW": 0,
    ]

    /// The number of decimal places of `code` (2 for RUB, 0 for JPY, 3 for KWD), or nil for an unknown code.
    /// Codes are matched case-insensitively.
    public static func minorUnits(_ code: String) -> Int? {
        minorUnitsByCode[code.uppercased()]
    }
}
