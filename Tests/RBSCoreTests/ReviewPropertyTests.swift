import Foundation
import RBSLedger
import RBSMoney
import Testing
@testable import RBSCore

/// The property of issue #11: for random forms and random typed inputs, what the review showed — read back from its
/// lines as a person reads them, in English or Russian — is exactly what was signed, journaled and posted: amount,
/// currency, payee account, debit account, payee name.
@Suite(.serialized)
struct ReviewPropertyTests {
    /// A deterministic generator (SplitMix64): a failure names its seed and round, so it can be replayed.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// The host's clock, moved by the test: every signing gets its own TOTP step.
    final class SteppingClock: RBSCore.Clock, @unchecked Sendable {
        private let lock = NSLock()
        private var current = Date(timeIntervalSince1970: 1_790_000_000)
        var now: Date { lock.withLock { current } }
        func advance(_ seconds: TimeInterval) { lock.withLock { current += seconds } }
    }

    /// `minor` kopecks as a person might type them, in one of the unambiguous forms the edge accepts.
    static func typed(_ minor: Int, _ random: inout SplitMix) -> String {
        let whole = minor / 100, cents = String(format: "%02d", minor % 100)
        func grouped(_ separator: String) -> String {
            var digits = String(whole), out = ""
            while digits.count > 3 {
                out = separator + String(digits.suffix(3)) + out
                digits.removeLast(3)
            }
            return digits + out
        }
        switch Int.random(in: 0..<5, using: &random) {
        case 0: return "\(whole).\(cents)"
        case 1: return "\(grouped(" ")),\(cents)"
        case 2: return "\(grouped("\u{00A0}")),\(cents)"
        case 3: return "\(grouped(",")).\(cents)"
        default: return minor % 100 == 0 ? "\(whole)" : "\(whole),\(cents)"
        }
    }

    static let names = ["ООО Ромашка", "ИП Петров Пётр Петрович", "АО «Вектор»", "Smith & Sons Ltd", "ПАО Звезда-2", "Ёлкин Е. Е."]

    @Test("random forms (C and Swift plugins, in-process and in a worker) and random typed inputs: the review read back equals the signed document, the journal and the posting")
    func reviewIsWhatIsSignedAndPosted() throws {
        try #require(FileManager.default.isExecutableFile(atPath: WorkerIsolationTests.worker.path), "build rbs-host first")
        let seed: UInt64 = 20_261_124
        var random = SplitMix(state: seed)
        let data = Fixtures.temporaryDirectory("review-property")
        try Ledger.create(dataDirectory: data, clock: { Date(timeIntervalSince1970: 1_790_000_000) }).ledger.close()
        let enrolment = try KeyStore(dataDirectory: data).initialize(name: "property", force: false)
        let secret = try #require(enrolment.totpSecret)
        let clock = SteppingClock()
        let inProcess = Runtime(paths: HostPaths(plugins: Fixtures.plugins.path, data: data), clock: clock,
                                log: StandardErrorLog(minimum: .error))
        let ledger = try inProcess.ledger()
        // One ledger for both: the worker runtime offers the same accounts, with the balances as they move.
        let isolated = Runtime(paths: HostPaths(plugins: Fixtures.plugins.path, data: data), accounts: LedgerAccounts { (ledger, nil) },
                               clock: clock, log: StandardErrorLog(minimum: .error),
                               isolation: WorkerIsolationTests.settings(deadline: .seconds(10)))
        inProcess.loadPlugins()
        isolated.loadPlugins()
        var posted = 0, refused = 0
        for round in 0..<40 {
            let here = "seed \(seed) round \(round)"
            let runtime = Bool.random(using: &random) ? inProcess : isolated
            let language = HostLanguage.allCases.randomElement(using: &random)!
            let quick = Bool.random(using: &random)
            let session = try runtime.open(quick ? "pay.pp.quick" : "transfer.own")
            defer { session.close() }
            let minor = Int.random(in: 1...2_000_000, using: &random)
            let typedAmount = Self.typed(minor, &random)
            var name: String?
            if quick {
                let from = try #require(session.offeredAccounts(for: "srcAccount").randomElement(using: &random))
                name = Self.names.randomElement(using: &random)! + " \(round)"
                let serial = String(Int.random(in: 0...99_999_999_999, using: &random))
                let body = "407028100" + String(repeating: "0", count: 11 - serial.count) + serial
                let account = try #require(AccountKey.withKey(account: body, bic: "044525225"))
                for (id, text) in [("srcAccount", String(from.number)), ("destName", name!), ("destAccount", account),
                                   ("destBic", "044525225"), ("destDesc", "Оплата по счёту \(round)"), ("amount", typedAmount)] {
                    _ = try session.commit(id, text: text, reader: .person)
                }
            } else {
                let from = try #require(session.offeredAccounts(for: "fromAccount").randomElement(using: &random))
                _ = try session.commit("fromAccount", text: String(from.number), reader: .person)
                let to = try #require(session.offeredAccounts(for: "toAccount").randomElement(using: &random))
                _ = try session.commit("toAccount", text: String(to.number), reader: .person)
                _ = try session.commit("amount", text: typedAmount, reader: .person)
            }
            guard case .ready(let draft) = session.submit() else {
                // Accounts in different currencies: marked on the form, never offered for signing.
                #expect(!session.attention().isEmpty, "\(here): not ready, yet nothing needs attention")
                continue
            }
            let sign = try SignModule(draft: draft, ledger: ledger, directory: runtime.locator.optional(BankDirectory.self))
            let entriesBefore = try ledger.journal.entries().count
            if sign.refusal != nil {
                // Refused before signing (a blocked payee account, the balance): nothing signed, nothing journaled.
                #expect(try ledger.journal.entries().count == entriesBefore, "\(here)")
                refused += 1
                continue
            }
            // What the person confirmed: the review's lines, read back as a person reads them.
            let review = Dictionary(sign.review(in: language).map { ($0.caption, $0.value) }, uniquingKeysWith: { first, _ in first })
            let amountLine = try #require(review[HostMessage.amount.text(language)], "\(here): no amount line in \(review)")
            let parts = amountLine.split(separator: " ")
            let currencyShown = String(try #require(parts.last))
            let amountShown = try AmountText.parse(parts.dropLast().joined(separator: " "),
                                                   currency: try #require(Currency(code: currencyShown)),
                                                   locale: language.amountLocale)
            let payeeAccountShown = review[HostMessage.payeeAccount.text(language)]
            let debitShown = review[HostMessage.debitAccount.text(language)]
            let payeeShown = review[HostMessage.payee.text(language)]

            clock.advance(30)
            let outcome = try sign.sign(code: TOTP.code(secret: secret, at: clock.now), confirmDuplicate: false)
            guard case .posted(let receipt) = outcome else {
                Issue.record("\(here): the core refused what validate accepted: \(outcome)")
                continue
            }
            posted += 1
            let posting = receipt.posting
            let entry = try #require(try ledger.journal.entries().last)
            let signed = try CanonicalEncoding.decode(entry.document)
            func signedField(_ key: String) -> String? { signed.fields.first { $0.key == key }?.value }

            // The amount: typed → shown → signed → journaled → posted, all one value; never rounded.
            #expect(amountShown.amount == Decimal(minor) / 100, "\(here): typed \(typedAmount), shown \(amountLine)")
            #expect(amountShown.amount == posting.amount.amount && currencyShown == posting.amount.currency.code, "\(here)")
            #expect(signedField("amount").flatMap { Decimal(string: $0, locale: Locale(identifier: "en_US_POSIX")) } == posting.amount.amount, "\(here)")
            #expect(signedField("currency") == posting.amount.currency.code && entry.currency == posting.amount.currency.code, "\(here)")
            #expect(entry.amount.flatMap { Decimal(string: $0, locale: Locale(identifier: "en_US_POSIX")) } == posting.amount.amount, "\(here)")
            // The accounts and the payee.
            #expect(payeeAccountShown == posting.credit && signedField("account") == posting.credit && entry.credit == posting.credit, "\(here)")
            #expect(debitShown == posting.debit && signedField("from") == posting.debit && entry.debit == posting.debit, "\(here)")
            #expect(payeeShown == name && signedField("name") == name, "\(here): payee shown \(payeeShown ?? "none")")
            // The signed document is the reviewed one, field for field.
            #expect(entry.documentId == sign.document.id, "\(here)")
            #expect(signed.fields.map(\.key).sorted() == draft.fields.map(\.key).sorted(), "\(here)")
            for field in draft.fields { #expect(signedField(field.key) == field.value, "\(here): \(field.key)") }
        }
        #expect(posted >= 15, "enough postings exercised: \(posted) posted, \(refused) refused")
        #expect(try ledger.journal.verify(authenticator: try? ledger.authenticator()) == .ok(posted))
    }
}
