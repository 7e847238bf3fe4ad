import Testing
@testable import RBSExpressions

@Suite("Validators")
struct ValidatorsTests {
    @Test func innOfTenAndTwelveDigitsFollowsTheChecksum() {
        #expect(Validators.isInn("1234567894"))
        #expect(Validators.isInn("123456789047"))
        #expect(Validators.isInn("7707083893"))
        #expect(Validators.isInn("0000000000"), "the algorithm accepts all zeros")
    }

    @Test func innWithAChangedDigitWrongLengthOrLettersIsInvalid() {
        #expect(!Validators.isInn("1234567895"))
        #expect(!Validators.isInn("1234567884"))
        #expect(!Validators.isInn("123456789048"))
        #expect(!Validators.isInn("123456789037"))
        #expect(!Validators.isInn("123456789"))
        #expect(!Validators.isInn("12345678941"))
        #expect(!Validators.isInn("123456789A"))
        #expect(!Validators.isInn(""))
        #expect(!Validators.isInn("１２３４５６７８９４"), "full-width digits are not ASCII digits")
    }

    @Test func kppHasFourDigitsTwoAlphanumericsThreeDigits() {
        #expect(Validators.isKpp("770701001"))
        #expect(Validators.isKpp("7707AZ001"))
        #expect(!Validators.isKpp("7707az001"))
        #expect(!Validators.isKpp("770A01001"))
        #expect(!Validators.isKpp("77070100"))
        #expect(!Validators.isKpp("7707010011"))
    }

    @Test func bicIsNineDigits() {
        #expect(Validators.isBic("044525225"))
        #expect(!Validators.isBic("04452522"))
        #expect(!Validators.isBic("04452522A"))
    }

    @Test func accountKeyMatchesTheVectorsOfLetter515() {
        #expect(Validators.accountKeyOk(account: "40602810700000000025", bic: "049805746"))
        #expect(Validators.accountKeyOk(account: "30101810800000000746", bic: "049805000"))
    }

    @Test func accountKeyFailsWhenADigitChanges() {
        #expect(!Validators.accountKeyOk(account: "40602810700000000026", bic: "049805746"))
        #expect(!Validators.accountKeyOk(account: "40602810700000000025", bic: "049805747"))
        #expect(!Validators.accountKeyOk(account: "30101810800000000747", bic: "049805000"))
        #expect(!Validators.accountKeyOk(account: "4060281070000000002", bic: "049805746"))
        #expect(!Validators.accountKeyOk(account: "40602810700000000025", bic: "04980574"))
    }

    @Test func accountKeyComputesTheControlDigit() throws {
        #expect(Validators.accountKey(for: "40602810X00000000025", bic: "049805746") == "7")
        #expect(Validators.accountKey(for: "30101810000000000746", bic: "049805000") == "8")
        let fresh = "40817810000001234567"
        let key = try #require(Validators.accountKey(for: fresh, bic: "044525225"))
        var digits = Array(fresh)
        digits[8] = key
        let account = String(digits)
        #expect(Validators.accountKeyOk(account: account, bic: "044525225"))
        digits[19] = digits[19] == "9" ? "0" : "9"
        #expect(!Validators.accountKeyOk(account: String(digits), bic: "044525225"))
        #expect(Validators.accountKey(for: "123", bic: "044525225") == nil)
    }

    @Test func ibanUsesMod97() {
        #expect(Validators.isIban("GB82WEST12345698765432"))
        #expect(Validators.isIban("GB82 WEST 1234 5698 7654 32"))
        #expect(Validators.isIban("DE89370400440532013000"))
        #expect(!Validators.isIban("GB82WEST12345698765433"))
        #expect(!Validators.isIban("GB82west12345698765432"))
        #expect(!Validators.isIban("GB82"))
    }

    @Test func luhnChecksCardNumbers() {
        #expect(Validators.luhn("4111111111111111"))
        #expect(!Validators.luhn("4111111111111112"))
        #expect(Validators.luhn("79927398713"))
        #expect(!Validators.luhn("4111-1111"))
        #expect(!Validators.luhn("0"))
    }
}
