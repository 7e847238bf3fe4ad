import Foundation
@testable import RBSLedger

/// A fresh, empty directory under the system's temporary directory.
func temporaryDirectory() -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("rbs-ledger-tests-\(UUID().uuidString)")
    return url
}

/// A clock the test moves by hand.
final class ManualClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date

    init(_ start: Date = Date(timeIntervalSince1970: 1_750_000_000)) { current = start }

    var now: Date { lock.withLock { current } }
    func advance(_ seconds: TimeInterval) { lock.withLock { current += seconds } }
    var closure: @Sendable () -> Date { { [self] in now } }
}

/// A ledger in a fresh directory with enrolled keys and a manual clock.
struct Fixture {
    let directory: URL
    let clock: ManualClock
    let ledger: Ledger
    let identity: SigningIdentity

    /// With `ocra`, the keys are enrolled for that OCRA suite instead of TOTP.
    init(ocra: String? = nil) throws {
        directory = temporaryDirectory()
        clock = ManualClock()
        // The explicit first start: the ledger, then the keys.
        ledger = try Ledger.create(dataDirectory: directory, clock: clock.closure).ledger
        let store = KeyStore(dataDirectory: directory)
        _ = try store.initialize(name: "Test User", force: false, ocra: try ocra.map { try OCRASuite($0) })
        identity = try store.load()
    }

    /// The code the authenticator shows now; moves the clock one step on so the next call gets a fresh code.
    func nextCode() -> String {
        clock.advance(30)
        return TOTP.code(secret: totpSecret, at: clock.now)
    }

    /// The enrolled TOTP secret (empty when the fixture enrolled OCRA).
    var totpSecret: Data { identity.totpSecret ?? Data() }

    func payment(from: String = "40817810438000000001", to: String = "40702810900000012345", amount: String = "100.00",
                 currency: String = "RUB") throws -> Document {
        try ledger.draft(operation: "payment.domestic", plugin: "ru.example.payments", pluginVersion: "1.0.0", fields: [
            DocumentField("from", from), DocumentField("account", to), DocumentField("amount", amount),
            DocumentField("currency", currency), DocumentField("bic", "044525593"), DocumentField("name", "ООО Ромашка"),
            DocumentField("purpose", "Оплата по счёту 7"),
        ])
    }

    func balance(_ number: String) throws -> Decimal? { try ledger.bank.account(number: number)?.balance }
}

func hex(_ text: String) -> Data { Hex.decode(text) ?? Data() }
