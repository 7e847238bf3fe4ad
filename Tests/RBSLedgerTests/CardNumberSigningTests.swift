import Foundation
import Testing
@testable import RBSLedger

@Suite("A full card number is never signed")
struct CardNumberSigningTests {
    private func blockDocument(_ fields: [DocumentField], _ f: Fixture) throws -> Document {
        try f.ledger.draft(operation: "card.block", plugin: "ru.example.cards", pluginVersion: "1.0.0", fields: fields)
    }

    @Test("a card field holding a whole PAN (plain or spaced) is refused before signing; the masked form is signed")
    func refusesFullPan() throws {
        let f = try Fixture()
        for pan in ["4111111111111111", "4111 1111 1111 1111", "2200000000000004"] {
            let document = try blockDocument([DocumentField("card", pan), DocumentField("action", "block")], f)
            #expect(throws: KeyStoreError.self) { try f.identity.sign(document) }
        }
        let masked = try blockDocument([DocumentField("cardMasked", "4111 11** **** 1111"),
                                        DocumentField("cardLastFour", "1111"), DocumentField("action", "block")], f)
        #expect(throws: Never.self) { try f.identity.sign(masked) }
        // Fields not named like a card are not guessed at (an OGRN, an account).
        let other = try blockDocument([DocumentField("ogrn", "4111111111111111")], f)
        #expect(throws: Never.self) { try f.identity.sign(other) }
    }
}
