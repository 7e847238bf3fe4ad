import Foundation
import Testing
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

/// The engine the ledger's tests run on: SQLite (a plain `swift test`), or PostgreSQL when
/// `RBS_TEST_LEDGER_ENGINE=postgres` (make test's second run of this suite, with `RBS_TEST_POSTGRES` set by
/// Tests/Postgres/cluster.sh).
enum TestEngine: String, Sendable {
    case sqlite
    case postgres

    static var current: TestEngine {
        ProcessInfo.processInfo.environment["RBS_TEST_LEDGER_ENGINE"] == "postgres" ? .postgres : .sqlite
    }
}

/// A fresh database for one test on the server `RBS_TEST_POSTGRES` names (a random name, made with CREATE
/// DATABASE), dropped when the last holder lets go of it.
final class TestDatabase: Sendable {
    let address: PostgresAddress
    private let server: PostgresAddress

    /// The test server, or nil when `RBS_TEST_POSTGRES` is not set (the PostgreSQL tests are then skipped, saying so).
    static var server: PostgresAddress? {
        guard let text = ProcessInfo.processInfo.environment["RBS_TEST_POSTGRES"], !text.isEmpty else { return nil }
        return try? PostgresAddress.parse(text)
    }

    /// Why the PostgreSQL tests are skipped, as the test report shows it.
    static let skipReason: Comment = "RBS_TEST_POSTGRES is not set: no PostgreSQL server for this test (make test starts one with Tests/Postgres/cluster.sh)"

    init() throws {
        guard let server = Self.server else {
            throw LedgerError.database(path: "RBS_TEST_POSTGRES", detail: "not set: \(Self.skipReason)")
        }
        self.server = server
        var address = server
        address.database = "rbs_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(20)
        self.address = address
        try PostgresStore.administer("CREATE DATABASE \(address.database)", at: server)
    }

    var location: LedgerLocation { .postgres(address) }

    deinit {
        try? PostgresStore.administer("DROP DATABASE IF EXISTS \(address.database) WITH (FORCE)", at: server)
    }
}

/// What a fixture keeps alive with it (the test databases of its ledgers).
final class FixtureResources: @unchecked Sendable {
    private let lock = NSLock()
    private var databases: [TestDatabase] = []

    func keep(_ database: TestDatabase) { lock.withLock { databases.append(database) } }
}

/// A ledger in a fresh directory with enrolled keys and a manual clock, on ``TestEngine/current`` unless `engine`
/// says (the tests that open the SQLite file themselves ask for `.sqlite`).
struct Fixture {
    let directory: URL
    let clock: ManualClock
    let ledger: Ledger
    let identity: SigningIdentity
    let engine: TestEngine
    /// Where the ledger's tables are (a fresh PostgreSQL database on `.postgres`).
    let location: LedgerLocation
    let resources = FixtureResources()

    /// With `ocra`, the keys are enrolled for that OCRA suite instead of TOTP.
    init(ocra: String? = nil, engine: TestEngine = .current) throws {
        directory = temporaryDirectory()
        clock = ManualClock()
        self.engine = engine
        location = try Self.freshLocation(engine, resources: resources)
        // The explicit first start: the ledger, then the keys.
        ledger = try Ledger.create(dataDirectory: directory, location: location, clock: clock.closure).ledger
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

    func balance(_ number: String) throws -> Decimal? { try ledger.bank.account(number: number)?.balance.amount }

    /// The ledger opened again (as the next start of the host would).
    func reopen() throws -> Ledger {
        try Ledger(dataDirectory: directory, location: location, clock: clock.closure)
    }

    /// A new, empty place for a second ledger on this fixture's engine.
    func freshLocation() throws -> LedgerLocation {
        try Self.freshLocation(engine, resources: resources)
    }

    private static func freshLocation(_ engine: TestEngine, resources: FixtureResources) throws -> LedgerLocation {
        switch engine {
        case .sqlite:
            return .dataFolder
        case .postgres:
            let database = try TestDatabase()
            resources.keep(database)
            return database.location
        }
    }
}

func hex(_ text: String) -> Data { Hex.decode(text) ?? Data() }
