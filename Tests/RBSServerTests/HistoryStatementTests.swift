import Foundation
import Hummingbird
import RBSLedger
@testable import RBSServer
import Testing

/// The customer's history searched by the core, one entry's details, and an account's statement as JSON and PDF.
@Suite("serve: history and statement", .serialized)
struct HistoryStatementTests {
    /// Signs a quick payment of `person` with `changes` over the usual values; answers its journal entry.
    @discardableResult
    static func pay(_ bank: TestBank, _ api: TestBank.API, _ person: TestBank.Person, _ token: String,
                    _ changes: [String: String] = [:]) async throws -> Int {
        let run = try #require(try await api.open("pay.pp.quick", token)["id"] as? String)
        let values = try bank.quickPayment(from: person).map { ($0.0, changes[$0.0].map { $0 as Any } ?? $0.1) }
        try await api.fill(run, values, token)
        let review = try await api.call(.post, "/api/v1/runs/\(run)/submit", token: token)
        try #require(review.status == 200, "\(review.text)")
        bank.clock.advance(30)  // a code is taken once per 30-second step
        let signed = try await api.call(.post, "/api/v1/runs/\(run)/sign", token: token, json: ["code": bank.code(person)])
        try #require(signed.status == 200, "\(signed.text)")
        return try #require(signed.object["journal"] as? Int)
    }

    private func sequences(_ answer: TestBank.API.Answer) -> [Int] { answer.array.compactMap { $0["sequence"] as? Int } }

    @Test("the history is searched by payee, purpose and amount and filtered by account, period and status, only in the customer's own journal")
    func search() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let alice = try await api.login(bank.alice), bob = try await api.login(bank.bob)
            let rent = try await Self.pay(bank, api, bank.alice, alice, ["destName": "ИП Васильев", "destDesc": "аренда офиса за ноябрь", "amount": "200"])
            let bill = try await Self.pay(bank, api, bank.alice, alice)
            let bobs = try await Self.pay(bank, api, bank.bob, bob)
            func found(_ query: String) async throws -> [Int] {
                let answer = try await api.call(.get, "/api/v1/journal" + query, token: alice)
                #expect(answer.status == 200, "\(query): \(answer.text)")
                return sequences(answer)
            }
            #expect(try await found("") == [rent, bill])
            #expect(try await found("?q=%D0%A0%D0%9E%D0%9C%D0%90%D0%A8%D0%9A%D0%90") == [bill], "РОМАШКА in any case; bob's payment is not alice's")
            #expect(try await found("?q=%D0%B0%D1%80%D0%B5%D0%BD%D0%B4%D0%B0") == [rent], "аренда: a word of the purpose")
            #expect(try await found("?q=1%20500,50") == [bill], "the amount as a person writes it")
            #expect(try await found("?q=200.00") == [rent])
            #expect(try await found("?q=zzz").isEmpty)
            #expect(try await found("?status=posted") == [rent, bill])
            #expect(try await found("?status=rejected").isEmpty)
            let account = try bank.ledger.customers.accounts(of: bank.alice.customer)[0].number
            #expect(try await found("?account=\(account)") == [rent, bill])
            #expect(try await found("?account=40702810638000000999").isEmpty)
            #expect(try await found("?from=2027-01-15&to=2027-01-15") == [rent, bill], "the clock's day, both ends included")
            #expect(try await found("?from=2027-01-16").isEmpty)
            // A day as a person types it, read by the date atoms' parser (the web page's text fields send it so).
            #expect(try await found("?from=15.01.2027&to=15.01.2027") == [rent, bill], "ДД.ММ.ГГГГ, both ends included")
            #expect(try await found("?from=16.01.2027&tz=UTC").isEmpty)
            let badZone = try await api.call(.get, "/api/v1/journal?from=15.01.2027&tz=Mars/Olympus", token: alice)
            #expect(badZone.status == 400 && badZone.object["detail"] as? String == "tz=Mars/Olympus is not a time zone (an IANA name such as Europe/Moscow)",
                    "\(badZone.text)")
            #expect(try await found("?to=2027-01-14T23:59:59Z").isEmpty)

            let badStatus = try await api.call(.get, "/api/v1/journal?status=lost", token: alice)
            #expect(badStatus.status == 400 && badStatus.object["type"] as? String == "urn:rbs-host:problem:bad-query")
            #expect((badStatus.object["detail"] as? String)?.hasPrefix("status=lost is not an outcome") == true, "\(badStatus.text)")
            let badDay = try await api.call(.get, "/api/v1/journal?from=2027-02-30", token: alice)
            #expect(badDay.status == 400 && (badDay.object["detail"] as? String)?.hasPrefix("from=2027-02-30 is neither a day") == true,
                    "\(badDay.text)")
            // The problem names the parameter (its `atom`): the web client marks that field and says it in its words.
            #expect(badDay.object["atom"] as? String == "from")
            let reversed = try await api.call(.get, "/api/v1/journal?from=16.01.2027&to=15.01.2027", token: alice)
            #expect(reversed.status == 400 && reversed.object["atom"] as? String == "to", "\(reversed.text)")
            #expect(badZone.object["atom"] as? String == "tz")
            let backwards = try await api.call(.get, "/api/v1/journal?from=2027-01-16&to=2027-01-15", token: alice)
            #expect(backwards.status == 400, "\(backwards.text)")

            // One entry's details: the presentation's sections, the payee and purpose; another's entry does not exist.
            let entry = try await api.call(.get, "/api/v1/journal/\(rent)", token: alice, language: "ru")
            #expect(entry.status == 200, "\(entry.text)")
            let line = try #require(entry.array.first)
            #expect(line["payee"] as? String == "ИП Васильев" && line["purpose"] as? String == "Аренда офиса за ноябрь")
            #expect(line["operation"] as? String == "pay.pp.quick" && line["title"] as? String == "Запись журнала \(rent)")
            #expect(!((line["sections"] as? [[String: Any]]) ?? []).isEmpty)
            let others = try await api.call(.get, "/api/v1/journal/\(bobs)", token: alice)
            #expect(others.status == 404, "\(others.text)")
            #expect(try await api.call(.get, "/api/v1/journal/\(bobs)", token: bob).status == 200)
        }
    }

    @Test("a statement of the customer's account: opening, each posting with payee and purpose, closing; another's account is not found")
    func statement() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let alice = try await api.login(bank.alice)
            let rent = try await Self.pay(bank, api, bank.alice, alice, ["destName": "ИП Васильев", "destDesc": "аренда офиса", "amount": "200"])
            let account = try bank.ledger.customers.accounts(of: bank.alice.customer)[0].number
            let answer = try await api.call(.get, "/api/v1/accounts/\(account)/statement", token: alice)
            #expect(answer.status == 200, "\(answer.text)")
            let statement = answer.object
            #expect(statement["account"] as? String == account && statement["currency"] as? String == "RUB")
            #expect(statement["opening"] as? String == "150000.00" && statement["closing"] as? String == "149800.00", "\(answer.text)")
            #expect(statement["from"] is NSNull && statement["to"] is NSNull)
            let lines = (statement["lines"] as? [[String: Any]]) ?? []
            #expect(lines.count == 1)
            #expect(lines.first?["journal"] as? Int == rent && lines.first?["amount"] as? String == "-200.00")
            #expect(lines.first?["purpose"] as? String == "Аренда офиса")
            #expect((lines.first?["counterparty"] as? [String: Any])?["name"] as? String == "ИП Васильев")

            let later = try await api.call(.get, "/api/v1/accounts/\(account)/statement?from=2027-01-16", token: alice)
            #expect(later.object["opening"] as? String == "149800.00" && ((later.object["lines"] as? [Any]) ?? [1]).isEmpty, "\(later.text)")
            let bobs = try bank.ledger.customers.accounts(of: bank.bob.customer)[0].number
            let other = try await api.call(.get, "/api/v1/accounts/\(bobs)/statement", token: alice)
            #expect(other.status == 404 && (other.object["detail"] as? String)?.contains("not one of this customer's accounts") == true)
            #expect(try await api.call(.get, "/api/v1/accounts/\(bobs)/statement.pdf", token: alice).status == 404)
            let zone = try await api.call(.get, "/api/v1/accounts/\(account)/statement.pdf?tz=Mars/Olympus", token: alice)
            #expect(zone.status == 400 && (zone.object["detail"] as? String)?.hasPrefix("tz=Mars/Olympus is not a time zone") == true)
        }
    }

    @Test("the statement's PDF is an attachment that pdftotext reads back: the heading, the holder, when it was made (in the asked zone), the opening and closing balances and the payee, in Russian")
    func statementPDF() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let alice = try await api.login(bank.alice)
            try await Self.pay(bank, api, bank.alice, alice, ["destName": "ИП Васильев", "destDesc": "аренда офиса", "amount": "200"])
            let account = try bank.ledger.customers.accounts(of: bank.alice.customer)[0].number
            let owner = try bank.ledger.customers.accounts(of: bank.alice.customer)[0].owner
            let asked = Date()
            let answer = try await api.call(.get, "/api/v1/accounts/\(account)/statement.pdf?lang=ru&tz=Europe/Moscow", token: alice)
            let answered = Date()
            #expect(answer.status == 200 && answer.contentType == "application/pdf", "\(answer.status) \(answer.contentType ?? "")")
            #expect(answer.headers[.contentDisposition] == "attachment; filename=\"statement-\(account).pdf\"")
            let bytes = Data(answer.body.readableBytesView)
            #expect(bytes.starts(with: Data("%PDF-1.4".utf8)))
            let file = bank.data.appendingPathComponent("statement.pdf")
            try bytes.write(to: file)
            let text = try Self.pdftotext(file)
            let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            #expect(lines.first?.hasPrefix("Выписка по счёту \(account)") == true, "\(lines)")
            #expect(!owner.isEmpty && lines.contains("Владелец счёта: \(owner)"), "\(owner) in \(lines)")
            // When it was made, to the minute, in Moscow's time: between the request and its answer.
            let issued = try #require(lines.first { $0.hasPrefix("Дата формирования: ") }, "\(lines)")
            #expect(issued.hasSuffix(" (Europe/Moscow)"), "\(issued)")
            let moscow = DateFormatter()
            moscow.locale = Locale(identifier: "en_US_POSIX")
            moscow.timeZone = TimeZone(identifier: "Europe/Moscow")
            moscow.dateFormat = "dd.MM.yyyy HH:mm"
            let said = try #require(moscow.date(from: String(issued.dropFirst("Дата формирования: ".count).prefix(16))), "\(issued)")
            #expect(said >= asked.addingTimeInterval(-60) && said <= answered, "\(issued) between \(asked) and \(answered)")
            #expect(lines.contains("Входящий остаток: 150\u{00A0}000,00 RUB") || lines.contains("Входящий остаток: 150 000,00 RUB"), "\(lines)")
            #expect(lines.contains { $0.hasPrefix("Исходящий остаток: 149") && $0.hasSuffix("800,00 RUB") }, "\(lines)")
            #expect(lines.contains { $0.hasPrefix("Контрагент") && $0.contains("ИП Васильев, 40702810638000000123") }, "\(lines)")
            #expect(lines.contains { $0.hasPrefix("Назначение") && $0.hasSuffix("Аренда офиса") }, "\(lines)")
        }
    }

    @Test("an entry's receipt is a PDF to download in the customer's language; another customer's entry is not found")
    func receiptPDF() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let alice = try await api.login(bank.alice), bob = try await api.login(bank.bob)
            let entry = try await Self.pay(bank, api, bank.alice, alice)
            let answer = try await api.call(.get, "/api/v1/journal/\(entry)/receipt.pdf?lang=ru", token: alice)
            #expect(answer.status == 200 && answer.contentType == "application/pdf", "\(answer.status) \(answer.text.prefix(300))")
            #expect(answer.headers[.contentDisposition] == "attachment; filename=\"receipt-\(entry).pdf\"")
            let file = bank.data.appendingPathComponent("receipt.pdf")
            try Data(answer.body.readableBytesView).write(to: file)
            let lines = try Self.pdftotext(file).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            #expect(lines.first == "Квитанция к записи журнала \(entry)", "\(lines)")
            #expect(lines.contains { $0.hasPrefix("Получатель") && $0.hasSuffix("ООО Ромашка") }, "\(lines)")
            #expect(try await api.call(.get, "/api/v1/journal/\(entry)/receipt.pdf", token: bob).status == 404)
        }
    }

    static func pdftotext(_ file: URL) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["pdftotext", "-layout", file.path, "-"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "pdftotext (poppler-utils) could not read the statement")
        return String(decoding: data, as: UTF8.self)
    }
}
