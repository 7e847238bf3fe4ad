import RBSMoney
import Testing

/// The УИН's check digit (field 22 of a budget payment order), worked by hand where the comment shows the sum.
@Suite struct UINTests {
    /// 1·1 + 8·2 + 2·3 + 0·4 + 9·5 + 9·6 + 6·7 + 5·8 + 2·9 + 3·10 + 5·1 + 3·2 + 6·3 + 4·4 + 4·5 + 5·6 + 9·7 + 2·8
    /// + 4·9 = 462 = 42·11: remainder 0, the 20th digit.
    @Test func twentyDigitsWithTheCheckDigitOfTheFirstWeights() {
        #expect(UIN.checkDigit(of: [1, 8, 2, 0, 9, 9, 6, 5, 2, 3, 5, 3, 6, 4, 4, 5, 9, 2, 4]) == 0)
        #expect(UIN.isValid("18209965235364459240"))
        #expect(!UIN.isValid("18209965235364459241"))
        #expect(!UIN.isValid("18209965235364459204"), "two digits swapped")
    }

    /// 0759838675650889957: the first weights give remainder 10, the shifted ones (3, 4, …) give 6.
    @Test func aRemainderOfTenIsComputedAgainWithShiftedWeights() {
        #expect(UIN.isValid("07598386756508899576"))
        #expect(!UIN.isValid("07598386756508899570"))
        // Remainder 10 both times: the check digit is 0.
        #expect(UIN.isValid("25918843608454866880"))
        #expect(!UIN.isValid("25918843608454866881"))
    }

    @Test func twentyFiveDigitsCheckTheSameWay() {
        #expect(UIN.isValid("1820996523536445924000000"))
        #expect(UIN.isValid("3221100100000000000001236"))
        #expect(!UIN.isValid("3221100100000000000001237"))
    }

    @Test func anythingElseIsNoUIN() {
        #expect(!UIN.isValid("0"))
        #expect(!UIN.isValid("00000000000000000000"), "all zeros satisfies the sum but names no accrual")
        #expect(!UIN.isValid("1820996523536445924"), "19 digits")
        #expect(!UIN.isValid("182099652353644592400"), "21 digits")
        #expect(!UIN.isValid("1820996523536445924O"), "a letter O")
        #expect(!UIN.isValid(" 18209965235364459240"))
    }
}
