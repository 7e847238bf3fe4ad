import Foundation
import Hummingbird
import RBSLedger
import RBSMoney
@testable import RBSServer
import Testing

@Suite("serve: logging in", .serialized)
struct LoginTests {
    @Test("a wrong password is 401 with a problem; the right one gives a token and an HttpOnly SameSite cookie")
    func login() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let wrong = try await api.call(.post, "/api/v1/session", json: ["customer": "alice", "password": "nope"])
            #expect(wrong.status == 401)
            #expect(wrong.contentType == "application/problem+json")
            #expect(wrong.object["type"] as? String == "urn:rbs-host:problem:wrong-login")
            let unknown = try await api.call(.post, "/api/v1/session", json: ["customer": "mallory", "password": "nope"])
            #expect(unknown.status == 401)
            #expect(unknown.object["detail"] as? String == wrong.object["detail"] as? String)

            let right = try await api.call(.post, "/api/v1/session", json: ["customer": "alice", "password": "correct horse"])
            #expect(right.status == 200)
            let token = try #require(right.object["token"] as? String)
            #expect(token.count >= 40)
            #expect(right.headers[.setCookie] == "rbs_session=\(token); Path=/; HttpOnly; SameSite=Strict")
            let me = try await api.call(.get, "/api/v1/session", token: token)
            #expect(me.object["customer"] as? String == "alice")

            #expect(try await api.call(.delete, "/api/v1/session", token: token).status == 204)
            #expect(try await api.call(.get, "/api/v1/session", token: token).status == 401)
            // The name in another case is the same customer (a phone's keyboard capitalises the first letter).
            let capital = try await api.call(.post, "/api/v1/session", json: ["customer": "Alice", "password": "correct horse"])
            #expect(capital.status == 200, "\(capital.text)")
            #expect(try await api.call(.get, "/api/v1/operations", token: token).status == 401)
        }
    }

    @Test("every customer endpoint refuses a request without a session")
    func anonymous() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            for (method, path) in [(HTTPRequest.Method.get, "/api/v1/operations"), (.get, "/api/v1/accounts"), (.get, "/api/v1/journal"),
                                   (.get, "/api/v1/events"), (.get, "/api/v1/runs/00000000000000000000000000000000")] {
                let answer = try await api.call(method, path)
                #expect(answer.status == 401, "\(path)")
                #expect(answer.headers[.wwwAuthenticate] == "Bearer realm=\"rbs-host\"")
            }
            let open = try await api.call(.post, "/api/v1/runs", token: "forged", json: ["operation": "pay.pp.quick"])
            #expect(open.status == 401)
        }
    }

    @Test("a session ends after the idle time without requests")
    func expiry() async throws {
        var limits = OnlineBank.Limits()
        limits.sessionIdle = 600
        let bank = try TestBank(limits: limits)
        try await bank.test { api in
            let token = try await api.login(bank.alice)
            bank.clock.advance(599)
            #expect(try await api.call(.get, "/api/v1/accounts", token: token).status == 200)
            bank.clock.advance(599)  // each request extends the session
            #expect(try await api.call(.get, "/api/v1/accounts", token: token).status == 200)
            bank.clock.advance(601)
            let expired = try await api.call(.get, "/api/v1/accounts", token: token)
            #expect(expired.status == 401)
            #expect(expired.object["type"] as? String == "urn:rbs-host:problem:unauthorized")
        }
    }

    @Test("by default a session ends after five minutes without requests (Art. 4(3)(d))")
    func fiveMinutes() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let token = try await api.login(bank.alice)
            bank.clock.advance(299)
            #expect(try await api.call(.get, "/api/v1/session", token: token).status == 200)
            bank.clock.advance(301)
            #expect(try await api.call(.get, "/api/v1/session", token: token).status == 401)
        }
    }

    @Test("5 failed logins lock the customer and the address out for the window, even with the right password")
    func rateLimited() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            for _ in 0..<5 {
                #expect(try await api.call(.post, "/api/v1/session", json: ["customer": "alice", "password": "guess"]).status == 401)
            }
            let locked = try await api.call(.post, "/api/v1/session", json: ["customer": "alice", "password": "correct horse"])
            #expect(locked.status == 429)
            let wait = try #require(locked.headers[.retryAfter].flatMap(Int.init))
            #expect(wait > 0 && wait <= 300)
            // The address is limited too: another customer's right password from the same address waits as well.
            #expect(try await api.call(.post, "/api/v1/session", json: ["customer": "bob", "password": "battery staple"]).status == 429)
            bank.clock.advance(301)
            #expect(try await api.call(.post, "/api/v1/session", json: ["customer": "alice", "password": "correct horse"]).status == 200)
        }
    }

    @Test("a right password from an address keeps the failures other names made from it: an attacker's own login does not reset the count")
    func successKeepsAddressCount() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            for _ in 0..<4 {
                #expect(try await api.call(.post, "/api/v1/session", json: ["customer": "alice", "password": "guess"]).status == 401)
            }
            #expect(try await api.call(.post, "/api/v1/session", json: ["customer": "bob", "password": "battery staple"]).status == 200)
            #expect(try await api.call(.post, "/api/v1/session", json: ["customer": "alice", "password": "guess"]).status == 401)
            let locked = try await api.call(.post, "/api/v1/session", json: ["customer": "bob", "password": "battery staple"])
            #expect(locked.status == 429)
        }
    }

    @Test("the Authorization scheme is read in any case (bearer, BEARER), as RFC 9110 says; another scheme is no session")
    func bearerInAnyCase() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let token = try await api.login(bank.alice)
            for scheme in ["Bearer", "bearer", "BEARER"] {
                let answer = try await api.call(.get, "/api/v1/session", headers: [.authorization: "\(scheme) \(token)"])
                #expect(answer.status == 200, "\(scheme): \(answer.status)")
            }
            #expect(try await api.call(.get, "/api/v1/session", headers: [.authorization: "Basic \(token)"]).status == 401)
        }
    }

    @Test("bad JSON, a missing field, a wrong type and a non-JSON body are 400/415 problems saying what is wrong")
    func badBodies() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let broken = try await api.call(.post, "/api/v1/session", raw: "{\"customer\": ")
            #expect(broken.status == 400)
            #expect((broken.object["detail"] as? String)?.hasPrefix("the body is not valid JSON: ") == true, "\(broken.text)")
            let missing = try await api.call(.post, "/api/v1/session", json: ["customer": "alice"])
            #expect(missing.status == 400)
            #expect(missing.object["detail"] as? String == "the field \"password\" is missing")
            let typed = try await api.call(.post, "/api/v1/session", json: ["customer": 5, "password": "x"])
            #expect(typed.status == 400)
            #expect(typed.object["detail"] as? String == "\"customer\" has the wrong type: expected a string, found a number", "\(typed.text)")
            let form = try await api.call(.post, "/api/v1/session", raw: "customer=alice", contentType: "application/x-www-form-urlencoded")
            #expect(form.status == 415)
        }
    }
}

@Suite("serve: customers")
struct CustomerStoreTests {
    @Test("the login secret is stored as scrypt with a salt, never the password or a bare hash")
    func passwordRecord() throws {
        let record = try PasswordRecord.make(password: "correct horse", rounds: 1 << 10)
        #expect(record.text.hasPrefix("scrypt$1024$8$1$"))
        #expect(!record.text.contains("correct"))
        #expect(record.matches("correct horse"))
        #expect(!record.matches("correct horsE"))
        let again = try PasswordRecord.make(password: "correct horse", rounds: 1 << 10)
        #expect(again.salt != record.salt && again.key != record.key)
        #expect(PasswordRecord(record.text) == record)
        #expect(PasswordRecord("sha256$abc") == nil)
    }

    @Test("a debug build hashes new passwords with RBS_TEST_PASSWORD_ROUNDS only when it is a power of two above 1; anything else gives 2^14")
    func passwordRoundsFromEnvironment() {
        let key = "RBS_TEST_PASSWORD_ROUNDS"
        #expect(PasswordRecord.rounds(environment: [:]) == 1 << 14)
        #if DEBUG
        #expect(PasswordRecord.rounds(environment: [key: "1024"]) == 1024)
        #expect(PasswordRecord.rounds(environment: [key: "2"]) == 2)
        #else
        #expect(PasswordRecord.rounds(environment: [key: "1024"]) == 1 << 14, "a release build never takes fewer rounds")
        #endif
        for refused in ["1000", "1", "0", "-1024", "", "1024 ", "0x400", "ten", "99999999999999999999"] {
            #expect(PasswordRecord.rounds(environment: [key: refused]) == 1 << 14, "\(refused)")
        }
        #expect(PasswordRecord.rounds(environment: ["RBS_TEST_PASSWORD_ROUND": "1024"]) == 1 << 14)
    }

    @Test("customers add/remove: own accounts with valid keys, a name used once; removal blocks accounts and logins")
    func addRemove() async throws {
        let bank = try TestBank()
        let accounts = try bank.ledger.customers.accounts(of: bank.alice.customer)
        #expect(accounts.map(\.currency) == ["RUB", "RUB", "USD"])
        for account in accounts { #expect(AccountKey.isValid(account: account.number, bic: DemoBank.bic), "\(account.number)") }
        let bobs = try bank.ledger.customers.accounts(of: bank.bob.customer)
        #expect(Set(accounts.map(\.number)).isDisjoint(with: bobs.map(\.number)))
        #expect(throws: CustomerError.exists("alice")) { try bank.ledger.customers.add(name: "alice", passwordRecord: "x") }
        #expect(throws: CustomerError.invalidName("a b")) { try bank.ledger.customers.add(name: "a b", passwordRecord: "x") }
        try bank.ledger.customers.remove(name: "bob")
        #expect(try bank.ledger.customers.list().map(\.name) == ["alice"])
        #expect(try bank.ledger.customers.accounts(of: bank.bob.customer).allSatisfy(\.blocked))
        #expect(throws: CustomerError.unknown("bob")) { try bank.ledger.customers.remove(name: "bob") }
        try await bank.test { api in
            let answer = try await api.call(.post, "/api/v1/session", json: ["customer": "bob", "password": "battery staple"])
            #expect(answer.status == 401)
        }
    }
}
