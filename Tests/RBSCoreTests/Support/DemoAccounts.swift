import Foundation
import RBSCore
import RBSLedger

typealias RBSCoreAccount = Account

/// A small customer for tests that do not need the embedded core.
enum DemoAccounts {
    static let list = [
        Account(number: "40817810099910004312", currency: "RUB", balance: 125_000, owner: "Demo", title: "Current",
                blocked: false),
        Account(number: "40817810399910004313", currency: "RUB", balance: 500, owner: "Demo", title: "Savings",
                blocked: false),
        Account(number: "40817810699910004314", currency: "RUB", balance: 10, owner: "Demo", title: "Blocked",
                blocked: true),
        Account(number: "40817840999910004315", currency: "USD", balance: 1_000, owner: "Demo", title: "Dollars",
                blocked: false),
    ]
}
