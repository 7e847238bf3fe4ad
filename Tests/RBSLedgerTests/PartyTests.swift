import Crypto
import Foundation
import Testing
@testable import RBSLedger

/// Who may debit what, decided by the core inside the posting's transaction (issue #28): a customer its own accounts,
/// the host's signer the accounts of no customer, either one more account per live mandate.
@Suite("Parties and mandates")
struct PartyTests {
    /// A ledger with the host's signer (the fixture's key) and a customer eve with her own accounts.
    struct World {
        let f: Fixture
        let eve: Customer
        let eveAccount: String

        init() throws {
            f = try Fixture()
            (eve, _) = try f.ledger.customers.add(name: "eve", passwordRecord: "x")
            eveAccount = try f.ledger.customers.accounts(of: eve)[0].number
        }

        var eveCredentials: CustomerCredentials {
            get throws { try #require(try f.ledger.customers.credentials(named: "eve")) }
        }

        func eveCode() throws -> String {
            f.clock.advance(30)
            return try f.ledger.customers.code(for: "eve", at: f.clock.now)
        }
    }

    @Test("the host's signer cannot debit a customer's account: refused before the code is spent and, signed anyway, journaled as rejected with nothing moved")
    func hostCannotDebitCustomer() throws {
        let w = try World()
        let before = try w.f.balance(w.eveAccount)
        let document = try w.f.payment(from: w.eveAccount, amount: "1.00")
        let refusal = try #require(try w.f.ledger.bank.validate(document))
        #expect(refusal.code == .notSignersAccount)
        #expect(refusal.message == "debit account \(w.eveAccount) is not the signer's: it belongs to another party and no mandate lets this signer debit it")
        guard case .rejected(_, _, let reason) = try w.f.ledger.signAndPost(document, code: w.f.nextCode()) else {
            Issue.record("a debit of eve's account by the host's key was not rejected"); return
        }
        #expect(reason.code == .notSignersAccount)
        #expect(try w.f.balance(w.eveAccount) == before)
        #expect(try w.f.ledger.journal.verify() == .ok(1))
    }

    @Test("a customer cannot debit the host's accounts nor another customer's; their own they can")
    func customerOwnAccountsOnly() throws {
        let w = try World()
        let (bob, _) = try w.f.ledger.customers.add(name: "bob", passwordRecord: "y")
        let bobAccount = try w.f.ledger.customers.accounts(of: bob)[0].number
        let eve = try w.eveCredentials
        func draft(from: String) throws -> Document {
            try w.f.ledger.draft(operation: "payment.domestic", plugin: "ru.example.payments", pluginVersion: "1.0.0", fields: [
                DocumentField("from", from), DocumentField("account", "40702810900000012345"), DocumentField("amount", "5.00"),
                DocumentField("currency", "RUB"), DocumentField("name", "ООО Ромашка"), DocumentField("purpose", "x"),
            ], keyId: eve.customer.keyId)
        }
        #expect(try w.f.ledger.bank.validate(try draft(from: "40817810438000000001"))?.code == .notSignersAccount)
        #expect(try w.f.ledger.bank.validate(try draft(from: bobAccount))?.code == .notSignersAccount)
        #expect(try w.f.ledger.bank.validate(try draft(from: w.eveAccount)) == nil)
        guard case .posted = try w.f.ledger.signAndPost(try draft(from: w.eveAccount), code: try w.eveCode(), as: eve) else {
            Issue.record("eve's payment from her own account was not posted"); return
        }
    }

    @Test("each party sees its own accounts: the host's signer those of no customer (and mandated ones), a customer its own")
    func accountsOfParty() throws {
        let w = try World()
        let host = try w.f.ledger.hostParty()
        #expect(host == .host(keyId: w.f.identity.keyId))
        let hostAccounts = try w.f.ledger.accounts(of: host).map(\.number)
        #expect(hostAccounts == ["40817810438000000001", "40817810738000000002", "40817810038000000003", "40817840638000000004"])
        #expect(try w.f.ledger.accounts(of: .customer(w.eve.holderId)).map(\.number)
                == (try w.f.ledger.customers.accounts(of: w.eve)).map(\.number))
        #expect(try w.f.ledger.accountOverview(of: host).map(\.account.number) == hostAccounts)
    }

    @Test("a mandate the customer consents to with their code lets the host's signer debit that one account until it is revoked")
    func mandate() throws {
        let w = try World()
        let host = w.f.identity
        // Consent needs the customer's right code; a wrong one grants nothing and counts as an attempt.
        #expect(throws: MandateError.self) {
            try w.f.ledger.grantMandate(account: w.eveAccount, of: try w.eveCredentials, code: "000000", to: host.keyId, keyName: host.name)
        }
        #expect(try w.f.ledger.mandates(of: w.eve).isEmpty)
        // Only the customer's own account can be mandated by them.
        do {
            try w.f.ledger.grantMandate(account: "40817810438000000001", of: try w.eveCredentials, code: try w.eveCode(),
                                        to: host.keyId, keyName: host.name)
            Issue.record("a mandate on an account that is not eve's was granted")
        } catch {
            #expect(String(describing: error) == "account 40817810438000000001 is not one of eve's accounts (see `rbs-host customers list`)")
        }
        try w.f.ledger.grantMandate(account: w.eveAccount, of: try w.eveCredentials, code: try w.eveCode(), to: host.keyId, keyName: host.name)
        #expect(try w.f.ledger.accounts(of: try w.f.ledger.hostParty()).map(\.number).contains(w.eveAccount))
        guard case .posted = try w.f.ledger.signAndPost(try w.f.payment(from: w.eveAccount, amount: "2.00"), code: w.f.nextCode()) else {
            Issue.record("the mandated debit was not posted"); return
        }
        let mandates = try w.f.ledger.mandates(of: w.eve)
        #expect(mandates.map(\.number) == [w.eveAccount] && mandates.allSatisfy(\.isLive) && mandates[0].keyName == "Test User")
        try w.f.ledger.revokeMandate(account: w.eveAccount, from: host.keyId)
        #expect(try w.f.ledger.bank.validate(try w.f.payment(from: w.eveAccount, amount: "3.00"))?.code == .notSignersAccount)
        #expect(throws: MandateError.self) { try w.f.ledger.revokeMandate(account: w.eveAccount, from: host.keyId) }
        #expect(try w.f.ledger.mandates(of: w.eve).map(\.isLive) == [false])
    }

    @Test("a passkey is registered only with the customer's current one-time code; a wrong one counts as an attempt and stores nothing")
    func passkeyStepUp() throws {
        let w = try World()
        let key = Curve25519.Signing.PrivateKey().publicKey
        let passkey = Passkey(credentialId: Data(repeating: 7, count: 16),
                              key: try PasskeyKey(suite: "WEBAUTHN-EdDSA", raw: key.rawRepresentation), signCount: 0,
                              createdAtMilliseconds: 1)
        do {
            try w.f.ledger.customers.register(passkey, for: try w.eveCredentials, code: "000000")
            Issue.record("a passkey was registered with a wrong code")
        } catch {
            guard case .stepUp(.registerPasskey, .wrong(let left))? = error as? CustomerError else { Issue.record("unexpected \(error)"); return }
            #expect(left == CodeVerifier.maximumFailures - 1)
        }
        #expect(try w.f.ledger.customers.passkey(of: w.eve) == nil)
        try w.f.ledger.customers.register(passkey, for: try w.eveCredentials, code: try w.eveCode())
        #expect(try w.f.ledger.customers.passkey(of: w.eve)?.credentialId == passkey.credentialId)
    }

    @Test("a basket whose document repeats another of the same basket is refused unless the repeat is confirmed")
    func repeatInsideBasket() throws {
        let f = try Fixture()
        let first = try f.payment(amount: "7.00")
        let same = try f.payment(amount: "7.0")
        let other = try f.payment(amount: "8.00")
        #expect(try f.ledger.duplicates(of: [first, other, same]) == [nil, nil, .document(position: 1)])
        do {
            try f.ledger.checkDuplicates([first, other, same], confirmed: false)
            Issue.record("an unconfirmed repeat inside a basket was let through")
        } catch {
            #expect(String(describing: error) == "document 3 of the basket repeats document 1 of the same basket: the same payee, account, amount and purpose; nothing was signed — confirm the repeat to send it anyway")
        }
        try f.ledger.checkDuplicates([first, other, same], confirmed: true)
    }

    /// SQLite gave the id of a removed customer — the highest — to the next one added, who then had the removed one's
    /// accounts, card, statements and request ids (and their templates, kept by id): schema step
    /// v28-customer-ids-never-reused.
    @Test("a removed customer's id is never given again: the next customer has nothing of theirs")
    func idsNeverReused() throws {
        let f = try Fixture()
        _ = try f.ledger.customers.add(name: "ann", passwordRecord: "x")
        let (gina, _) = try f.ledger.customers.add(name: "gina", passwordRecord: "x")
        let ginas = try f.ledger.customers.accounts(of: gina).map(\.number)
        _ = try f.ledger.issueCard(to: "gina", account: ginas[0], number: "2200000000000004")
        var removed = [gina.id]
        for name in ["hank", "ivan"] {
            try f.ledger.customers.remove(name: try #require(try f.ledger.customers.list().last?.name))
            let (next, _) = try f.ledger.customers.add(name: name, passwordRecord: "x")
            #expect(removed.allSatisfy { next.id > $0 }, "\(next.id) after \(removed)")
            let accounts = try f.ledger.customers.accounts(of: next).map(\.number)
            #expect(accounts.count == 3 && Set(accounts).isDisjoint(with: ginas))
            #expect(try f.ledger.cards(ofCustomer: name).isEmpty)
            #expect(try f.ledger.accountOverview(customer: next).count == 3)
            removed.append(next.id)
        }
        // A user added to a customer takes a new id too.
        let (user, _) = try f.ledger.customers.addUser(to: "ann", name: "ann2", passwordRecord: "y")
        #expect(removed.allSatisfy { user.id > $0 })
    }

    @Test("a request id is kept under whoever signs: a customer's never answers the host's signer's or another customer's")
    func requestIdsAreTheSigners() throws {
        let w = try World()
        guard case .posted(let hosts) = try w.f.ledger.signAndPost(try w.f.payment(amount: "1.00"), code: w.f.nextCode(),
                                                                   request: try LedgerRequest(id: "r1")) else {
            Issue.record("the host's payment was not posted"); return
        }
        // Eve's signing names the request as the command line once did (the host's signer's): the ledger keeps it
        // under eve's id, so it posts her own payment instead of answering with the host's.
        let eves = try w.f.ledger.draft(operation: "payment.domestic", plugin: "ru.example.payments", pluginVersion: "1.0.0", fields: [
            DocumentField("from", w.eveAccount), DocumentField("account", "40702810900000012345"), DocumentField("amount", "2.00"),
            DocumentField("currency", "RUB"), DocumentField("name", "ООО Ромашка"), DocumentField("purpose", "Оплата"),
        ], keyId: w.eve.keyId)
        guard case .posted(let own) = try w.f.ledger.signAndPost(eves, code: try w.eveCode(), as: try w.eveCredentials,
                                                                 request: try LedgerRequest(id: "r1")) else {
            Issue.record("eve's payment was not posted"); return
        }
        #expect(own.sequence != hosts.sequence)
        #expect(try w.f.ledger.outcome(of: try LedgerRequest(signer: w.eve, id: "r1"))?.entry.sequence == own.sequence)
        #expect(try w.f.ledger.outcome(of: try LedgerRequest(signer: nil, id: "r1"))?.entry.sequence == hosts.sequence)
    }

    /// A mandate granted with the customer's one code let the host's signer move 400 000 RUB past the customer's
    /// two-signature rule: the threshold binds every debit of the customer's accounts.
    @Test("a mandated debit above the customer's second-signer threshold is refused before the code and, signed anyway, journaled as rejected")
    func mandateKeepsTheSecondSignerRule() throws {
        let w = try World()
        let host = w.f.identity
        try w.f.ledger.customers.setSecondSigner(of: w.eve, above: 1_000, currency: "RUB")
        try w.f.ledger.grantMandate(account: w.eveAccount, of: try w.eveCredentials, code: try w.eveCode(), to: host.keyId, keyName: host.name)
        let before = try w.f.balance(w.eveAccount)
        let big = try w.f.payment(from: w.eveAccount, amount: "5000.00")
        let refusal = try #require(try w.f.ledger.bank.validate(big))
        #expect(refusal.code == .secondSignerRequired)
        #expect(refusal.message == "debit account \(w.eveAccount) is a customer's whose payments of 5000.00 RUB need two of its users' signatures: a mandate does not let another signer debit that much")
        guard case .rejected(_, _, let reason) = try w.f.ledger.signAndPost(big, code: w.f.nextCode()) else {
            Issue.record("the mandated debit above the threshold was not rejected"); return
        }
        #expect(reason.code == .secondSignerRequired)
        #expect(try w.f.balance(w.eveAccount) == before)
        // At or below the threshold the mandate works as before; the customer's own signing still awaits a second user.
        guard case .posted = try w.f.ledger.signAndPost(try w.f.payment(from: w.eveAccount, amount: "1000.00"), code: w.f.nextCode()) else {
            Issue.record("a mandated debit at the threshold was not posted"); return
        }
    }
}
