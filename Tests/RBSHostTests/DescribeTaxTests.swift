import Foundation
import Testing

/// `describe` over pay.pp.tax: fields 106–109 appear with the payment type, are then required and validated.
@Suite("describe pay.pp.tax")
struct DescribeTaxTests {
    static let budgetFields = ["basis", "period", "docNumber", "docDate"]

    /// Every always-visible required atom, filled with good values (the type is set by each test).
    static let common = [
        "srcAccount=\(Demo.current)", "payerStatus=01", "payerInn=7707083893", "kbk=18210102010011000110", "oktmo=45382000",
        "destName=УФК по г. Москве", "destInn=7727406020", "destKpp=770801001", "destAccount=\(Demo.external)",
        "destBic=\(Demo.bic)", "destDesc=налог", "amount=1000",
    ]

    @Test("type 0: fields 106–109 hidden and ready without them")
    func ordinary() throws {
        let form = try HostSandbox().describe("pay.pp.tax", Self.common + ["type=0"])
        #expect(form["type"].value == "0")
        for id in Self.budgetFields {
            #expect(form[id].visible == false, "\(id)")
            #expect(form[id].error == nil)
        }
        #expect(form.ready, "\(form.atoms.filter { $0.error != nil })")
        #expect(form["destBicInfo"].caption == Demo.bankName)
    }

    @Test("no type chosen: fields 106–109 hidden, the type itself required")
    func noType() throws {
        let form = try HostSandbox().describe("pay.pp.tax", Self.common)
        #expect(form["type"].value == nil)
        #expect(Self.budgetFields.allSatisfy { !form[$0].visible })
        #expect(form.ready == false)
    }

    @Test("types 1 and 2: fields 106–109 appear; basis and period are then required, 108 and 109 start as 0", arguments: ["1", "2"])
    func budgetFieldsAppear(type: String) throws {
        let sandbox = try HostSandbox()
        let form = try sandbox.describe("pay.pp.tax", Self.common + ["type=\(type)"])
        #expect(Self.budgetFields.allSatisfy { form[$0].visible })
        #expect(form.ready == false)
        let text = try sandbox.host(["describe", "pay.pp.tax"] + (Self.common + ["type=\(type)"]).flatMap { ["--set", $0] })
        #expect(text.stdout.contains("basis: required: Payment basis (106)"), "\(text.stdout)")
        #expect(text.stdout.contains("period: required: Tax period or customs office code (107)"))
        // 108 and 109 are "0" until a document is named (107n: no field of a budget payment is left empty).
        #expect(form["docNumber"].value == "0")
        #expect(form["docDate"].value == "0")
        #expect(!text.stdout.contains("docNumber: required"))
        #expect(!text.stdout.contains("docDate: required"))
    }

    /// The English form's (rbs.texts/1); the codes of order 107n stay as the order writes them.
    static let periodError = "For a tax payment the period is МС.01.2026, КВ.02.2026, ПЛ.01.2026, ГД.00.2026, a due date DD.MM.YYYY or 0; for a customs payment, the customs office's code of 8 digits"

    @Test("period: КВ.02.2026 valid for type 1 only, 12345678 for type 2 only", arguments: [
        ("1", "КВ.02.2026", true), ("1", "МС.12.2026", true), ("1", "ГД.00.2025", true), ("1", "12345678", false),
        ("1", "МС.13.2026", false), ("1", "КВ.05.2026", false), ("2", "12345678", true), ("2", "КВ.02.2026", false),
        ("2", "1234567", false), ("1", "0", true), ("2", "0", false),
        // A due date the law sets (107n, appendix 2), a date that exists; no year 0000.
        ("1", "12.03.2026", true), ("1", "31.02.2026", false), ("2", "12.03.2026", false), ("1", "МС.03.0000", false),
    ])
    func period(type: String, period: String, valid: Bool) throws {
        let form = try HostSandbox().describe("pay.pp.tax", Self.common + ["type=\(type)", "basis=ТП", "period=\(period)"])
        #expect(form["period"].value == period)
        #expect(form["period"].error == (valid ? nil : Self.periodError))
        #expect(form.ready == valid)
    }

    @Test("the period is re-checked when the type changes after it")
    func periodFollowsType() throws {
        let sandbox = try HostSandbox()
        let toCustoms = try sandbox.describe("pay.pp.tax", Self.common + ["type=1", "basis=ТП", "period=КВ.02.2026", "type=2"])
        #expect(toCustoms["period"].error == Self.periodError)
        #expect(toCustoms.ready == false)
        let fixed = try sandbox.describe("pay.pp.tax", Self.common + ["type=1", "basis=ТП", "period=12345678", "type=2"])
        #expect(fixed["period"].error == nil)
        #expect(fixed.ready)
        // Back to type 0: the invalid period is hidden and no longer blocks.
        let hidden = try sandbox.describe("pay.pp.tax", Self.common + ["type=1", "basis=ТП", "period=12345678", "type=0"])
        #expect(hidden["period"].visible == false)
        #expect(hidden.ready)
    }

    @Test("basis must be one of order 107n's codes, or 0 in a tax payment", arguments: [
        ("1", "ТП", true), ("1", "ЗД", true), ("1", "КВ", true), ("1", "XX", false), ("1", "тп", false), ("1", "0", true),
        ("2", "ДЕ", true), ("2", "0", false),
    ])
    func basis(type: String, value: String, valid: Bool) throws {
        let period = type == "1" ? "КВ.02.2026" : "10702070"
        let form = try HostSandbox().describe("pay.pp.tax", Self.common + ["type=\(type)", "basis=\(value)", "period=\(period)"])
        #expect((form["basis"].error == nil) == valid, "\(form["basis"])")
        #expect(form.ready == valid)
    }

    static let docDateError = "The basis document's date is DD.MM.YYYY, a date that exists (31.03.2026), or 0 if there is no document"

    @Test("basis is at most 2 characters; docDate is 0 or a date that exists, written ДД.ММ.ГГГГ", arguments: [
        ("0", true), ("28.02.2026", true), ("29.02.2024", true), ("29.02.2026", false), ("31.04.2026", false),
        ("13.13.2026", false), ("2026-02-28", false), ("1.02.2026", false), ("00", false), ("31.12.9999", false),
    ])
    func basisLengthAndDate(date: String, valid: Bool) throws {
        let sandbox = try HostSandbox()
        let long = try sandbox.describe("pay.pp.tax", ["type=1", "basis=ТПТ"])
        #expect(long["basis"].error?.hasPrefix("too long") == true, "\(long["basis"])")
        let form = try sandbox.describe("pay.pp.tax", Self.common + ["type=1", "basis=ТР", "period=0", "docNumber=12",
                                                                      "docDate=\(date)"])
        #expect(form["docDate"].value == date)
        #expect(form["docDate"].error == (valid ? nil : Self.docDateError))
        #expect(form.ready == valid)
    }

    @Test("the single tax payment by the rules of 2023: 0 in fields 105–109 is accepted and reaches the document")
    func zerosOfTheSingleTaxPayment() throws {
        let sandbox = try HostSandbox()
        let zeros = Self.singleTaxPayment.filter { !$0.hasPrefix("basis=") && !$0.hasPrefix("period=") && !$0.hasPrefix("oktmo=") }
            + ["oktmo=0", "basis=0", "period=0", "docNumber=0", "docDate=0"]
        let form = try sandbox.describe("pay.pp.tax", zeros)
        #expect(form.ready, "\(form.atoms.filter { $0.error != nil })")
        for id in ["oktmo", "basis", "period", "docNumber", "docDate"] { #expect(form[id].value == "0", "\(id)") }
        // OKTMO 0 belongs to the single tax payment alone.
        let other = try sandbox.describe("pay.pp.tax", Self.common + ["type=1", "basis=ТП", "period=0", "oktmo=0"])
        #expect(other["oktmo"].error == Self.oktmoError)
        // All zeros names no territory.
        for zeros in ["00000000", "00000000000"] {
            let form = try sandbox.describe("pay.pp.tax", Self.common + ["type=1", "basis=ТП", "period=0", "oktmo=\(zeros)"])
            #expect(form["oktmo"].error == Self.oktmoError, "\(zeros)")
        }
    }

    @Test("choosing the single tax payment fills its requisites and the zeros; the payer's own fields stay as typed")
    func singleTaxPaymentChoice() throws {
        let sandbox = try HostSandbox()
        let form = try sandbox.describe("pay.pp.tax", ["srcAccount=\(Demo.current)", "payerStatus=13", "payerInn=500100732259",
                                                       "requisites=enp", "amount=2500"])
        let expected = [
            "type": "1", "payerStatus": "13", "payerInn": "500100732259", "uin": "0", "kbk": "18201061201010000510",
            "oktmo": "0", "basis": "0", "period": "0", "docNumber": "0", "docDate": "0",
            "destName": "Казначейство России (ФНС России)", "destInn": "7727406020", "destKpp": "770801001",
            "destAccount": "03100643000000018500", "destBic": "017003983", "destDesc": "Единый налоговый платёж",
        ]
        for (id, value) in expected { #expect(form[id].value == value, "\(id)") }
        #expect(form["destBicInfo"].caption == "ОТДЕЛЕНИЕ ТУЛА БАНКА РОССИИ//УФК по Тульской области")
        #expect(form.ready, "\(form.atoms.filter { $0.error != nil })")
        // An empty status becomes 01, the single tax payment's status for organisations, entrepreneurs and persons.
        #expect(try sandbox.describe("pay.pp.tax", ["requisites=enp"])["payerStatus"].value == "01")
    }

    static let oktmoError = "The OKTMO has 8 or 11 digits, not all zeros; 0 is allowed only in the single tax payment (KBK 18201061201010000510)"
    static let destInnError = "The payee's INN is wrong: its first two digits (the region's code) are never 00 and its check digits must match; a budget payment needs the exact INN"
    static let payerInnError = "The payer's INN has 10 digits for an organisation or 12 for a person, the first two (the region's code) not 00, with correct check digits; only a person without an INN (status 13 or 24) may write 0, and then gives the UIN"
    static let uinError = "The UIN has 20 or 25 digits, the last a check digit (check the number against the document), or is 0 if there is none; without the payer's INN (0 in field 60) the UIN is required"

    @Test("the payer's INN (60): a correct INN, or 0 for a person (13, 24) who then gives an УИН (22) with its check digit", arguments: [
        ("01", "7707083893", "0", true), ("01", "500100732259", "0", true), ("01", "7707083894", "0", false),
        ("01", "0", "18209965235364459240", false), ("13", "0", "18209965235364459240", true),
        ("24", "0", "3221100100000000000001236", true), ("13", "0", "0", false), ("13", "0", "18209965235364459241", false),
        ("13", "500100732259", "18209965235364459240", true), ("13", "500100732259", "1820996523536445924", false),
        ("01", "0000000000", "0", false), ("01", "000000000000", "0", false),  // no region has the code 00
    ])
    func payerInnAndUin(status: String, inn: String, uin: String, valid: Bool) throws {
        let form = try HostSandbox().describe("pay.pp.tax", Self.common.filter { !$0.hasPrefix("payerStatus=") && !$0.hasPrefix("payerInn=") }
                                              + ["type=0", "payerStatus=\(status)", "payerInn=\(inn)", "uin=\(uin)"])
        #expect(form["payerInn"].value == inn)
        #expect(form["uin"].value == uin)
        let innValid = Self.payerInnAccepts(status: status, inn: inn)
        #expect(form["payerInn"].error == (innValid ? nil : Self.payerInnError))
        #expect((form["uin"].error == nil) == (valid || !innValid), "\(form["uin"])")
        if form["uin"].error != nil { #expect(form["uin"].error == Self.uinError) }
        #expect(form.ready == valid, "\(form.atoms.filter { $0.error != nil })")
    }

    static func payerInnAccepts(status: String, inn: String) -> Bool {
        inn == "0" ? ["13", "24"].contains(status) : inn != "7707083894" && !inn.hasPrefix("00")
    }

    @Test("withdrawn payer statuses are refused in the reader's language; the УИН starts as 0", arguments: ["09", "10", "11", "12", "14", "00"])
    func withdrawnStatus(status: String) throws {
        let sandbox = try HostSandbox()
        let form = try sandbox.describe("pay.pp.tax", ["payerStatus=\(status)"])
        #expect(form["payerStatus"].error == "Statuses 09–12 and 14 were withdrawn on 11.02.2023 (order 199n): an entrepreneur, a notary, a lawyer or the head of a farm writes 01; 00 is not a status")
        #expect(form["uin"].value == "0")
        #expect(try sandbox.describe("pay.pp.tax", ["payerStatus=\(status)"], language: "ru")["payerStatus"].error
                == "Статусы 09–12 и 14 отменены с 11.02.2023 (приказ 199н): ИП, нотариус, адвокат, глава КФХ указывают 01; 00 — не статус")
    }

    /// The single tax payment's real requisites (published by the Federal Tax Service since 2023): the treasury
    /// account 03… at the treasury office's BIC, whose single treasury account 40102… is the bank's account.
    static let singleTaxPayment = [
        "srcAccount=\(Demo.current)", "type=1", "payerStatus=01", "payerInn=7707083893", "kbk=18201061201010000510", "oktmo=45382000",
        "basis=ТП", "period=ГД.00.2026", "destName=Казначейство России (ФНС России)", "destInn=7727406020",
        "destKpp=770801001", "destAccount=03100643000000018500", "destBic=017003983", "destDesc=Единый налоговый платёж",
        "amount=1 000,00",
    ]

    @Test("real treasury requisites are accepted: the single tax payment (BIC 017003983) and Moscow's treasury office (004525988)")
    func realTreasuryRequisites() throws {
        let sandbox = try HostSandbox()
        let form = try sandbox.describe("pay.pp.tax", Self.singleTaxPayment)
        #expect(form["destAccount"].error == nil)
        #expect(form["destBic"].error == nil)
        #expect(form["destBicInfo"].caption == "ОТДЕЛЕНИЕ ТУЛА БАНКА РОССИИ//УФК по Тульской области")
        #expect(form.ready, "\(form.atoms.filter { $0.error != nil })")
        let moscow = try sandbox.describe("pay.pp.tax", Self.singleTaxPayment.filter { !$0.hasPrefix("destAccount=") && !$0.hasPrefix("destBic=") }
                                          + ["destAccount=03100643000000017300", "destBic=004525988"])
        #expect(moscow["destBicInfo"].caption == "ГУ Банка России по ЦФО//УФК по г. Москве")
        #expect(moscow.ready, "\(moscow.atoms.filter { $0.error != nil })")
        // A treasury account must be in rubles (digits 6–8 = 643).
        let wrong = try sandbox.describe("pay.pp.tax", ["destAccount=03100840000000017300", "destBic=004525988"])
        #expect(wrong["destAccount"].error == Self.destAccountError)
    }

    static let destAccountError = "The account number does not match the BIC (control key): check both; a treasury account starts with 03 and is in roubles (643 in characters 6–8)"

    @Test("a KPP may carry capital Latin letters in positions 5–6")
    func kppWithLetters() throws {
        let sandbox = try HostSandbox()
        #expect(try sandbox.describe("pay.pp.tax", ["destKpp=7736AB001"])["destKpp"].error == nil)
        #expect(try sandbox.describe("pay.pp.tax", ["destKpp=7736ab001"])["destKpp"].error
                == "The KPP is 9 characters: 4 digits (the tax office's code, not 0000), 2 digits or capital Latin letters (A–Z), 3 digits")
        #expect(try sandbox.describe("pay.pp.tax", ["destKpp=7736ab001"], language: "ru")["destKpp"].error
                == "КПП — 9 знаков: 4 цифры (код налогового органа, не 0000), 2 цифры или заглавные латинские буквы (A–Z), 3 цифры")
        #expect(try sandbox.describe("pay.pp.quick", ["destKpp=7736AB001"])["destKpp"].error == nil)
        #expect(try sandbox.describe("pay.pp.quick", ["destKpp=77o801001"])["destKpp"].error
                == "The KPP is 9 characters: 4 digits (the tax office's code, not 0000), 2 digits or capital Latin letters (A–Z), 3 digits")
        // The shape of a KPP, but 0000 is no tax office's code.
        #expect(try sandbox.describe("pay.pp.tax", ["destKpp=000000000"])["destKpp"].error
                == "The KPP is 9 characters: 4 digits (the tax office's code, not 0000), 2 digits or capital Latin letters (A–Z), 3 digits")
        let zeros = try sandbox.describe("pay.pp.quick", DescribeQuickTests.complete + ["destKpp=000000000"])
        #expect(zeros["destKpp"].error
                == "The KPP is 9 characters: 4 digits (the tax office's code, not 0000), 2 digits or capital Latin letters (A–Z), 3 digits")
        #expect(zeros.ready == false)
    }

    @Test("OKTMO 8 or 11 digits; the payee's INN must be correct and 10–12 digits; KPP 9 digits")
    func codes() throws {
        let sandbox = try HostSandbox()
        // The check names the KBK too (0 is the single tax payment's OKTMO): it is judged once the KBK is there.
        let oktmo = try sandbox.describe("pay.pp.tax", ["oktmo=123456789", "kbk=18210102010011000110"])
        #expect(oktmo["oktmo"].error == Self.oktmoError)
        #expect(try sandbox.describe("pay.pp.tax", ["oktmo=12345678901", "kbk=18210102010011000110"])["oktmo"].error == nil)
        #expect(try sandbox.describe("pay.pp.tax", ["oktmo=0", "kbk=18210102010011000110"])["oktmo"].error
                == Self.oktmoError)
        let inn = try sandbox.describe("pay.pp.tax", ["destInn=7727406021"])
        #expect(inn["destInn"].error == Self.destInnError)
        #expect(try sandbox.describe("pay.pp.tax", ["destInn=0000000000"])["destInn"].error == Self.destInnError)
        #expect(try sandbox.describe("pay.pp.tax", ["destInn=000000000000"])["destInn"].error == Self.destInnError)
        #expect(try sandbox.describe("pay.pp.tax", ["destInn=0000000000"], language: "ru")["destInn"].error
                == "ИНН получателя неверен: первые две цифры (код региона) не бывают 00, а контрольные цифры должны сходиться; бюджетному платежу нужен точный ИНН")
        #expect(try sandbox.describe("pay.pp.tax", ["destInn=123456789"])["destInn"].error?.hasPrefix("too short") == true)
        #expect(try sandbox.describe("pay.pp.tax", ["destKpp=77080100"])["destKpp"].error?.hasPrefix("too short") == true)
        #expect(try sandbox.describe("pay.pp.tax", ["payerStatus=1"])["payerStatus"].error?.hasPrefix("too short") == true)
        let unknown = try sandbox.describe("pay.pp.tax", ["destBic=123456789"])
        #expect(unknown["destBic"].error == "BIC 123456789 is not in the bank directory: check it against the payee's details")
        #expect(try sandbox.describe("pay.pp.tax", ["destBic=123456789"], language: "ru")["destBic"].error
                == "БИК 123456789 нет в справочнике банков: сверьте его с реквизитами получателя")
        #expect(unknown["destBicInfo"].caption == "")
    }

    @Test("the type: by value or by title (never by list number); anything else is refused with the options", arguments: [
        ("0", "0"), ("2", "2"), ("Налоговый платёж", "1"), ("таможенный платёж", "2"), ("Тамож", "2"),
    ])
    func typeChoice(input: String, value: String) throws {
        let form = try HostSandbox().describe("pay.pp.tax", ["type=\(input)"])
        #expect(form["type"].value == value)
        #expect(form["type"].error == nil)
    }

    @Test("an unknown type is refused with the list of options")
    func typeRefused() throws {
        let form = try HostSandbox().describe("pay.pp.tax", ["type=4"])
        #expect(form["type"].value == nil)
        #expect(form["type"].error == "'4' is not one of the options — type the option's value or its title: 0 (Ordinary), 1 (Tax payment), 2 (Customs payment)")
    }

    @Test("an amount of zero is refused")
    func zeroAmount() throws {
        let form = try HostSandbox().describe("pay.pp.tax", Self.common + ["type=0", "amount=0"])
        #expect(form["amount"].error != nil)
        #expect(form.ready == false, "a refused --set means the form asked for is not ready")
    }
}
