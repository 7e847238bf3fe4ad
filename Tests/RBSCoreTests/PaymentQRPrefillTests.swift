import Foundation
import RBSLedger
import RBSMoney
import Testing
@testable import RBSCore

/// What a payment QR code opens, and a payment written back as one.
@Suite("Payment QR codes: prefill and writing")
struct PaymentQRPrefillTests {
    static let directory = BankDirectory(banks: [
        Bank(bic: "044525225", name: "ПАО Сбербанк", correspondentAccount: "30101810400000000225", city: "Москва"),
        Bank(bic: "017003983", name: "ОТДЕЛЕНИЕ ТУЛА БАНКА РОССИИ//УФК по Тульской области, г Тула",
             correspondentAccount: "40102810445370000059", city: "Тула"),
    ], date: "2026-11-20", source: "test")

    static let invoice = "ST00012|Name=ООО «Три кита»|PersonalAcc=40702810638000000123|BankName=ПАО Сбербанк|BIC=044525225"
        + "|CorrespAcc=30101810400000000225|PayeeINN=7707083893|KPP=0|Purpose=Оплата по счёту № 7|Sum=150050|Contract=77-1"

    static let taxNotice = "ST00012|Name=Казначейство России (ФНС России)|PersonalAcc=03100643000000018500"
        + "|BankName=ОТДЕЛЕНИЕ ТУЛА БАНКА РОССИИ//УФК по Тульской области, г Тула|BIC=017003983"
        + "|CorrespAcc=40102810445370000059|PayeeINN=7727406020|KPP=770801001|DrawerStatus=13|PayerINN=0"
        + "|UIN=18209965235364459240|CBC=18201061201010000510|OKTMO=0|PaytReason=0|TaxPeriod=0|DocNo=0|DocDate=0"
        + "|Purpose=Единый налоговый платёж|Sum=250000|LastName=Иванов"

    @Test("an invoice opens the payment order; its bank fields, an unknown field and KPP=0 are shown, not dropped")
    func invoice() throws {
        let prefill = PaymentQRPrefill(try PaymentQR.parse(text: Self.invoice))
        #expect(prefill.form.operation == "pay.pp.quick")
        #expect(prefill.form.values.map { "\($0.id)=\($0.value)" } == [
            "destName=ООО «Три кита»", "destInn=7707083893", "destAccount=40702810638000000123", "destBic=044525225",
            "destDesc=Оплата по счёту № 7", "amount=1500.50",
        ])
        #expect(prefill.shownOnly == [.init("BankName", "ПАО Сбербанк"), .init("CorrespAcc", "30101810400000000225"),
                                      .init("KPP", "0"), .init("Contract", "77-1")])
        #expect(HostMessage.paymentQRShownOnly(prefill.shownOnly, .ru)
                == "из QR-кода, в форме такого поля нет (сверьте сами): BankName=ПАО Сбербанк; CorrespAcc=30101810400000000225; KPP=0; Contract=77-1")
    }

    @Test("a tax notice opens the budget payment: the type first, then fields 101, 60, 22, 104–109")
    func taxNotice() throws {
        let prefill = PaymentQRPrefill(try PaymentQR.parse(text: Self.taxNotice))
        #expect(prefill.form.operation == "pay.pp.tax")
        #expect(prefill.form.values.map { "\($0.id)=\($0.value)" } == [
            "type=1", "payerStatus=13", "payerInn=0", "uin=18209965235364459240", "kbk=18201061201010000510", "oktmo=0",
            "basis=0", "period=0", "docNumber=0", "docDate=0", "destName=Казначейство России (ФНС России)",
            "destInn=7727406020", "destKpp=770801001", "destAccount=03100643000000018500", "destBic=017003983",
            "destDesc=Единый налоговый платёж", "amount=2500.00",
        ])
        #expect(prefill.shownOnly.map(\.key) == ["BankName", "CorrespAcc", "LastName"])
        // A customs KBK (administrator 153) makes it a customs payment.
        let customs = try PaymentQR.parse(text: "ST00012|Name=ФТС|PersonalAcc=03100643000000017300|BankName=B|BIC=004525988"
                                          + "|CorrespAcc=40102810545370000003|CBC=15310202010011000110")
        #expect(PaymentQRPrefill(customs).form.values.first == .init(id: "type", value: "2"))
    }

    @Test("a posted payment is written as a code that reads back to the same values, the bank's from the directory")
    func writtenDocumentReadsBack() throws {
        let document = ["from": "40817810438000000001", "type": "1", "payerStatus": "13", "payerInn": "0",
                        "uin": "18209965235364459240", "kbk": "18201061201010000510", "oktmo": "0", "basis": "0",
                        "period": "0", "docNumber": "0", "docDate": "0", "name": "Казначейство России (ФНС России)",
                        "inn": "7727406020", "kpp": "770801001", "account": "03100643000000018500", "bic": "017003983",
                        "purpose": "Единый налоговый платёж", "amount": "2500.00", "currency": "RUB"]
        let code = try PaymentQR.written(document: document, directory: Self.directory)
        // The required fields in the standard's order, then the optional ones in its table's order.
        #expect(code.text == "ST00012|Name=Казначейство России (ФНС России)|PersonalAcc=03100643000000018500"
                + "|BankName=ОТДЕЛЕНИЕ ТУЛА БАНКА РОССИИ//УФК по Тульской области, г Тула|BIC=017003983"
                + "|CorrespAcc=40102810445370000059|Sum=250000|Purpose=Единый налоговый платёж|PayeeINN=7727406020"
                + "|PayerINN=0|DrawerStatus=13|KPP=770801001|CBC=18201061201010000510|OKTMO=0|PaytReason=0|TaxPeriod=0"
                + "|DocNo=0|DocDate=0|UIN=18209965235364459240")
        let read = try PaymentQR.parse(bytes: try #require(code.bytes))
        #expect(read == code)
        #expect(PaymentQRPrefill(read).form.values.count == 17)
        // Not a payment to an account, not rubles, a bank the directory lacks: said, never written half.
        #expect(throws: PaymentQRWriteError.notAPayment) { try PaymentQR.written(document: ["cardMasked": "4111"], directory: Self.directory) }
        var dollars = document
        dollars["currency"] = "USD"
        #expect(throws: PaymentQRWriteError.notRubles("USD")) { try PaymentQR.written(document: dollars, directory: Self.directory) }
        var unknown = document
        unknown["bic"] = "044525999"
        #expect(throws: PaymentQRWriteError.unknownBank("044525999")) { try PaymentQR.written(document: unknown, directory: Self.directory) }
    }

    @Test("a payment template is written as a code; a value holding | moves the separator")
    func writtenTemplate() throws {
        let template = FormTemplate(operation: "pay.pp.quick", pluginVersion: "1.0.0", values: [
            .init(id: "srcAccount", value: "40817810438000000001"), .init(id: "destName", value: "ООО «Три кита»"),
            .init(id: "destAccount", value: "40702810638000000123"), .init(id: "destBic", value: "044525225"),
            .init(id: "destDesc", value: "Счёт 7 | аванс"), .init(id: "amount", value: "1500.50"),
        ])
        let code = try PaymentQR.written(template: template, directory: Self.directory)
        #expect(code.text == "ST00012#Name=ООО «Три кита»#PersonalAcc=40702810638000000123#BankName=ПАО Сбербанк#BIC=044525225"
                + "#CorrespAcc=30101810400000000225#Sum=150050#Purpose=Счёт 7 | аванс")
        #expect(try PaymentQR.parse(text: code.text)["Purpose"] == "Счёт 7 | аванс")
    }
}

/// Every refusal of a payment QR code in both languages: the person's language, never English under a Russian form.
@Suite("Payment QR codes: messages")
struct PaymentQRMessageTests {
    @Test("each PaymentQRError and QRImageError reads in Russian, naming the same field")
    func russian() {
        let errors: [PaymentQRError] = [
            .notPaymentQR(prefix: "XX"), .unknownEncoding("4"), .notInEncoding(.koi8r, offset: 3), .noSeparator,
            .malformedField(position: 2, text: "x"), .duplicateField("Name"), .missingField("BIC"),
            .invalidValue(field: "UIN", value: "1", expected: .digits([20, 25], orZero: true)),
            .invalidValue(field: "Sum", value: "1,5", expected: .kopecks), .unprintable(field: "Contract", code: 0x1B),
        ]
        for error in errors {
            let russian = HostMessage.describe(error, .ru)
            #expect(russian != error.description && russian.range(of: "[а-яё]", options: .regularExpression) != nil, "\(russian)")
            #expect(HostMessage.describe(error, .en) == error.description)
        }
        #expect(HostMessage.describe(PaymentQRError.invalidValue(field: "UIN", value: "1", expected: .digits([20, 25], orZero: true)), .ru)
                == "UIN=1: ожидается 20 или 25 цифр (или 0)")
        let images: [QRImageError] = [.unreadable("a.png"), .readerMissing("zbarimg"), .noCode("a.png"), .severalCodes("a.png"),
                                      .undecodable("a.png", detail: "x"), .notPayment("a.png", .noSeparator)]
        for error in images {
            #expect(HostMessage.describe(error, .ru).range(of: "[а-яё]", options: .regularExpression) != nil, "\(error)")
        }
    }
}
