/// The control key of Russian bank account numbers (Bank of Russia letter of 8 September 1997 No. 515).
///
/// For an account at a credit institution: the last three digits of the BIC followed by the 20-digit account
/// number make 23 digits; each is multiplied by the weights 7, 1, 3, 7, 1, 3, …; the last digits of the products
/// are summed; the number is valid when the sum ends in 0. The key is the account's 9th digit.
public enum ControlKey {
    /// Whether `account` (20 digits) has a valid key for `bic` (9 digits).
    public static func isValid(account: String, bic: String) -> Bool {
        guard let digits = digits(account: account, bic: bic) else { return false }
        return weightedSum(digits) % 10 == 0
    }

    /// The account number with its 9th digit set to the correct key, or `nil` if the inputs are not digits.
    public static func withKey(account: String, bic: String) -> String? {
        guard var digits = digits(account: account, bic: bic) else { return nil }
        digits[11] = 0
        // The key's weight is 3; 3·k ≡ −sum (mod 10) gives k = 3·sum mod 10 (since 3·3 = 9 ≡ −1).
        let key = (weightedSum(digits) % 10) * 3 % 10
        var characters = Array(account)
        characters[8] = Character(String(key))
        return String(characters)
    }

    private static func digits(account: String, bic: String) -> [Int]? {
        let text = String(bic.suffix(3)) + account
        guard account.count == 20, bic.count == 9, bic.allSatisfy(\.isASCII), bic.allSatisfy(\.isNumber) else { return nil }
        let digits = text.compactMap { $0.isASCII ? $0.wholeNumberValue : nil }
        return digits.count == 23 ? digits : nil
    }

    private static func weightedSum(_ digits: [Int]) -> Int {
        let weights = [7, 1, 3]
        return digits.enumerated().reduce(0) { $0 + ($1.element * weights[$1.offset % 3]) % 10 }
    }
}
