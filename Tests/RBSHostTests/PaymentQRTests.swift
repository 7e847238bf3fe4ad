import Foundation
import Testing

/// `run --qr TEXT`, `run --qr-image FILE`, the REPL's `qr`, and `journal receipt N --format qr`: payment QR codes
/// (ГОСТ Р 56042-2014) as invoices and tax notices print them.
@Suite("payment QR codes")
struct PaymentQRHostTests {
    static let invoice = "ST00012|Name=ООО Ромашка|PersonalAcc=\(Demo.external)|BankName=ПАО Сбербанк|BIC=\(Demo.bic)"
        + "|CorrespAcc=30101810400000000225|PayeeINN=1234567894|Purpose=Оплата по счёту № 7|Sum=150050|Contract=77-1"

    /// A person without an INN pays the single tax payment by the УИН of their tax notice.
    static func taxNotice(uin: String) -> String {
        "ST00012|Name=Казначейство России (ФНС России)|PersonalAcc=03100643000000018500"
            + "|BankName=ОТДЕЛЕНИЕ ТУЛА БАНКА РОССИИ//УФК по Тульской области, г Тула|BIC=017003983"
            + "|CorrespAcc=40102810445370000059|PayeeINN=7727406020|KPP=770801001|DrawerStatus=13|PayerINN=0"
            + "|UIN=\(uin)|CBC=18201061201010000510|OKTMO=0|PaytReason=0|TaxPeriod=0|DocNo=0|DocDate=0"
            + "|Purpose=Единый налоговый платёж|Sum=250000"
    }

    private func enrolled() throws -> HostSandbox {
        let sandbox = try HostSandbox()
        try sandbox.initKeys()
        return sandbox
    }

    private func run(_ sandbox: HostSandbox, _ source: [String], _ assignments: [String] = ["srcAccount=\(Demo.current)"])
        throws -> (report: RunJSON, process: ProcessResult) {
        sandbox.step()
        let code = try sandbox.code()
        let result = try sandbox.host(["run"] + source + assignments.flatMap { ["--set", $0] }
                                      + ["--code", code, "--json", "--confirm-duplicate"])
        return (try decode(RunJSON.self, result.stdout), result)
    }

    @Test("run --qr: an invoice opens the payment order prefilled and posts; the fields no atom takes are said on stderr")
    func invoice() throws {
        let sandbox = try enrolled()
        let (report, process) = try run(sandbox, ["--qr", Self.invoice])
        #expect(report.status == "posted", "\(process)")
        #expect(report.document?.operation == "pay.pp.quick")
        #expect(report.document?.fields == ["from": Demo.current, "name": "ООО Ромашка", "inn": "1234567894", "kpp": "",
                                            "account": Demo.external, "bic": Demo.bic, "purpose": "Оплата по счёту № 7",
                                            "amount": "1500.50", "currency": "RUB"])
        #expect(process.stderr == "from the QR code, not a field of the form (check them yourself): BankName=ПАО Сбербанк; "
                + "CorrespAcc=30101810400000000225; Contract=77-1\n")
    }

    @Test("a person's tax notice with an УИН posts as the single tax payment; with UIN=0 and no INN it is held back on the УИН")
    func personsTaxNotice() throws {
        let sandbox = try enrolled()
        let held = try run(sandbox, ["--qr", Self.taxNotice(uin: "0")])
        #expect(held.report.status == "invalid")
        #expect(held.report.errors == [.init(atom: "uin", message: DescribeTaxTests.uinError)])
        #expect(try sandbox.journal().isEmpty)

        let (report, process) = try run(sandbox, ["--qr", Self.taxNotice(uin: "18209965235364459240")])
        #expect(report.status == "posted", "\(process)")
        let fields = try #require(report.document?.fields)
        #expect(report.document?.operation == "pay.pp.tax")
        #expect(fields["payerStatus"] == "13" && fields["payerInn"] == "0" && fields["uin"] == "18209965235364459240")
        #expect(fields["kbk"] == "18201061201010000510" && fields["account"] == "03100643000000018500")
        #expect(["oktmo", "basis", "period", "docNumber", "docDate"].allSatisfy { fields[$0] == "0" })
        #expect(fields["amount"] == "2500.00")
    }

    @Test("every value of the code is still checked by the form: a wrong account key is refused on its atom")
    func formChecksEveryValue() throws {
        let sandbox = try enrolled()
        let wrong = Self.invoice.replacingOccurrences(of: "PersonalAcc=\(Demo.external)", with: "PersonalAcc=40702810638000000124")
        let (report, _) = try run(sandbox, ["--qr", wrong])
        #expect(report.status == "invalid")
        #expect(report.errors.map(\.atom) == ["destAccount"])
        #expect(try sandbox.journal().isEmpty)
    }

    @Test("a text that is not a payment code is refused naming the field, before anything is opened")
    func refused() throws {
        let sandbox = try enrolled()
        let missing = try sandbox.host(["run", "--qr", "ST00012|Name=ООО Ромашка|PersonalAcc=\(Demo.external)", "--code", "000000"])
        #expect(missing.status == 1)
        #expect(missing.stderr == "error: --qr: the required field BankName is missing or empty (required: Name, PersonalAcc, BankName, BIC, CorrespAcc)\n")
        let russian = try sandbox.host(["run", "--lang", "ru", "--qr", "ST00014|Name=a", "--code", "000000"])
        #expect(russian.stderr == "error: --qr: неизвестная кодировка «4» после ST0001: 1 (windows-1251), 2 (UTF-8) или 3 (KOI8-R)\n")
        let both = try sandbox.host(["run", "pay.pp.quick", "--qr", Self.invoice, "--code", "000000"])
        #expect(both.status != 0 && both.stderr.contains("give one of OPERATION, --qr TEXT or --qr-image FILE"))
    }

    /// A picture made by Debian's qrencode from windows-1251 bytes, read back by ZBar.
    @Test("run --qr-image: a windows-1251 code in a PNG is read by ZBar with its own bytes and posts")
    func image() throws {
        let sandbox = try enrolled()
        let text = Self.invoice.replacingOccurrences(of: "ST00012", with: "ST00011")
        let bytes = try #require(text.data(using: .windowsCP1251))
        let folder = sandbox.data.deletingLastPathComponent()
        let input = folder.appendingPathComponent("invoice.txt")
        try bytes.write(to: input)
        let picture = folder.appendingPathComponent("invoice.png")
        let made = try runProcess(URL(fileURLWithPath: "/usr/bin/qrencode"), ["-8", "-r", input.path, "-o", picture.path],
                                  environment: ProcessInfo.processInfo.environment)
        try #require(made.status == 0, "qrencode (Debian's qrencode package): \(made)")
        let (report, process) = try run(sandbox, ["--qr-image", picture.path])
        #expect(report.status == "posted", "\(process)")
        #expect(report.document?.fields["name"] == "ООО Ромашка")
        #expect(report.document?.fields["purpose"] == "Оплата по счёту № 7")

        let missing = try sandbox.host(["run", "--qr-image", "/nonexistent.png", "--code", "000000"])
        #expect(missing.stderr == "error: --qr-image: /nonexistent.png: no such file, or it cannot be read\n")
        let notPicture = folder.appendingPathComponent("text.png")
        _ = try runProcess(URL(fileURLWithPath: "/usr/bin/qrencode"), ["-o", notPicture.path, "just text"],
                           environment: ProcessInfo.processInfo.environment)
        let notPayment = try sandbox.host(["run", "--qr-image", notPicture.path, "--code", "000000"])
        #expect(notPayment.stderr == "error: --qr-image: \(notPicture.path): not a payment QR code: the text starts with \"just text\", not ST0001 (ГОСТ Р 56042-2014)\n")
    }

    @Test("journal receipt N --format qr writes the posted payment as a code that opens the same payment")
    func receiptAsCode() throws {
        let sandbox = try enrolled()
        #expect(try run(sandbox, ["--qr", Self.invoice]).report.status == "posted")
        let receipt = try sandbox.host(["journal", "receipt", "1", "--format", "qr"])
        #expect(receipt.status == 0, "\(receipt)")
        #expect(receipt.stdout == "ST00012|Name=ООО Ромашка|PersonalAcc=\(Demo.external)|BankName=\(Demo.bankName)|BIC=\(Demo.bic)"
                + "|CorrespAcc=30101810400000000225|Sum=150050|Purpose=Оплата по счёту № 7|PayeeINN=1234567894\n")
        let again = try run(sandbox, ["--qr", receipt.stdout.trimmingCharacters(in: .newlines)])
        #expect(again.report.status == "posted")
        #expect(again.report.document?.fields["amount"] == "1500.50")
        #expect(again.process.stderr.contains("BankName=\(Demo.bankName); CorrespAcc=30101810400000000225\n"))
    }
}
