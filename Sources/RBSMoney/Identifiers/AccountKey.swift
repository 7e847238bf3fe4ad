/// The control key of a 20-digit Russian account number (Bank of Russia letter No. 515 of 8 September 1997,
/// "Порядок расчёта контрольного ключа в номере лицевого счёта"), and the treasury accounts that have none.
///
/// The key is the account's 9th digit. A three-digit conditional number of the bank is put before the 20 digits;
/// the 23 digits are multiplied by the weights 7, 1, 3, 7, 1, 3, …; the last digits of the products are summed; the
/// account is right when the sum ends in 0. The conditional number is, per the letter's two rules:
/// - an account in a **credit institution**: BIC digits 7–9 (`044525225` → `225`);
/// - an account in a **Bank of Russia division** — every correspondent account `30101…` of a bank (checked with
///   the bank's own BIC), an account at a division's BIC (digits 7–9 `000`–`002`), and an account at a treasury
///   office's BIC (the single treasury account `40102…` is opened in a Bank of Russia division): `0` + BIC digits
///   5–6 (`004525988` → `052`).
/// Treasury accounts (`03…`, opened by the Federal Treasury's offices since 2021, Treasury order No. 15н of
/// 1 April 2020) are numbered `03` + account type (3 digits) + currency `643` + territory code (8) + number (4):
/// they carry no control key, so they are checked for that structure instead.
public enum AccountKey {
    /// Which rule checks an account.
    public enum Rule: String, Sendable, Equatable {
        /// BIC digits 7–9 before the account.
        case creditInstitution
        /// `0` + BIC digits 5–6 before the account.
        case bankOfRussiaDivision
        /// A treasury account `03…` at a treasury office's BIC: no key, the structure is checked.
        case treasuryAccount
    }

    /// The rule for `account` at `bic` (both already 20 and 9 digits).
    public static func rule(account: String, bic: String) -> Rule {
        if BIC.isTreasury(bic) {
            return account.hasPrefix("03") ? .treasuryAccount : .bankOfRussiaDivision
        }
        if account.hasPrefix("30101") || BIC.isBankOfRussiaDivision(bic) { return .bankOfRussiaDivision }
        return .creditInstitution
    }

    /// Whether the 20-digit `account` is right for the bank with the 9-digit `bic`.
    public static func isValid(account: String, bic: String) -> Bool {
        guard let a = Digits.of(account, count: 20), let b = Digits.of(bic, count: 9) else { return false }
        switch rule(account: account, bic: bic) {
        case .treasuryAccount:
            // 03 · type · 643 · territory · number
            return a[0] == 0 && a[1] == 3 && a[5] == 6 && a[6] == 4 && a[7] == 3
        case let rule:
            return sum(prefix(rule, bic: b) + a) == 0
        }
    }

    /// `account` with its 9th digit set to the key for `bic` (whatever the 9th character was), or nil when the
    /// inputs are not 20 and 9 digits or the account is a treasury account (which has no key).
    public static func withKey(account: String, bic: String) -> String? {
        var chars = Array(account)
        guard chars.count == 20 else { return nil }
        chars[8] = "0"
        guard var a = Digits.of(String(chars), count: 20), let b = Digits.of(bic, count: 9) else { return nil }
        let rule = rule(account: account, bic: bic)
        guard rule != .treasuryAccount else { return nil }
        let p = prefix(rule, bic: b)
        for key in 0...9 {
            a[8] = key
            if sum(p + a) == 0 { return a.map(String.init).joined() }
        }
        return nil
    }

    private static func prefix(_ rule: Rule, bic b: [Int]) -> [Int] {
        rule == .creditInstitution ? [b[6], b[7], b[8]] : [0, b[4], b[5]]
    }

    private static func sum(_ digits: [Int]) -> Int {
        let weights = [7, 1, 3]
        var total = 0
        for (i, d) in digits.enumerated() { total += d * weights[i % 3] % 10 }
        return total % 10
    }
}
