import Foundation
import Testing
@testable import RBSLedger

/// The attempt counts behind `serve`'s login and code limits (table `login_attempts`): an attempt takes a slot before
/// it is checked, so parallel guesses cannot all be checked; a refused attempt takes none; a success gives the
/// address's slot back and clears only the customer's own count.
@Suite("Login attempt counts")
struct LoginAttemptTests {
    let customer = "login:customer:alice"
    let address = "login:address:203.0.113.7"

    @Test("attempts turned away while the slots are taken leave no count behind: once the attempts in flight succeed, the next may be checked")
    func refusedAttemptsAreNotCounted() throws {
        let f = try Fixture()
        let attempts = f.ledger.customers
        let now = f.clock.now
        #expect(try attempts.beginAttempt([customer, address], limit: 2, window: 300, now: now) == nil)
        #expect(try attempts.beginAttempt([customer, address], limit: 2, window: 300, now: now) == nil)
        for _ in 0..<3 {
            #expect(try attempts.beginAttempt([customer, address], limit: 2, window: 300, now: now) == 300)
        }
        // Both attempts in flight were right: the customer's count is cleared, the address's slots are given back.
        try attempts.settleAttempt(clearing: [customer], releasing: [address])
        try attempts.settleAttempt(clearing: [customer], releasing: [address])
        #expect(try attempts.beginAttempt([customer, address], limit: 2, window: 300, now: now) == nil)
        #expect(try attempts.beginAttempt([customer, address], limit: 2, window: 300, now: now) == nil)
        #expect(try attempts.beginAttempt([customer, address], limit: 2, window: 300, now: now) == 300)
    }

    @Test("one customer's success keeps the failures other names made from the same address")
    func successKeepsTheAddressCount() throws {
        let f = try Fixture()
        let attempts = f.ledger.customers
        let now = f.clock.now
        let guessed = "login:customer:bob"
        // Four wrong guesses at bob from the address (each stays counted), then alice's right password from it.
        for _ in 0..<4 { #expect(try attempts.beginAttempt([guessed, address], limit: 5, window: 300, now: now) == nil) }
        #expect(try attempts.beginAttempt([customer, address], limit: 5, window: 300, now: now) == nil)
        try attempts.settleAttempt(clearing: [customer], releasing: [address])
        // The fifth guess is checked; the sixth from the address is not, whoever it names.
        #expect(try attempts.beginAttempt([guessed, address], limit: 5, window: 300, now: now) == nil)
        f.clock.advance(10)
        #expect(try attempts.beginAttempt([customer, address], limit: 5, window: 300, now: f.clock.now) == 290)
    }
}
