import Testing
@testable import RBSLedger

/// The one word for a signed basket as a whole, which every front end shows (`basket sign --json`, the API).
@Suite("Ledger: a basket's status")
struct BasketStatusTests {
    private func status(_ outcomes: [Outcome]) -> BasketOutcome.Status {
        let list = BasketList(keyId: "0123456789abcdef", documentIds: outcomes.map(\.documentId), totals: [])
        return BasketOutcome(list: list, outcomes: outcomes, repeated: false).status
    }

    @Test("posted, awaiting its second signer (never 'rejected' when nothing was refused), partial, rejected")
    func words() {
        let done = Outcome.acknowledged(documentId: "a", sequence: 1)
        let waits = Outcome.awaiting(documentId: "b", sequence: 2)
        let refused = Outcome.rejected(documentId: "c", sequence: 3, reason: .declined(by: "bob", reason: "no"))
        #expect(status([done, done]) == .posted)
        #expect(status([waits, waits]) == .awaiting, "every document journaled awaiting the second signer: nothing failed")
        #expect(status([done, waits]) == .awaiting)
        #expect(status([done, refused]) == .partial)
        #expect(status([waits, refused]) == .partial)
        #expect(status([refused, refused]) == .rejected)
        #expect(BasketOutcome.Status.awaiting.rawValue == "awaiting-second-signature")
    }
}
