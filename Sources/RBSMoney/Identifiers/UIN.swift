/// The unique accrual identifier (УИН, field 22 "Код" of a budget payment order): 20 or 25 digits whose last one is a
/// check digit over the others (the State Information System on State and Municipal Payments, ГИС ГМП, rules):
/// weights 1, 2, … 10, 1, 2, … from the first digit, the sum modulo 11; a remainder of 10 is computed again with the
/// weights shifted by two (3, 4, … 10, 1, 2, …); a second 10 gives 0. "0" (no УИН) is not an УИН: a form that
/// accepts it says so itself.
public enum UIN {
    /// Whether `text` is an УИН: 20 or 25 ASCII digits, not all zeros, its last digit the check digit.
    public static func isValid(_ text: String) -> Bool {
        guard let digits = Digits.of(text, count: 20) ?? Digits.of(text, count: 25),
              digits.contains(where: { $0 != 0 }),
              let last = digits.last else { return false }
        return checkDigit(of: digits.dropLast()) == last
    }

    /// The check digit of the digits before it (19 or 24 of them).
    public static func checkDigit<Body: Collection<Int>>(of body: Body) -> Int {
        for shift in [0, 2] {
            var sum = 0
            for (index, digit) in body.enumerated() { sum += digit * ((index + shift) % 10 + 1) }
            if sum % 11 != 10 { return sum % 11 }
        }
        return 0
    }
}
