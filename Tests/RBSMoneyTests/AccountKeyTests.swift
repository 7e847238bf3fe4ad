import RBSMoney
import Testing

/// Letter No. 515's two rules and the treasury accounts, on published examples and real public requisites.
@Suite struct AccountKeyTests {
    /// Correspondent accounts of banks at the Bank of Russia (published on every bank's requisites page): the
    /// division rule, `0` + BIC digits 5–6.
    @Test(arguments: [
        ("044525225", "30101810400000000225"),  // ПАО Сбербанк, Москва
        ("044030653", "30101810500000000653"),  // Северо-Западный банк ПАО Сбербанк
        ("044525187", "30101810700000000187"),  // Банк ВТБ (ПАО)
        ("044525593", "30101810200000000593"),  // АО «Альфа-Банк»
        ("044525974", "30101810145250000974"),  // АО «ТБанк»
    ])
    func correspondentAccountsOfBanks(bic: String, account: String) {
        #expect(AccountKey.rule(account: account, bic: bic) == .bankOfRussiaDivision)
        #expect(AccountKey.isValid(account: account, bic: bic))
        #expect(AccountKey.withKey(account: account, bic: bic) == account)
    }

    /// Customer accounts in credit institutions: BIC digits 7–9.
    @Test(arguments: [
        ("044525225", "40702810938000000001"),
        ("044525225", "40817810438000000001"),
        ("049805746", "40602810700000000025"),  // the letter's own kind of example: a settlement account
    ])
    func accountsInCreditInstitutions(bic: String, account: String) {
        #expect(AccountKey.rule(account: account, bic: bic) == .creditInstitution)
        #expect(AccountKey.isValid(account: account, bic: bic))
    }

    /// Treasury offices' BICs (since 2021) with their real single treasury accounts `40102…` (opened in a Bank of
    /// Russia division: the division rule) and treasury accounts `03…` (no key; the structure is checked).
    @Test(arguments: [
        ("004525988", "40102810545370000003"),  // УФК по г. Москве, ЕКС
        ("004525987", "40102810845370000004"),  // УФК по Московской области, ЕКС
        ("014030106", "40102810945370000005"),  // УФК по г. Санкт-Петербургу, ЕКС
    ])
    func singleTreasuryAccounts(bic: String, account: String) {
        #expect(AccountKey.rule(account: account, bic: bic) == .bankOfRussiaDivision)
        #expect(AccountKey.isValid(account: account, bic: bic))
    }

    @Test func treasuryAccounts() {
        // УФК по г. Москве: the treasury account for tax revenues (the payee's account in tax payments since 2021).
        #expect(AccountKey.rule(account: "03100643000000017300", bic: "004525988") == .treasuryAccount)
        #expect(AccountKey.isValid(account: "03100643000000017300", bic: "004525988"))
        #expect(AccountKey.isValid(account: "03100643000000014800", bic: "004525987"))
        // Not in rubles, or not a 03 account: refused.
        #expect(!AccountKey.isValid(account: "03100840000000017300", bic: "004525988"))
        #expect(!AccountKey.isValid(account: "13100643000000017300", bic: "004525988"))
        // A treasury account number has no key to compute.
        #expect(AccountKey.withKey(account: "03100643000000017300", bic: "004525988") == nil)
        // At a credit institution's BIC a 03… number is checked by the key rule (and fails here).
        #expect(!AccountKey.isValid(account: "03100643000000017300", bic: "044525225"))
    }

    @Test func wrongKeysAndShapesAreRefused() {
        #expect(!AccountKey.isValid(account: "30101810400000000226", bic: "044525225"))
        #expect(!AccountKey.isValid(account: "40702810938000000002", bic: "044525225"))
        #expect(!AccountKey.isValid(account: "40102810545370000004", bic: "004525988"))
        #expect(!AccountKey.isValid(account: "4070281093800000000", bic: "044525225"))
        #expect(!AccountKey.isValid(account: "4070281093800000000x", bic: "044525225"))
        #expect(!AccountKey.isValid(account: "40702810938000000001", bic: "04452522"))
        // The account of a credit institution checked with the other rule would fail, and vice versa.
        #expect(AccountKey.withKey(account: "40702810X38000000001", bic: "044525225") == "40702810938000000001")
        #expect(AccountKey.withKey(account: "30101810X00000000225", bic: "044525225") == "30101810400000000225")
    }
}
