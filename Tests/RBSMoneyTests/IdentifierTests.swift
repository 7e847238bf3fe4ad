import RBSMoney
import Testing

/// Published examples and public vectors for INN, KPP, BIC, IBAN and card numbers.
@Suite struct IdentifierTests {
    @Test func inn() {
        #expect(INN.isValid("7707083893"))    // ПАО Сбербанк
        #expect(INN.isValid("7702070139"))    // Банк ВТБ (ПАО)
        #expect(INN.isValid("7727406020"))    // УФК по г. Москве (ИФНС payee)
        #expect(INN.isValid("500100732259"))  // the Federal Tax Service's 12-digit example
        #expect(!INN.isValid("7707083894"))
        #expect(!INN.isValid("500100732250"))
        #expect(!INN.isValid("770708389"))
        #expect(!INN.isValid("77070838931"))
        #expect(!INN.isValid("77070838 3"))
    }

    @Test("an INN of region 00 is refused though its check digits hold: zeros name no taxpayer")
    func innOfNoRegion() {
        #expect(!INN.isValid("0000000000"))
        #expect(!INN.isValid("000000000000"))
        #expect(!INN.isValid("0012345673"))     // region 00, check digit right
        #expect(INN.isValid("0100000004"))      // region 01
    }

    @Test func kppWithLettersInPositionsFiveAndSix() {
        #expect(KPP.isValid("773601001"))   // ПАО Сбербанк
        #expect(KPP.isValid("7736AB001"))
        #expect(KPP.isValid("77360Z001"))
        #expect(!KPP.isValid("7736ab001"))  // capital letters only
        #expect(!KPP.isValid("773Б01001"))  // Cyrillic is not Latin
        #expect(!KPP.isValid("A73601001"))  // letters only in 5–6
        #expect(!KPP.isValid("77360100"))
        #expect(!KPP.isValid("000000000"))  // no tax office has the code 0000
        #expect(!KPP.isValid("0000AB001"))
        #expect(KPP.isValid("000101001"))
    }

    @Test func bic() {
        #expect(BIC.isValid("044525225"))
        #expect(BIC.isValid("004525988"))
        #expect(BIC.isTreasury("004525988"))
        #expect(BIC.isTreasury("014030106"))
        #expect(!BIC.isTreasury("044525225"))
        #expect(BIC.isBankOfRussiaDivision("044525000"))
        #expect(!BIC.isValid("44525225"))
        #expect(!BIC.isValid("144525225"))
        #expect(!BIC.isValid("04452522X"))
    }

    @Test func iban() {
        #expect(IBAN.isValid("GB82 WEST 1234 5698 7654 32"))  // ISO 13616 / ECBS example
        #expect(IBAN.isValid("DE89370400440532013000"))
        #expect(IBAN.isValid("FR1420041010050500013M02606"))
        #expect(!IBAN.isValid("GB82 WEST 1234 5698 7654 33"))
        #expect(!IBAN.isValid("gb82 west 1234 5698 7654 32"))
        #expect(!IBAN.isValid("GB82"))
    }

    @Test func cardNumbersBySchemeLengthAndLuhn() throws {
        // Public test numbers of the schemes.
        let cases: [(String, CardNumber.Scheme)] = [
            ("4111 1111 1111 1111", .visa), ("4111111111111111", .visa), ("4222222222222", .visa),
            ("5555 5555 5555 4444", .mastercard), ("2221 0000 0000 0009", .mastercard),
            ("3782 822463 10005", .amex), ("2200 0000 0000 0004", .mir), ("3530 1113 3330 0000", .jcb),
            ("6200 0000 0000 0005", .unionPay),
        ]
        for (text, scheme) in cases {
            let card = try CardNumber(text)
            #expect(card.scheme == scheme, "\(text)")
            #expect(card.lastFour == String(text.filter(\.isNumber).suffix(4)))
        }
        #expect(throws: CardNumber.Problem.luhn) { try CardNumber("4111 1111 1111 1112") }
        #expect(throws: CardNumber.Problem.wrongLength(.mastercard, length: 15)) { try CardNumber("555555555555442") }
        #expect(throws: CardNumber.Problem.wrongLength(.visa, length: 15)) { try CardNumber("411111111111116") }
        #expect(throws: CardNumber.Problem.unknownScheme) { try CardNumber("9111 1111 1111 1111") }
        #expect(throws: CardNumber.Problem.notDigits) { try CardNumber("4111  1111 1111 1111") }
        #expect(throws: CardNumber.Problem.notDigits) { try CardNumber("4111-1111-1111-1111") }
        #expect(CardNumber.luhn("79927398713"))  // the classic Luhn example
        #expect(!CardNumber.luhn("79927398710"))
    }

    @Test func aCardNumberNeverPrintsItsDigits() throws {
        let card = try CardNumber("4111 1111 1111 1111")
        #expect(card.masked == "4111 11** **** 1111")
        #expect("\(card)" == "4111 11** **** 1111")
        #expect(!"\(card)".contains("4111111111111111"))
    }
}
