/// The taxpayer identification number (ИНН): 10 digits for an organisation, 12 for a person, with control digits
/// `sum(digit × weight) mod 11 mod 10` (Federal Tax Service rules).
public enum INN {
    public static func isValid(_ text: String) -> Bool {
        if let d = Digits.of(text, count: 10) {
            return control(d, weights: [2, 4, 10, 3, 5, 9, 4, 6, 8]) == d[9]
        }
        if let d = Digits.of(text, count: 12) {
            return control(d, weights: [7, 2, 4, 10, 3, 5, 9, 4, 6, 8]) == d[10]
                && control(d, weights: [3, 7, 2, 4, 10, 3, 5, 9, 4, 6, 8]) == d[11]
        }
        return false
    }

    private static func control(_ digits: [Int], weights: [Int]) -> Int {
        var sum = 0
        for (d, w) in zip(digits, weights) { sum += d * w }
        return sum % 11 % 10
    }
}
