import Foundation
import Testing
@testable import RBSLedger

@Suite("CodeVerifier")
struct CodeVerifierTests {
    @Test("a code of the previous, current or next step is accepted; two steps away is not")
    func window() throws {
        let f = try Fixture()
        let verifier = try f.ledger.codeVerifier()
        let secret = f.totpSecret
        try verifier.verify(TOTP.code(secret: secret, at: f.clock.now - 30))
        try verifier.verify(TOTP.code(secret: secret, at: f.clock.now))
        try verifier.verify(TOTP.code(secret: secret, at: f.clock.now + 30))
        f.clock.advance(300)
        #expect(throws: LedgerError.self) { try verifier.verify(TOTP.code(secret: secret, at: f.clock.now - 60)) }
    }

    @Test("two neighbouring steps with the same six digits: after the earlier is used, the code is the later step's, accepted once")
    func neighbouringStepsWithTheSameDigits() throws {
        let f = try Fixture()
        // Found by search: with this secret, steps 58,480,631 and 58,480,632 both give 097260.
        let secret = Data(1...20)
        let (earlier, later): (UInt64, UInt64) = (58_480_631, 58_480_632)
        let code = HOTP.code(secret: secret, counter: earlier)
        #expect(code == "097260" && HOTP.code(secret: secret, counter: later) == code)
        let clock = ManualClock(Date(timeIntervalSince1970: TimeInterval(earlier * 30)))
        let verifier = CodeVerifier(database: f.ledger.database, authenticator: .totp(secret: secret), clock: clock.closure)
        try verifier.verify(code)
        clock.advance(30)
        // The earlier step is used: the same digits now are the later step's code, fresh (it was refused as replayed).
        try verifier.verify(code)
        #expect(throws: LedgerError.code(.replayed)) { try verifier.verify(code) }
    }

    @Test("a code accepted once is refused again, also after reopening the database")
    func replayRefused() throws {
        let f = try Fixture()
        let code = f.nextCode()
        try f.ledger.codeVerifier().verify(code)
        try f.ledger.close()
        let reopened = try f.reopen()
        #expect { try reopened.codeVerifier().verify(code) } throws: { error in
            guard case .code(.replayed) = error as? LedgerError else { return false }
            return true
        }
    }

    @Test("five wrong codes lock signing for five minutes, then the lock expires")
    func lockAfterFiveWrongCodes() throws {
        let f = try Fixture()
        let verifier = try f.ledger.codeVerifier()
        for attempt in 1...5 {
            #expect(throws: LedgerError.code(.wrong(attemptsLeft: 5 - attempt))) { try verifier.verify("000000") }
        }
        let good = f.nextCode()  // 30 s later
        #expect { try verifier.verify(good) } throws: { error in
            guard case .code(.locked(_, let remaining, let failures)) = error as? LedgerError else { return false }
            return remaining == 270 && failures == 5
                && String(describing: error).contains("signing is locked for 5 minutes more after 5 wrong codes")
        }
        f.clock.advance(269)
        #expect(throws: LedgerError.self) { try verifier.verify(TOTP.code(secret: f.totpSecret, at: f.clock.now)) }
        f.clock.advance(1)
        try verifier.verify(TOTP.code(secret: f.totpSecret, at: f.clock.now))
    }

    @Test("the lock survives a restart")
    func lockPersists() throws {
        let f = try Fixture()
        for _ in 1...5 { _ = try? f.ledger.codeVerifier().verify("999999") }
        try f.ledger.close()
        let reopened = try f.reopen()
        #expect { try reopened.codeVerifier().verify(f.nextCode()) } throws: { error in
            guard case .code(.locked) = error as? LedgerError else { return false }
            return true
        }
    }

    /// A code that cannot be one tells a guesser nothing, so it costs no attempt: `12ab`, `12345` and `123 456 7`
    /// typed on the web client's review used up three of five attempts, and with one wrong code locked signing.
    @Test("a malformed code is its own error and costs no attempt; a wrong one does")
    func malformedDoesNotCount() throws {
        let f = try Fixture()
        let verifier = try f.ledger.codeVerifier()
        for typed in ["12345", "12a456", "123 456 7", "", "1234567"] {
            #expect(throws: LedgerError.code(.malformed(attemptsLeft: 5))) { try verifier.verify(typed) }
        }
        #expect(throws: LedgerError.code(.wrong(attemptsLeft: 4))) { try verifier.verify("000000") }
        #expect(throws: LedgerError.code(.malformed(attemptsLeft: 4))) { try verifier.verify("12345") }
        #expect(throws: LedgerError.code(.wrong(attemptsLeft: 3))) { try verifier.verify("000001") }
        // A good code resets the count.
        try verifier.verify(f.nextCode())
        #expect(throws: LedgerError.code(.wrong(attemptsLeft: 4))) { try verifier.verify("000000") }
    }

    @Test("a code typed with the spaces an authenticator app shows between its groups is accepted")
    func codeWithSpaces() throws {
        let f = try Fixture()
        let verifier = try f.ledger.codeVerifier()
        let code = f.nextCode()
        let grouped = " " + String(code.prefix(3)) + " " + String(code.dropFirst(3)) + " "
        try verifier.verify(grouped)
        // The same step typed again, grouped otherwise, is the same code: refused as a replay, not as malformed.
        #expect(throws: LedgerError.code(.replayed)) { try verifier.verify(String(code.prefix(3)) + "\u{00A0}" + String(code.dropFirst(3))) }
        #expect(CodeVerifier.digits(of: "714 502") == "714502")
        #expect(CodeVerifier.digits(of: "714\u{202F}502") == "714502")
    }

    @Test("spaces are the only thing removed from a typed code: a dash or a letter is still malformed")
    func onlySpacesRemoved() throws {
        let f = try Fixture()
        let verifier = try f.ledger.codeVerifier()
        #expect(throws: LedgerError.code(.malformed(attemptsLeft: 5))) { try verifier.verify("714-502") }
        #expect(throws: LedgerError.code(.malformed(attemptsLeft: 5))) { try verifier.verify("714 5o2") }
    }
}
