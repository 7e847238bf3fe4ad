/// The taxpayer identification number (ИНН): 10 digits for an organisation, 12 for a person, with control digits
/// `sum(digit × weight) mod 11 mod 10` (Federal Tax Service rules). Its first two digits are the code of the region
/// whose tax office gave it, never `00`: an INN of zeros satisfies the control digits but names no taxpayer.
public enum INN {
    public static func isValid(_ text: String) -> Bool {
        if let d = Digits.of(text, count: 10) {
            return hasRegion(d) && control(d, weights: [2, 4, 10, 3, 5, 9, 4, 6, 8]) == d[9]
        }
        if let d = Digits.of(text, count: 12) {
            return hasRegion(d) && control(d, weights: [7, 2, 4, 10, 3, 5, 9, 4, 6, 8]) == d[10]
                && control(d, weights: [3, 7, 2, 4, 10, 3, 5, 9, 4, 6, 8]) == d[11]
        }
        return false
    }

    /// Whether the first two digits name a region (`01`…`99`).
    private static func hasRegion(_ digits: [Int]) -> Bool { digits[0] != 0 || digits[1] != 0 }

    private static func control(_ digits: [Int], weights: [Int]) -> Int {
        var sum = 0
        for (d, w) in zip(digits, weights) { sum += d * w }
        return sum % 11 % 10
    }
}
