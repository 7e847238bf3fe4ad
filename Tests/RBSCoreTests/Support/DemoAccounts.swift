import Foundation
import RBSMoney
import RBSCore
import RBSLedger

typealias RBSCoreAccount = Account

/// A small customer for tests that do not need the embedded core.
enum DemoAccounts {
    static let list = [
        Account(number: "40817810099910004312", balance: Money(whole: 125_000, currency: .rub), owner: "Demo", title: "Current",
                blocked: false),
        Account(number: "40817810399910004313", balance: Money(whole: 500, currency: .rub), owner: "Demo", title: "Savings",
                blocked: false),
        Account(number: "40817810699910004314", balance: Money(whole: 10, currency: .rub), owner: "Demo", title: "Blocked",
                blocked: true),
        Account(number: "40817840999910004315", balance: Money(whole: 1_000, currency: .usd), owner: "Demo", title: "Dollars",
                blocked: false),
    ]
}
