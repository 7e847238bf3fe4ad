import Foundation

/// `rbs-host db check` and `rbs-host db migrate`: the ledger's database looked at and brought up to date, for
/// either engine, without the continuity checks of opening a ledger (an operator's tool).
extension Ledger {
    /// What `db check` found: the engine, where the tables are, the schema steps applied against those this host
    /// expects, and the journal's tip.
    public struct DatabaseStatus: Sendable, Encodable {
        /// "sqlite" or "postgres".
        public let engine: String
        /// The SQLite file's path, or `postgres://user@host:port/database` (never the password).
        public let place: String
        /// The schema steps applied, in order.
        public let appliedSteps: [String]
        /// Every step this host knows, in order.
        public let expectedSteps: [String]
        /// The steps this host would apply (`db migrate`, or any command that opens the ledger).
        public let pendingSteps: [String]
        /// The newest step applied (nil: none, an empty database).
        public let schemaVersion: String?
        /// The newest step this host knows.
        public let expectedVersion: String
        /// The ledger's id (nil before its schema has it).
        public let ledgerId: String?
        /// The journal's last entry: its sequence number (0: empty) and the first 12 hex digits of its hash.
        public let tipSequence: Int64?
        public let tipHash: String?

        /// Whether every step this host expects is applied.
        public var upToDate: Bool { pendingSteps.isEmpty }

        private enum CodingKeys: String, CodingKey {
            case engine, place, appliedSteps, expectedSteps, pendingSteps, schemaVersion, expectedVersion, upToDate, ledgerId, tip
        }

        private enum TipKeys: String, CodingKey { case sequence, hash }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(engine, forKey: .engine)
            try container.encode(place, forKey: .place)
            try container.encode(appliedSteps, forKey: .appliedSteps)
            try container.encode(expectedSteps, forKey: .expectedSteps)
            try container.encode(pendingSteps, forKey: .pendingSteps)
            try container.encode(schemaVersion, forKey: .schemaVersion)
            try container.encode(expectedVersion, forKey: .expectedVersion)
            try container.encode(upToDate, forKey: .upToDate)
            try container.encode(ledgerId, forKey: .ledgerId)
            if let tipSequence, let tipHash {
                var tip = container.nestedContainer(keyedBy: TipKeys.self, forKey: .tip)
                try tip.encode(tipSequence, forKey: .sequence)
                try tip.encode(tipHash, forKey: .hash)
            } else {
                try container.encodeNil(forKey: .tip)
            }
        }
    }

    /// Connects to the ledger's database and reports its state; changes nothing. Throws when the database cannot
    /// be opened (a missing SQLite file, an unreachable server, a refused login), with the reason.
    public static func checkDatabase(dataDirectory: URL, location: LedgerLocation = .dataFolder) throws(LedgerError) -> DatabaseStatus {
        let store = try openStore(dataDirectory: dataDirectory, location: location)
        defer { try? store.close() }
        do {
            let applied = try store.appliedSteps()
            let pending = LedgerSchema.steps.map(\.name).filter { !applied.contains($0) }
            let holds = try store.holdsLedger()
            // The entries stored are chained first (PostgreSQL, v29), so the tip shown has its hash; the journal's
            // content is not changed by it.
            if holds { try store.integrate() }
            let tip = holds ? try store.read(Journal.chainTip) : nil
            // The identity table arrived with step v2: an older schema has no id yet.
            let ledgerId: String? = applied.contains("v2")
                ? try store.read { db in try db.value(String.self, "SELECT ledger_id FROM ledger_identity WHERE id = 1") } : nil
            return DatabaseStatus(
                engine: location.engine.rawValue, place: store.place, appliedSteps: applied,
                expectedSteps: LedgerSchema.steps.map(\.name), pendingSteps: pending,
                schemaVersion: applied.last, expectedVersion: LedgerSchema.version, ledgerId: ledgerId,
                tipSequence: tip?.sequence, tipHash: tip.map { String(Hex.encode($0.hash).prefix(12)) })
        } catch {
            throw store.ledgerError(error)
        }
    }

    /// Applies the schema steps the database lacks (under the migration lock) and returns their names. An SQLite
    /// file must exist (`rbs-host init` makes it); a PostgreSQL database without the ledger's tables is given them.
    public static func migrateDatabase(dataDirectory: URL, location: LedgerLocation = .dataFolder) throws(LedgerError) -> [String] {
        let store = try openStore(dataDirectory: dataDirectory, location: location)
        defer { try? store.close() }
        do {
            return try store.migrate()
        } catch {
            throw store.ledgerError(error)
        }
    }

    /// The store at `location`, opened without applying any schema step.
    private static func openStore(dataDirectory: URL, location: LedgerLocation) throws(LedgerError) -> any LedgerStore {
        switch location {
        case .dataFolder:
            if LedgerDatabase.absence(in: dataDirectory) != nil {
                throw .firstStart(directory: dataDirectory.path)
            }
            return try SQLiteStore(path: dataDirectory.appendingPathComponent(LedgerDatabase.fileName).path, create: false)
        case .postgres(let address):
            return try PostgresStore(address: address)
        }
    }
}

extension Ledger {
    /// How many statements this ledger has sent to its PostgreSQL server so far, each a network round trip (nil on
    /// SQLite, which has none): `rbs-bench signer` reports it per payment, and the tests bound it.
    public var databaseRoundTrips: Int? {
        (database.store as? PostgresStore)?.roundTrips.load(ordering: .relaxed)
    }
}
