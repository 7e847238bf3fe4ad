import Foundation
import RBSMoney

/// The embedded demo bank: Sberbank Moscow's BIC and one customer with four accounts, seeded on first start.
public enum DemoBank {
    /// Sberbank, Moscow.
    public static let bic = "044525225"
    /// The bank's correspondent account at the Bank of Russia.
    public static let correspondentAccount = "30101810400000000225"
    public static let customer = "Иванов Иван Иванович"

    /// The seeded accounts; each number's control key is valid for ``bic`` (checked by a test).
    static let seedAccounts: [Account] = [
        Account(number: "40817810438000000001", balance: Money(whole: 150_000, currency: .rub), owner: customer, title: "Текущий счёт", blocked: false),
        Account(number: "40817810738000000002", balance: Money(whole: 500_000, currency: .rub), owner: customer, title: "Накопительный счёт", blocked: false),
        Account(number: "40817810038000000003", balance: Money(whole: 1_200, currency: .rub), owner: customer, title: "Старый счёт", blocked: true),
        Account(number: "40817840638000000004", balance: Money(whole: 2_500, currency: .usd), owner: customer, title: "Валютный счёт", blocked: false),
    ]

    /// The demo customer's cards (test numbers of no real card, kept masked as every card is), seeded by the
    /// `v12-cards` step: a Visa on the current account and a Mir on the savings account.
    static let seedCards: [(account: String, masked: String, lastFour: String, scheme: String)] = [
        ("40817810438000000001", "4111 11** **** 1111", "1111", "visa"),
        ("40817810738000000002", "2200 00** **** 0004", "0004", "mir"),
    ]
}
