import Foundation

/// The ledger's continuity: a ledger is created only by an explicit first start, and an existing one is opened
/// only when its database holds the history this folder knows of (`ledger-tip`, or a signing key).
extension Ledger {
    /// What `rbs-host init` did.
    public struct Creation: Sendable, CustomStringConvertible {
        /// One thing it did, as facts (a front end says it in the person's language; `description` in English).
        public enum Note: Sendable, Hashable, CustomStringConvertible {
            /// The journal's end: its last entry (0: empty) and that entry's hash, as hex.
            public struct End: Sendable, Hashable, CustomStringConvertible {
                public let sequence: Int64
                public let hash: String
                public var description: String {
                    sequence == 0 ? "an empty journal" : "journal entry \(sequence) (hash \(hash.prefix(12))…)"
                }
            }

            case created(ledger: String, path: String)
            case adopted(path: String, ledger: String, end: End)
            case movedAside(path: String, to: String)
            case joined(ledger: String, path: String)
            case previousLedgerGivenUp(ledger: String, end: End)
            case entriesGivenUp(from: Int64, to: Int64)

            public var description: String {
                switch self {
                case .created(let ledger, let path): "created a new ledger \(ledger) in \(path)"
                case .adopted(let path, let ledger, let end): "adopted \(path) as it is: ledger \(ledger), \(end)"
                case .movedAside(let path, let aside): "moved \(path), which held no ledger, to \(aside)"
                case .joined(let ledger, let path): "opened ledger \(ledger) in \(path), which another host created a moment ago"
                case .previousLedgerGivenUp(let ledger, let end): "the previous ledger \(ledger) (ending at \(end)) is given up"
                case .entriesGivenUp(let from, let to): "journal entries \(from)–\(to) recorded before are given up"
                }
            }
        }

        public let notes: [Note]
        /// One line a person reads: what was created or adopted, and what was given up.
        public var description: String { notes.map(\.description).joined(separator: "; ") }
    }

    /// Whether `dataDirectory` holds nothing of a ledger: no database (or an empty file; with PostgreSQL, a
    /// database without the ledger's tables), no `ledger-tip`, no signing key. `keys init` creates the ledger in
    /// such a folder (the documented first start). A PostgreSQL server that cannot be asked is not fresh: opening
    /// it then reports why.
    public static func isFresh(_ dataDirectory: URL, location: LedgerLocation = .dataFolder) -> Bool {
        (try? LedgerDatabase.absence(in: dataDirectory, location: location)).flatMap { $0 } != nil
            && !FileManager.default.fileExists(atPath: dataDirectory.appendingPathComponent(LedgerTip.fileName).path)
            && !FileManager.default.fileExists(atPath: KeyStore(dataDirectory: dataDirectory).signingKeyURL.path)
    }

    /// `rbs-host init`: creates the ledger of a folder that has none. Refuses where a database or a tip record
    /// exists, unless `force`: then an existing, readable database is adopted as it is (its tip recorded, what
    /// the old record knew beyond it given up), and where there is none a new ledger is started. Nothing is ever
    /// deleted (a database without the ledger's tables is moved aside), and the used-code record and a lock-out
    /// are carried over from the old record either way.
    ///
    /// With PostgreSQL (`location`), "a database exists" means the database holds the ledger's tables; one
    /// without them is given the tables. Several hosts may create at once: the schema steps run under a lock,
    /// and all of them get the one ledger.
    public static func create(
        dataDirectory: URL, location: LedgerLocation = .dataFolder, clock: @escaping @Sendable () -> Date = { Date() },
        force: Bool = false
    ) throws(LedgerError) -> (ledger: Ledger, creation: Creation) {
        let record: LedgerTip?
        do {
            record = try LedgerTip.read(in: dataDirectory)
        } catch {
            guard force, case .tipDamaged = error else { throw error }
            record = nil  // --force records the tip again
        }
        let tipPath = dataDirectory.appendingPathComponent(LedgerTip.fileName).path
        let databasePath: String = switch location {
        case .dataFolder: dataDirectory.appendingPathComponent(LedgerDatabase.fileName).path
        case .postgres(let address): address.description
        }
        let absence = try LedgerDatabase.absence(in: dataDirectory, location: location)
        if !force {
            if absence == nil {
                throw .alreadyInitialized(directory: dataDirectory.path,
                                          detail: location == .dataFolder ? "\(databasePath) exists" : "\(databasePath) holds a ledger")
            }
            if let record {
                throw .alreadyInitialized(
                    directory: dataDirectory.path,
                    detail: "\(tipPath) records ledger \(record.ledgerId) ending at \(record.entryText), but \(absence ?? databasePath) — restore it from a backup")
            }
            let keyPath = KeyStore(dataDirectory: dataDirectory).signingKeyURL.path
            if FileManager.default.fileExists(atPath: keyPath) {
                throw .alreadyInitialized(
                    directory: dataDirectory.path,
                    detail: "a signing key exists (\(keyPath)), so documents may have been signed with this folder, but "
                        + "\(absence ?? databasePath) — restore the folder from a backup")
            }
        }
        var notes: [Creation.Note] = []
        var created = true
        let database: LedgerDatabase
        if absence == nil {
            var existing: LedgerDatabase?
            do {
                existing = try LedgerDatabase(dataDirectory: dataDirectory, location: location)
            } catch {
                guard case .historyMissing = error else { throw error }
            }
            if let existing {
                database = existing
                created = false
                let current = try database.read(LedgerTip.current)
                notes.append(.adopted(path: databasePath, ledger: current.ledgerId, end: current.end))
            } else if location != .dataFolder {
                // Tables of the ledger's appeared since absence was asked (another host creating it): open them.
                database = try LedgerDatabase(dataDirectory: dataDirectory, location: location, create: true)
            } else {
                // An SQLite file without the ledger's tables: kept beside, never deleted.
                let aside = databasePath + ".set-aside-\(Timestamp.milliseconds(Date()))"
                guard rename(databasePath, aside) == 0 else {
                    throw .dataDirectory(path: dataDirectory.path, detail: "cannot move \(databasePath) aside: \(String(cString: strerror(errno)))")
                }
                for suffix in ["-wal", "-shm"] { _ = rename(databasePath + suffix, aside + suffix) }
                notes.append(.movedAside(path: databasePath, to: aside))
                database = try LedgerDatabase(dataDirectory: dataDirectory, create: true)
            }
        } else {
            if location == .dataFolder {
                unlink(databasePath)  // missing, or an empty file: nothing to keep
                for suffix in ["-wal", "-shm"] { unlink(databasePath + suffix) }
            }
            database = try LedgerDatabase(dataDirectory: dataDirectory, location: location, create: true)
        }
        let current = try database.read(LedgerTip.current)
        if created, location != .dataFolder, database.stepsApplied.isEmpty {
            // Another host made the tables between our look and our lock: this one joins that ledger.
            created = false
            notes.append(.joined(ledger: current.ledgerId, path: databasePath))
        }
        if created { notes.insert(.created(ledger: current.ledgerId, path: databasePath), at: 0) }
        if let record {
            if record.ledgerId != current.ledgerId {
                notes.append(.previousLedgerGivenUp(ledger: record.ledgerId, end: record.end))
            } else if record.sequence > current.sequence {
                notes.append(.entriesGivenUp(from: current.sequence + 1, to: record.sequence))
            }
            try database.carryCodeState(from: record, now: Timestamp.milliseconds(clock()))
        }
        database.record(try database.read(LedgerTip.current))
        let ledger = Ledger(dataDirectory: dataDirectory, database: database, clock: clock)
        return (ledger, Creation(notes: notes))
    }

    /// Opens the existing database of `dataDirectory` (or at `location`) after checking that it continues the
    /// history the folder knows of; carries a newer code state over from the record; records the tip.
    ///
    /// With PostgreSQL several hosts write the ledger, so a record that lags behind the database is expected and
    /// accepted; one that ran ahead of it, or names another ledger, is refused as with SQLite.
    static func openExisting(_ dataDirectory: URL, location: LedgerLocation = .dataFolder,
                             clock: @Sendable () -> Date) throws(LedgerError) -> LedgerDatabase {
        let record = try LedgerTip.read(in: dataDirectory)
        let tipPath = dataDirectory.appendingPathComponent(LedgerTip.fileName).path
        let keyPath = KeyStore(dataDirectory: dataDirectory).signingKeyURL.path
        let known: String? = if let record {
            "\(tipPath) records ledger \(record.ledgerId) ending at \(record.entryText)"
        } else if FileManager.default.fileExists(atPath: keyPath) {
            "a signing key exists (\(keyPath)), so documents may have been signed with this folder"
        } else {
            nil
        }
        func missing(_ found: String) -> LedgerError {
            guard let known else { return .firstStart(directory: dataDirectory.path) }
            return .historyMissing(directory: dataDirectory.path, found: found, known: known)
        }
        if location == .dataFolder, let absence = LedgerDatabase.absence(in: dataDirectory) { throw missing(absence) }
        let database: LedgerDatabase
        do {
            database = try LedgerDatabase(dataDirectory: dataDirectory, location: location)
        } catch {
            if case .historyMissing(_, let found, _) = error { throw missing(found) }
            throw error
        }
        let current = try database.read(LedgerTip.current)
        if let record {
            let path = database.place
            guard current.ledgerId == record.ledgerId else {
                throw missing("\(path) is another ledger (\(current.ledgerId), \(current.entryText))")
            }
            guard current.sequence >= record.sequence else {
                throw missing("\(path) ends at \(current.entryText): journal entries \(current.sequence + 1)–\(record.sequence) "
                    + "are missing (a copy older than the last run?)")
            }
            let hash: Data? = record.sequence == 0 ? JournalEntry.genesisHash : try database.read { db in
                try db.value(Data.self, "SELECT hash FROM journal WHERE \(db.journalPositions ? "position" : "seq") = ?", record.sequence)
            }
            guard hash == record.hash else {
                throw missing("journal entry \(record.sequence) of \(path) is not the recorded one (its hash differs), "
                    + "so the database does not continue the last known tip")
            }
            try database.carryCodeState(from: record, now: Timestamp.milliseconds(clock()))
        }
        database.record(try database.read(LedgerTip.current))
        return database
    }
}

extension LedgerDatabase {
    /// Makes the database's one-time code state at least as strict as the record's: a later used step and a
    /// lock that has not ended yet are carried over (a database put back from an older copy forgets neither).
    func carryCodeState(from record: LedgerTip, now: Int64) throws(LedgerError) {
        let current = try read(LedgerTip.current)
        let step = max(current.codeStep ?? Int64.min, record.codeStep ?? Int64.min)
        let newStep: Int64? = step == Int64.min ? nil : step
        var lockedUntil = current.lockedUntil
        var failures = current.codeFailures
        if let recordLock = record.lockedUntil, recordLock > now, recordLock > (lockedUntil ?? Int64.min) {
            lockedUntil = recordLock
            failures = max(failures, record.codeFailures)
        }
        guard newStep != current.codeStep || lockedUntil != current.lockedUntil || failures != current.codeFailures else { return }
        try write { db in
            try db.execute("UPDATE code_state SET last_step = ?, failures = ?, locked_until_ms = ? WHERE id = 1",
                           newStep, failures, lockedUntil)
        }
    }
}
