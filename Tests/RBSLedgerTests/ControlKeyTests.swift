import Foundation
import RBSMoney
import Testing
@testable import RBSLedger

@Suite("Control key and the demo bank")
struct ControlKeyTests {
    @Test("every seeded account has a valid control key for BIC 044525225")
    func seededAccountsHaveValidKeys() throws {
        #expect(DemoBank.seedAccounts.count == 4)
        for account in DemoBank.seedAccounts {
            #expect(AccountKey.isValid(account: account.number, bic: DemoBank.bic), "\(account.number)")
            #expect(AccountKey.withKey(account: account.number, bic: DemoBank.bic) == account.number)
        }
    }

    @Test("the correspondent account of the demo bank checks out with the RKC rule")
    func correspondentAccount() {
        // For a correspondent account the 23 digits are "0", BIC digits 5–6, then the account.
        let digits = "0" + "25" + DemoBank.correspondentAccount
        let weights = [7, 1, 3]
        let sum = digits.enumerated().reduce(0) { $0 + (($1.element.wholeNumberValue ?? 0) * weights[$1.offset % 3]) % 10 }
        #expect(sum % 10 == 0)
    }

    @Test("a wrong digit breaks the key")
    func wrongDigit() {
        #expect(!AccountKey.isValid(account: "40817810438000000002", bic: DemoBank.bic))
        #expect(!AccountKey.isValid(account: "4081781043800000000", bic: DemoBank.bic))
        #expect(!AccountKey.isValid(account: "4081781043800000000x", bic: DemoBank.bic))
    }

    @Test("the seed has three RUB accounts (one blocked) and one USD account")
    func seedShape() {
        let rub = DemoBank.seedAccounts.filter { $0.currency == "RUB" }
        #expect(rub.count == 3)
        #expect(rub.filter(\.blocked).count == 1)
        #expect(DemoBank.seedAccounts.filter { $0.currency == "USD" }.count == 1)
    }
}
