import Foundation
import Testing
@testable import RBSLedger

/// The chain hash's bytes are a format: every journal ever written verifies against them, and PostgreSQL's
/// `rbs_v21_hash` computes the same ones inside the server. These vectors were computed by the code that wrote the
/// first journals; a change to how the bytes are put together must leave every one of them as it is.
@Suite("Journal hash vectors")
struct JournalHashVectorTests {
    static let document = Data("v=1\noperation=payment.domestic\nplugin=bench 1\nkey=79c33be2566d2240\ncreated_at=2026-11-27T10:00:00.000Z\namount=1.50\n".utf8)
    static let signature = Data((0..<64).map { UInt8($0 * 7 & 0xFF) })
    static let previous = Data((0..<32).map { UInt8(255 - $0) })

    static func entry(_ variant: Int) -> JournalEntry {
        let authorization: Authorization? = switch variant {
        case 0: nil
        case 1: Authorization(method: .totp, suite: SigningMethod.totpSuite, challenge: nil, response: nil, secretId: "a1b2c3")
        default: Authorization(method: .passkey, suite: "WEBAUTHN-ES256", challenge: "Y2hhbGxlbmdl", response: "YXV0aA.Y2xpZW50",
                               secretId: "Y3JlZA")
        }
        return JournalEntry(
            sequence: 41 + Int64(variant), kind: variant == 3 ? .rejected : .posted,
            documentId: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", document: document,
            signature: signature, keyId: "79c33be2566d2240",
            reasonCode: variant == 3 ? "insufficient-funds" : nil, reason: variant == 3 ? "Недостаточно средств: 1.50 > 0.00" : nil,
            debit: "40817810738000000002", credit: variant == 3 ? nil : "40702810900000012345",
            amount: variant == 3 ? nil : "1.50", currency: variant == 3 ? nil : "RUB",
            balanceAfter: variant == 3 ? nil : "998.50", recordedAtMilliseconds: 1_795_000_000_123,
            authorization: authorization, basketId: variant >= 2 ? "basket-7" : nil, secondOf: variant == 4 ? 40 : nil,
            previousHash: previous)
    }

    @Test("the hash of each kind of entry (tags RBSJ1–RBSJ4, absent and present optionals, non-ASCII text) is the one journals hold")
    func vectors() {
        let expected = [
            "0c5188be7350e9d4851f60c208f970f571ccaf8e1dc0989443ff8c3912a25bab",
            "80afcdfe9be11a98ae4aecd79cd5ac37b811d846492759aed535b65d65f2f249",
            "0dee99fff091a4aeecc10657bd33eb2691e9c270b32b523eb366efc62fe6c10e",
            "e65bdd601f597ce96d07c498fcfe0075d4539ee4e9430438d29508c8a8ae0910",
            "fc00a8d8787b3fbb1e454fbaad0ce14859f328ecdb7cef98cfd69d70df6ac016",
        ]
        for variant in 0..<5 {
            let entry = Self.entry(variant)
            let hex = entry.hash.map { String(format: "%02x", $0) }.joined()
            #expect(hex == expected[variant], "variant \(variant): \(hex)")
            // The parts the server hashes with the number and predecessor it binds give the same hash.
            let parts = entry.hashedParts
            #expect(JournalEntry.chainHash(before: parts.before, sequence: entry.sequence, between: parts.between,
                                           previousHash: entry.previousHash) == entry.hash)
        }
    }
}
