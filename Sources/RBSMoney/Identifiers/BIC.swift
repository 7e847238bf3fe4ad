/// The Bank of Russia's bank identification code (БИК): 9 digits.
///
/// `04` + region (2) + division (2) + bank (3) for credit institutions and Bank of Russia divisions (whose last
/// three digits are `000`–`002`); since 2021 the Federal Treasury's offices (ТОФК) have BICs of the same length
/// that do not start with `04` (`004525988`, `014030106`).
public enum BIC {
    /// Whether `text` is 9 ASCII digits starting with 0 (every BIC of the Bank of Russia's directory does).
    public static func isValid(_ text: String) -> Bool {
        guard let d = Digits.of(text, count: 9) else { return false }
        return d[0] == 0
    }

    /// Whether `bic` is a treasury office's BIC (a valid BIC not starting with `04`).
    public static func isTreasury(_ bic: String) -> Bool {
        isValid(bic) && !bic.hasPrefix("04")
    }

    /// Whether `bic` names a Bank of Russia division (a `04…` BIC ending in `000`, `001` or `002`).
    public static func isBankOfRussiaDivision(_ bic: String) -> Bool {
        isValid(bic) && bic.hasPrefix("04") && ["000", "001", "002"].contains(bic.suffix(3))
    }
}
