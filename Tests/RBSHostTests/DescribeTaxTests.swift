import Foundation
import Testing

/// `describe` over pay.pp.tax: fields 106–109 appear with the payment type, are then required and validated.
@Suite("describe pay.pp.tax")
struct DescribeTaxTests {
    static let budgetFields = ["basis", "period", "docNumber", "docDate"]

    /// Every always-visible required atom, filled with good values (the type is set by each test).
    static let common = [
        "srcAccount=\(Demo.current)", "payerStatus=01", "kbk=18210102010011000110", "oktmo=45382000",
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

    @Test("types 1 and 2: fields 106–109 appear; basis and period are then required", arguments: ["1", "2"])
    func budgetFieldsAppear(type: String) throws {
        let sandbox = try HostSandbox()
        let form = try sandbox.describe("pay.pp.tax", Self.common + ["type=\(type)"])
        #expect(Self.budgetFields.allSatisfy { form[$0].visible })
        #expect(form.ready == false)
        let text = try sandbox.host(["describe", "pay.pp.tax"] + (Self.common + ["type=\(type)"]).flatMap { ["--set", $0] })
        #expect(text.stdout.contains("basis: required: Основание платежа (106)"), "\(text.stdout)")
        #expect(text.stdout.contains("period: required: Налоговый период или код таможенного органа (107)"))
        // 108 and 109 are optional.
        #expect(!text.stdout.contains("docNumber: required"))
        #expect(!text.stdout.contains("docDate: required"))
    }

    static let periodError = "For a tax payment enter the period as МС.01.2026, КВ.02.2026, ПЛ.01.2026 or ГД.00.2026; for a customs payment the customs office code, 8 digits"

    @Test("period: КВ.02.2026 valid for type 1 only, 12345678 for type 2 only", arguments: [
        ("1", "КВ.02.2026", true), ("1", "МС.12.2026", true), ("1", "ГД.00.2025", true), ("1", "12345678", false),
        ("1", "МС.13.2026", false), ("1", "КВ.05.2026", false), ("2", "12345678", true), ("2", "КВ.02.2026", false),
        ("2", "1234567", false),
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

    @Test("basis must be one of order 107n's codes", arguments: [("ТП", true), ("ЗД", true), ("КВ", true), ("XX", false), ("тп", false)])
    func basis(value: String, valid: Bool) throws {
        let form = try HostSandbox().describe("pay.pp.tax", Self.common + ["type=1", "basis=\(value)", "period=КВ.02.2026"])
        #expect((form["basis"].error == nil) == valid, "\(form["basis"])")
        #expect(form.ready == valid)
    }

    @Test("basis is exactly 2 characters; docDate is a real date")
    func basisLengthAndDate() throws {
        let sandbox = try HostSandbox()
        let long = try sandbox.describe("pay.pp.tax", ["type=1", "basis=ТПТ"])
        #expect(long["basis"].error?.hasPrefix("too long") == true, "\(long["basis"])")
        let date = try sandbox.describe("pay.pp.tax", ["type=1", "docDate=2026-13-45"])
        #expect(date["docDate"].error == "2026-13-45: month 13 does not exist")
        #expect(date["docDate"].value == nil)
        let good = try sandbox.describe("pay.pp.tax", Self.common + ["type=1", "basis=ТП", "period=КВ.02.2026",
                                                                      "docNumber=12", "docDate=2026-02-28"])
        #expect(good["docDate"].value == "2026-02-28")
        #expect(good.ready)
    }

    /// The single tax payment's real requisites (published by the Federal Tax Service since 2023): the treasury
    /// account 03… at the treasury office's BIC, whose single treasury account 40102… is the bank's account.
    static let singleTaxPayment = [
        "srcAccount=\(Demo.current)", "type=1", "payerStatus=01", "kbk=18201061201010000510", "oktmo=45382000",
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
        #expect(wrong["destAccount"].error == "The account number does not match the BIC (control key): check both")
    }

    @Test("a KPP may carry capital Latin letters in positions 5–6")
    func kppWithLetters() throws {
        let sandbox = try HostSandbox()
        #expect(try sandbox.describe("pay.pp.tax", ["destKpp=7736AB001"])["destKpp"].error == nil)
        #expect(try sandbox.describe("pay.pp.tax", ["destKpp=7736ab001"])["destKpp"].error
                == "The KPP is 9 characters: 4 digits, 2 digits or capital Latin letters (A–Z), 3 digits")
        #expect(try sandbox.describe("pay.pp.quick", ["destKpp=7736AB001"])["destKpp"].error == nil)
        #expect(try sandbox.describe("pay.pp.quick", ["destKpp=77o801001"])["destKpp"].error
                == "The KPP is 9 characters: 4 digits, 2 digits or capital Latin letters (A–Z), 3 digits")
    }

    @Test("OKTMO 8 or 11 digits; the payee's INN must be correct and 10–12 digits; KPP 9 digits")
    func codes() throws {
        let sandbox = try HostSandbox()
        let oktmo = try sandbox.describe("pay.pp.tax", ["oktmo=123456789"])
        #expect(oktmo["oktmo"].error == "The OKTMO code is 8 or 11 digits")
        #expect(try sandbox.describe("pay.pp.tax", ["oktmo=12345678901"])["oktmo"].error == nil)
        let inn = try sandbox.describe("pay.pp.tax", ["destInn=7727406021"])
        #expect(inn["destInn"].error == "The INN's check digits are wrong: budget payments need the payee's correct INN")
        #expect(try sandbox.describe("pay.pp.tax", ["destInn=123456789"])["destInn"].error?.hasPrefix("too short") == true)
        #expect(try sandbox.describe("pay.pp.tax", ["destKpp=77080100"])["destKpp"].error?.hasPrefix("too short") == true)
        #expect(try sandbox.describe("pay.pp.tax", ["payerStatus=1"])["payerStatus"].error?.hasPrefix("too short") == true)
        let unknown = try sandbox.describe("pay.pp.tax", ["destBic=123456789"])
        #expect(unknown["destBic"].error == "Unknown BIC 123456789: check it against the payee's details")
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
        #expect(form["type"].error == "'4' is not one of the options — type the option's value or its title: 0 (Обычный), 1 (Налоговый платёж), 2 (Таможенный платёж)")
    }

    @Test("an amount of zero is refused")
    func zeroAmount() throws {
        let form = try HostSandbox().describe("pay.pp.tax", Self.common + ["type=0", "amount=0"])
        #expect(form["amount"].error != nil)
        #expect(form.ready == false, "a refused --set means the form asked for is not ready")
    }
}
