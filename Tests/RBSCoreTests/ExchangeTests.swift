import Foundation
@testable import RBSCore
@testable import RBSLedger
import RBSMoney
import Testing

/// Exchange between own accounts (issue #34, part 3): the Bank of Russia's daily XML as published is imported with a
/// 1.5 % margin (USD 92,5058 → the bank sells at 93.893387 and buys at 91.118213), then the core converts, checks and
/// posts a transfer between the demo customer's RUB and USD accounts.
@Suite("Exchange between own accounts: the bank's rate, its age, both legs in one transaction")
struct ExchangeTests {
    static let rubles = "40817810438000000001"  // RUB 150 000.00
    static let dollars = "40817840638000000004"  // USD 2 500.00
    /// 2026-11-26T05:30:00Z: the rates are imported then.
    static let importTime = Date(timeIntervalSince1970: 1_795_671_000)
    static let importText = "2026-11-26T05:30:00.000Z"

    /// A fresh ledger with the host's keys, on a clock the test moves; the day's rates imported unless `rates` is false.
    struct Bank {
        let directory = Fixtures.temporaryDirectory("exchange")
        let clock = LockedClock(ExchangeTests.importTime)
        let ledger: Ledger
        let identity: SigningIdentity

        init(rates: Bool = true) throws {
            let clock = clock
            ledger = try Ledger.create(dataDirectory: directory, clock: { clock.now }).ledger
            let store = KeyStore(dataDirectory: directory)
            _ = try store.initialize(name: "Exchange", force: false)
            identity = try store.load()
            if rates { try importDay() }
        }

        func importDay(margin: String = "0.015") throws {
            let file = Fixtures.root.appendingPathComponent("Tests/Fixtures/rates/XML_daily.xml")
            let day = try DailyRates.read(try Data(contentsOf: file), file: "XML_daily.xml")
            try ledger.importRates(day.rates, date: day.date, margin: try #require(Decimal(string: margin)), source: "XML_daily.xml")
        }

        /// The plugin's fields of a transfer.own, drafted by the core (which adds the conversion).
        func transfer(from: String = ExchangeTests.rubles, to: String = ExchangeTests.dollars, amount: String,
                      currency: String = "RUB") throws -> Document {
            try ledger.draft(operation: "transfer.own", plugin: "ru.example.transfers", pluginVersion: "1.0.0",
                             fields: Self.fields(from: from, to: to, amount: amount, currency: currency))
        }

        static func fields(from: String, to: String, amount: String, currency: String) -> [DocumentField] {
            [DocumentField("from", from), DocumentField("account", to), DocumentField("amount", amount),
             DocumentField("currency", currency), DocumentField("purpose", "Перевод между своими счетами")]
        }

        /// `document` with `changes` made to its fields after the review (as a tampering client would), signed.
        func tampered(_ document: Document, _ changes: [String: String]) throws -> SignedDocument {
            let fields = document.fields.map { DocumentField($0.key, changes[$0.key] ?? $0.value) }
            return try identity.sign(try Document(operation: document.operation, plugin: document.plugin,
                                                  pluginVersion: document.pluginVersion, fields: fields,
                                                  createdAtMilliseconds: document.createdAtMilliseconds, nonce: document.nonce,
                                                  keyId: document.keyId))
        }

        func post(_ document: Document) throws -> Outcome {
            clock.now += 30
            return try ledger.signAndPost(document, code: TOTP.code(secret: identity.totpSecret ?? Data(), at: clock.now))
        }

        func balance(_ number: String) throws -> String {
            let account = try #require(try ledger.bank.account(number: number))
            return account.balance.plain
        }

        /// The postings of journal entry `sequence`: debit, credit, amount, currency.
        func postings(_ sequence: Int64) throws -> [[String]] {
            try ledger.database.read { db in
                try db.rows("SELECT debit, credit, amount, currency FROM postings WHERE journal_seq = ? ORDER BY id", sequence).map { row in
                    [try row["debit"], try row["credit"], try row["amount"], try row["currency"]]
                }
            }
        }

        func positions() throws -> [String: String] {
            try ledger.database.read { db in
                Dictionary(uniqueKeysWithValues: try db.rows("SELECT currency, balance FROM exchange_positions").map { row in
                    (try row["currency"] as String, try row["balance"] as String)
                })
            }
        }
    }

    static let rubPosition = ExchangePosition.number(of: "RUB") ?? "?"
    static let usdPosition = ExchangePosition.number(of: "USD") ?? "?"

    @Test("RUB → USD: the document carries the bank's sell rate, its time and both amounts; both legs post through the bank's positions and each currency balances")
    func rublesToDollars() throws {
        let bank = try Bank()
        let document = try bank.transfer(amount: "10000.00")
        // 10 000.00 / 93.893387 = 106.5037… USD: rounded down to the cent.
        #expect(document["creditAmount"] == "106.50")
        #expect(document["creditCurrency"] == "USD")
        #expect(document["rate"] == "93.893387")
        #expect(document["ratePair"] == "USD/RUB")
        #expect(document["rateTime"] == Self.importText)
        #expect(try bank.ledger.bank.validate(document) == nil)

        guard case .posted(let receipt) = try bank.post(document) else { Issue.record("not posted"); return }
        #expect(receipt.posting.conversion?.creditAmount == Decimal(string: "106.50"))
        #expect(receipt.posting.amount == Money(whole: 10_000, currency: .rub))
        #expect(try bank.balance(Self.rubles) == "140000.00")
        #expect(try bank.balance(Self.dollars) == "2606.50")
        #expect(try bank.postings(receipt.sequence) == [
            [Self.rubles, Self.rubPosition, "10000.00", "RUB"],
            [Self.usdPosition, Self.dollars, "106.50", "USD"],
        ])
        // The bank holds the rubles it took and owes the dollars it paid: each currency's movements sum to zero.
        #expect(try bank.positions() == ["RUB": "10000.00", "USD": "-106.50"])
        #expect(try bank.ledger.journal.verify() == .ok(1))
        #expect(Self.rubPosition.hasPrefix("47407810") && Self.usdPosition.hasPrefix("47407840"))
        #expect(AccountKey.isValid(account: Self.usdPosition, bic: DemoBank.bic))
    }

    @Test("USD → RUB at the bank's buy rate; a second conversion moves the same positions; the statement names the other own account")
    func dollarsToRubles() throws {
        let bank = try Bank()
        let document = try bank.transfer(from: Self.dollars, to: Self.rubles, amount: "100.00", currency: "USD")
        #expect(document["creditAmount"] == "9111.82")  // 100.00 × 91.118213 = 9 111.8213
        #expect(document["rate"] == "91.118213" && document["ratePair"] == "USD/RUB")
        guard case .posted = try bank.post(document) else { Issue.record("not posted"); return }
        guard case .posted = try bank.post(try bank.transfer(amount: "10000.00")) else { Issue.record("not posted"); return }
        #expect(try bank.balance(Self.dollars) == "2506.50")
        #expect(try bank.balance(Self.rubles) == "149111.82")
        #expect(try bank.positions() == ["RUB": "888.18", "USD": "-6.50"])
        #expect(try bank.ledger.journal.verify() == .ok(2))
        let statement = try bank.ledger.statement(account: Self.dollars)
        #expect(statement.lines.map(\.counterpartyAccount) == [Self.rubles, Self.rubles])
        #expect(statement.lines.map(\.amount) == [-100, Decimal(string: "106.50")!])
    }

    @Test("both legs are one transaction: a failure writing the conversion leaves no posting, no balance change, no journal entry")
    func oneTransaction() throws {
        let bank = try Bank()
        try bank.ledger.database.write { db in
            try db.executeScript("CREATE TRIGGER fail_exchange BEFORE INSERT ON exchanges BEGIN SELECT RAISE(ABORT, 'injected'); END;")
        }
        #expect(throws: LedgerError.self) { try bank.post(try bank.transfer(amount: "10000.00")) }
        #expect(try bank.balance(Self.rubles) == "150000.00")
        #expect(try bank.balance(Self.dollars) == "2500.00")
        #expect(try bank.positions().isEmpty)
        #expect(try bank.ledger.journal.entries().isEmpty)
        #expect(try bank.ledger.database.read { db in try db.value(Int64.self, "SELECT count(*) FROM postings") } == 0)
    }

    @Test("a rate older than 24 hours is refused before signing and when posted, naming the rate's time and the maximum age")
    func staleRate() throws {
        let bank = try Bank()
        let document = try bank.transfer(amount: "10000.00")
        bank.clock.now = Self.importTime + 24 * 3600 + 1
        let refusal = try #require(try bank.ledger.bank.validate(document))
        #expect(refusal.code == .exchangeRateStale)
        #expect(refusal.message == "the USD/RUB rate of \(Self.importText) is older than the maximum age of 24 hours for a conversion: the bank must import today's rates")
        #expect(HostMessage.describe(refusal, .ru)
                == "курс USD/RUB от \(Self.importText) старше допустимого для обмена (24 часа): банку нужно загрузить курсы на сегодня")
        // A document drafted now carries the same stale rate, and is refused the same way.
        #expect(try bank.ledger.bank.validate(try bank.transfer(amount: "10000.00"))?.code == .exchangeRateStale)
        guard case .rejected(_, _, let reason) = try bank.post(document) else { Issue.record("posted a stale rate"); return }
        #expect(reason == refusal)
        #expect(try bank.balance(Self.rubles) == "150000.00" && bank.balance(Self.dollars) == "2500.00")

        // The next day's import makes conversions possible again; the stale document stays refused: its rate is not current.
        try bank.importDay()
        let again = try #require(try bank.ledger.bank.validate(document))
        #expect(again.code == .exchangeRateStale, "the document's own rate is older than the maximum age")
        #expect(try bank.ledger.bank.validate(try bank.transfer(amount: "10000.00")) == nil)
    }

    @Test("a rate, pair, time or credited amount changed after the review is refused; a newer import since the review too")
    func tamperedRate() throws {
        let bank = try Bank()
        let document = try bank.transfer(amount: "10000.00")
        let key = bank.identity.publicKey
        let rate = try bank.ledger.bank.submit(signed: try bank.tampered(document, ["rate": "90.000000", "creditAmount": "111.11"]),
                                               publicKey: key)
        guard case .rejected(_, _, let reason) = rate else { Issue.record("posted a tampered rate"); return }
        #expect(reason.code == .exchangeRateNotCurrent)
        #expect(reason.message == "the document's rate USD/RUB 90.000000 of \(Self.importText) is not the bank's current rate USD/RUB 93.893387 of \(Self.importText): review the transfer again")

        let credited = try bank.ledger.bank.submit(signed: try bank.tampered(document, ["creditAmount": "106.51"]), publicKey: key)
        guard case .rejected(_, _, let mismatch) = credited else { Issue.record("posted a tampered amount"); return }
        #expect(mismatch.message == "the document credits 106.51 USD, but its amount buys 106.50 USD at its rate")

        let time = try bank.ledger.bank.submit(signed: try bank.tampered(document, ["rateTime": "2026-11-26T06:00:00.000Z"]), publicKey: key)
        guard case .rejected(_, _, let timeReason) = time else { Issue.record("posted a tampered time"); return }
        #expect(timeReason.code == .exchangeRateNotCurrent)

        // Conversion fields on a same-currency transfer show a conversion that never happens.
        let plain = try bank.ledger.draft(operation: "transfer.own", plugin: "ru.example.transfers", pluginVersion: "1.0.0",
                                          fields: Bank.fields(from: Self.rubles, to: "40817810738000000002", amount: "10.00", currency: "RUB")
                                              + [DocumentField("creditAmount", "10.00"), DocumentField("ratePair", "USD/RUB")])
        #expect(try bank.ledger.bank.validate(plain)?.code == .conversionMismatch)

        bank.clock.now += 3600
        try bank.importDay(margin: "0.02")
        let changed = try #require(try bank.ledger.bank.validate(document))
        #expect(changed.code == .exchangeRateNotCurrent)
        #expect(changed.facts["bankTime"] == "2026-11-26T06:30:00.000Z")
        #expect(try bank.balance(Self.rubles) == "150000.00")
        #expect(try bank.ledger.journal.verify() == .ok(3))
    }

    @Test("with no rates imported a conversion is refused clearly before any code; the document carries no rate")
    func noRates() throws {
        let bank = try Bank(rates: false)
        let document = try bank.transfer(amount: "10000.00")
        #expect(document["rate"] == nil && document["creditAmount"] == nil)
        let refusal = try #require(try bank.ledger.bank.validate(document))
        #expect(refusal.code == .noExchangeRate)
        #expect(refusal.message == "the bank has no exchange rate for USD: the bank must import the day's rates first")
        #expect(LedgerError.wouldBeRejected(refusal).description.contains(refusal.message))
    }

    @Test("a basket of conversions is decided in order: the second sees the balances the first leaves, in both currencies")
    func basketInOrder() throws {
        let bank = try Bank()
        let buy = try bank.transfer(amount: "100000.00")  // RUB 150 000.00 → 50 000.00; USD 2 500.00 → 3 565.03 (1 065.0377… down)
        let again = try bank.transfer(amount: "100000.00")  // no longer covered
        let back = try bank.transfer(from: Self.dollars, to: Self.rubles, amount: "3565.03", currency: "USD")  // the credit counts
        let decisions = try bank.ledger.bank.validate(batch: [buy, again, back])
        #expect(buy["creditAmount"] == "1065.03")
        #expect(decisions[0] == nil && decisions[2] == nil)
        #expect(decisions[1]?.code == .insufficientFunds)
        #expect(try bank.ledger.bank.validate(back)?.code == .insufficientFunds, "alone, the USD account does not hold 3 565.03")
    }

    @Test("rounding: the credited amount is rounded down to the credited currency's minor units (never half-up), cross rates to 6 decimals")
    func rounding() throws {
        let bank = try Bank()
        let rates = Dictionary(uniqueKeysWithValues: try bank.ledger.rates().map { ($0.currency, $0) })
        func credited(_ amount: String, _ from: String, _ to: String) throws -> String {
            let conversion = try Conversion.quoted(amount: try #require(Decimal(string: amount)), from: from, to: to, rates: rates).get()
            return "\(conversion.creditAmount) \(conversion.creditCurrency) at \(conversion.pair) \(conversion.rate)"
        }
        let q0 = try credited("0.05", "USD", "RUB")
        #expect(q0 == "4.55 RUB at USD/RUB 91.118213")  // 4.5559…: half-up would give 4.56
        let q1 = try credited("10000", "RUB", "USD")
        #expect(q1 == "106.5 USD at USD/RUB 93.893387")  // 106.5037…
        let q2 = try credited("100", "USD", "EUR")
        #expect(q2 == "92.11 EUR at USD/EUR 0.921196")  // 91.118213 / 98.912968 = 0.9211958…, then 92.1196
        let q3 = try credited("10", "USD", "JPY")
        #expect(q3 == "1476 JPY at USD/JPY 147.62082")  // JPY has no minor units: 1 476.2082
        #expect(throws: Conversion.QuoteProblem.tooSmall) { try Conversion.quoted(amount: Decimal(string: "0.01")!, from: "RUB", to: "USD", rates: rates).get() }
        #expect(throws: Conversion.QuoteProblem.noRate(currency: "GBP")) { try Conversion.quoted(amount: 1, from: "RUB", to: "GBP", rates: rates).get() }
        // A customer converting 0.01 RUB is told so, not credited nothing.
        #expect(try bank.ledger.bank.validate(try bank.transfer(amount: "0.01"))?.code == .conversionTooSmall)
    }

    @Test("the review, journal and receipts show the conversion: debited, credited, the rate and its time, in English and Russian")
    func presented() throws {
        let bank = try Bank()
        let document = try bank.transfer(amount: "10000.00")
        let english = DocumentPresentation.rows(document, operation: nil, directory: nil, language: .en).map { [$0.label, $0.value] }
        #expect(Array(english.prefix(4)) == [
            ["Debited", "10,000.00 RUB"], ["Credited", "106.50 USD"], ["Exchange rate", "1 USD = 93.893387 RUB"],
            ["Rate as of", "26.11.2026 05:30:00 UTC"],
        ])
        #expect(!english.contains { ["creditCurrency", "ratePair", "rateTime", "rate", "creditAmount"].contains($0[0]) },
                "every conversion field is shown once, under its caption: \(english)")
        let russian = DocumentPresentation.rows(document, operation: nil, directory: nil, language: .ru).map { [$0.label, $0.value] }
        #expect(Array(russian.prefix(4)) == [
            ["Списывается", Amount.shown("10000.00", currency: "RUB", .ru)], ["Зачисляется", Amount.shown("106.50", currency: "USD", .ru)],
            ["Курс обмена", "1 USD = 93,893387 RUB"], ["Курс на", "26.11.2026 05:30:00 UTC"],
        ])
    }
}
