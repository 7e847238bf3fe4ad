import RBSMoney
import Testing

/// Payment QR codes by ГОСТ Р 56042-2014, shaped as invoices and tax notices print them.
@Suite struct PaymentQRTests {
    static let invoice = "ST00012|Name=ООО «Три кита»|PersonalAcc=40702810138250123017|BankName=ПАО Сбербанк|BIC=044525225"
        + "|CorrespAcc=30101810400000000225|PayeeINN=7707083893|KPP=773601001|Purpose=Оплата по счёту № 7|Sum=123456"

    @Test func aUTF8InvoiceReadsEveryFieldInOrderWithTheSumInKopecks() throws {
        let code = try PaymentQR.parse(bytes: Array(Self.invoice.utf8))
        #expect(code.encoding == .utf8)
        #expect(code.separator == "|")
        #expect(code.fields.map(\.key) == ["Name", "PersonalAcc", "BankName", "BIC", "CorrespAcc", "PayeeINN", "KPP", "Purpose", "Sum"])
        #expect(code["Name"] == "ООО «Три кита»")
        #expect(code["payeeinn"] == "7707083893", "keys are matched in any case")
        #expect(code.sum == Money(minorUnits: 123_456, currency: .rub))
        #expect(code.sum?.plain == "1234.56")
        #expect(!code.isBudgetPayment)
        #expect(code.text == Self.invoice)
    }

    /// "ООО «Три кита»" in windows-1251: О = 0xCE, « = 0xAB, Т = 0xD2, р = 0xF0, и = 0xE8, к = 0xEA, т = 0xF2, а = 0xE0.
    @Test func windows1251BytesAreDecodedByTheHeadersDigit() throws {
        let name: [UInt8] = [0xCE, 0xCE, 0xCE, 0x20, 0xAB, 0xD2, 0xF0, 0xE8, 0x20, 0xEA, 0xE8, 0xF2, 0xE0, 0xBB]
        let bytes = Array("ST00011|Name=".utf8) + name
            + Array("|PersonalAcc=40702810138250123017|BankName=Bank|BIC=044525225|CorrespAcc=30101810400000000225".utf8)
        let code = try PaymentQR.parse(bytes: bytes)
        #expect(code.encoding == .windows1251)
        #expect(code["Name"] == "ООО «Три кита»")
        #expect(code.bytes == bytes, "written back in its own encoding, byte for byte")
        // The same bytes under the UTF-8 digit are refused where they stop being UTF-8.
        var utf8 = bytes
        utf8[6] = UInt8(ascii: "2")
        #expect(throws: PaymentQRError.notInEncoding(.utf8, offset: 13)) { try PaymentQR.parse(bytes: utf8) }
        // 0x98 is the one byte windows-1251 leaves undefined.
        var undefined = bytes
        undefined[14] = 0x98
        #expect(throws: PaymentQRError.notInEncoding(.windows1251, offset: 14)) { try PaymentQR.parse(bytes: undefined) }
    }

    /// "Три" in KOI8-R: Т = 0xF4, р = 0xD2, и = 0xC9.
    @Test func koi8RBytesAndAnotherSeparator() throws {
        let bytes = Array("ST00013#Name=".utf8) + [0xF4, 0xD2, 0xC9]
            + Array("#PersonalAcc=40702810138250123017#BankName=B#BIC=044525225#CorrespAcc=30101810400000000225#Purpose=a|b".utf8)
        let code = try PaymentQR.parse(bytes: bytes)
        #expect(code.encoding == .koi8r)
        #expect(code.separator == "#")
        #expect(code["Name"] == "Три")
        #expect(code["Purpose"] == "a|b", "| is text when # separates")
        #expect(code.bytes == bytes)
    }

    @Test func aTaxNoticeIsABudgetPaymentAndKeepsFieldsTheParserDoesNotKnow() throws {
        let text = "ST00012|Name=Казначейство России (ФНС России)|PersonalAcc=03100643000000018500"
            + "|BankName=ОТДЕЛЕНИЕ ТУЛА БАНКА РОССИИ//УФК по Тульской области, г Тула|BIC=017003983"
            + "|CorrespAcc=40102810445370000059|PayeeINN=7727406020|KPP=770801001|CBC=18201061201010000510|OKTMO=0"
            + "|PayerINN=500100732259|UIN=18209965235364459240|Sum=250000|LastName=Иванов|TechCode=02|NewField=kept\n"
        let code = try PaymentQR.parse(text: text)
        #expect(code.isBudgetPayment)
        #expect(code["UIN"] == "18209965235364459240")
        #expect(code.fields.suffix(3) == [.init("LastName", "Иванов"), .init("TechCode", "02"), .init("NewField", "kept")])
        #expect(code.sum?.plain == "2500.00")
    }

    @Test("each refusal names what is wrong and where", arguments: [
        ("ST0001", PaymentQRError.notPaymentQR(prefix: "ST0001")),
        ("ST10012|Name=a", .notPaymentQR(prefix: "ST10012|Name")),
        ("ST00014|Name=a", .unknownEncoding("4")),
        ("ST00012Name=a", .noSeparator),
        ("ST00012|Name=a|PersonalAcc", .malformedField(position: 2, text: "PersonalAcc")),
        ("ST00012|Name=a|=b", .malformedField(position: 2, text: "=b")),
        ("ST00012|Name=a|name=b", .duplicateField("Name")),
        ("ST00012|Name=a|PersonalAcc=40702810138250123017|BankName=B|BIC=044525225", .missingField("CorrespAcc")),
        ("ST00012|Name=|PersonalAcc=40702810138250123017|BankName=B|BIC=044525225|CorrespAcc=0", .missingField("Name")),
        ("ST00012|Name=a|PersonalAcc=4070281013825012301|BankName=B|BIC=044525225|CorrespAcc=0",
         .invalidValue(field: "PersonalAcc", value: "4070281013825012301", expected: .digits([20], orZero: false))),
        ("ST00012|Name=a|PersonalAcc=40702810138250123017|BankName=B|BIC=04452522X|CorrespAcc=0",
         .invalidValue(field: "BIC", value: "04452522X", expected: .digits([9], orZero: false))),
        ("ST00012|Name=a|PersonalAcc=40702810138250123017|BankName=B|BIC=044525225|CorrespAcc=0|Sum=1500.50",
         .invalidValue(field: "Sum", value: "1500.50", expected: .kopecks)),
        ("ST00012|Name=a|PersonalAcc=40702810138250123017|BankName=B|BIC=044525225|CorrespAcc=0|UIN=123",
         .invalidValue(field: "UIN", value: "123", expected: .digits([20, 25], orZero: true))),
    ])
    func refusals(text: String, error: PaymentQRError) {
        #expect(throws: error) { try PaymentQR.parse(text: text) }
    }

    /// A code is a stranger's text (an invoice's issuer wrote it): an escape sequence in one of its fields cleared the
    /// REPL's screen, set the terminal's title and printed a fake line above the form before it was refused here.
    @Test("a control or invisible character in any field refuses the code, and the refusal shows it as its code point")
    func unprintable() throws {
        let valid = "ST00012|Name=ООО Ромашка|PersonalAcc=40702810938000000001|BankName=Б|BIC=044525225|CorrespAcc=30101810400000000225"
        let cases: [(String, PaymentQRError)] = [
            (valid + "|Contract=\u{1B}[2J\u{1B}]0;pwned\u{07}FAKE", .unprintable(field: "Contract", code: 0x1B)),
            (valid + "|Purpose=a\rOVERWRITE", .unprintable(field: "Purpose", code: 0x0D)),
            (valid + "|Purpose=a\u{9B}31m", .unprintable(field: "Purpose", code: 0x9B)),
            (valid + "|Purpose=Оплата \u{202E}321", .unprintable(field: "Purpose", code: 0x202E)),
            (valid + "|Purpose=a\u{200B}b", .unprintable(field: "Purpose", code: 0x200B)),
            (valid + "|Ex\u{1B}tra=1", .unprintable(field: "Ex\u{1B}tra", code: 0x1B)),
        ]
        for (text, error) in cases {
            #expect(throws: error) { try PaymentQR.parse(text: text) }
            #expect(throws: error) { try PaymentQR.parse(bytes: Array(text.utf8)) }
        }
        #expect(PaymentQRError.unprintable(field: "Ex\u{1B}tra", code: 0x1B).description
                == "the field Ex<U+001B>tra holds the control or invisible character U+001B, which a payment's text never does: "
                + "the code is refused rather than shown")
        // Whatever a refusal repeats of the code is shown the same way: no escape reaches the screen.
        for error in [PaymentQRError.malformedField(position: 2, text: "\u{1B}[2J"), .notPaymentQR(prefix: "\u{1B}]0;x\u{07}"),
                      .duplicateField("N\u{1B}"), .unknownEncoding("\u{1B}")] {
            #expect(!error.description.unicodeScalars.contains { $0.value < 0x20 }, "\(error.description)")
        }
        // A line break at the end (as scanners add) and a no-break space stay accepted.
        let code = try PaymentQR.parse(text: valid + "|Purpose=Оплата\u{A0}счёта\r\n")
        #expect(code["Purpose"] == "Оплата\u{A0}счёта")
    }

    @Test func refusalsReadAsSentences() {
        #expect(PaymentQRError.invalidValue(field: "UIN", value: "123", expected: .digits([20, 25], orZero: true)).description
                == "UIN=123: expected 20 or 25 digits (or 0)")
        #expect(PaymentQRError.missingField("BIC").description
                == "the required field BIC is missing or empty (required: Name, PersonalAcc, BankName, BIC, CorrespAcc)")
        #expect(PaymentQRError.notInEncoding(.windows1251, offset: 14).description
                == "byte 15 is not windows-1251 text, which the code's header (ST00011) declares")
    }

    @Test func writingRefusesAValueThatHoldsTheSeparatorOrACharacterTheEncodingLacks() {
        let fields = [PaymentQR.Field("Name", "a|b")]
        #expect(PaymentQR(fields: fields).bytes == nil)
        #expect(PaymentQR(encoding: .windows1251, fields: [.init("Name", "€ ok")]).bytes != nil, "€ is 0x88 in windows-1251")
        #expect(PaymentQR(encoding: .koi8r, fields: [.init("Name", "€")]).bytes == nil)
    }
}
