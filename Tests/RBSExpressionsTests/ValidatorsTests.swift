import Testing
@testable import RBSExpressions

@Suite("Validators")
struct ValidatorsTests {
    @Test func innOfTenAndTwelveDigitsFollowsTheChecksum() {
        #expect(Validators.isInn("1234567894"))
        #expect(Validators.isInn("123456789047"))
        #expect(Validators.isInn("7707083893"))
        #expect(!Validators.isInn("0000000000"), "the checksum holds, but 00 is no region's code")
        #expect(!Validators.isInn("000000000000"))
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
        #expect(!Validators.isKpp("000000000"), "the shape holds, but 0000 is no tax office's code")
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
