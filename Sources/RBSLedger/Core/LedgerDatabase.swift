import Foundation

/// The ledger's tables as the rest of the ledger uses them: journal, core bank, customers and one-time code
/// state (TOTP steps, OCRA challenges waiting and answered), in the ``LedgerStore`` the location names — the
/// data folder's `rbs.sqlite` by default.
///
/// Every write transaction also records the ledger's tip in the data folder (`ledger-tip`, see ``LedgerTip``).
/// The schema is brought up to date on every open. A store is created only when asked (`rbs-host init`,
/// `keys init` on a fresh folder): opening never makes a new ledger where one is expected (see ``Ledger``).
final class LedgerDatabase: Sendable {
    let store: any LedgerStore
    let directory: URL
    /// Where the tables are: the data folder's SQLite file, or a PostgreSQL database.
    let location: LedgerLocation
    /// The schema steps this open applied (none when the database was up to date).
    let stepsApplied: [String]
    /// Writes `ledger-tip` beside the commits (one per data folder in this process).
    private let recorder: TipRecorder
    /// The data folder and the SQLite file as they were opened: every transaction first checks they still are.
    let watch: DataFolderWatch
    /// The session check's memo of active customers (SQLite only: see ``StandingMemo``).
    let standing: StandingMemo?

    static let fileName = "rbs.sqlite"

    /// Where the ledger is, as messages name it (the SQLite file's path, or the PostgreSQL address).
    var place: String { store.place }

    /// What is wrong with the database file before it is opened: "…/rbs.sqlite is missing" or "… is empty
    /// (0 bytes)"; `nil` when it has content.
    static func absence(in dataDirectory: URL) -> String? {
        let path = dataDirectory.appendingPathComponent(fileName).path
        var info = stat()
        guard stat(path, &info) == 0 else { return "\(path) is missing" }
        return info.st_size == 0 ? "\(path) is empty (0 bytes)" : nil
    }

    /// What is missing at `location`: the SQLite file's ``absence(in:)``, or for PostgreSQL "postgres://… holds
    /// no ledger tables" (the server is asked; an unreachable one throws).
    /// The ledger's database at `location` for a part of it kept beside the ledger (trusted keys, rollouts), its
    /// schema brought up to date as every open does; a PostgreSQL database without the ledger's tables is refused
    /// with what to run (`rbs-host db migrate`).
    static func joining(dataDirectory: URL, location: LedgerLocation) throws(LedgerError) -> LedgerDatabase {
        if case .postgres = location, try absence(in: dataDirectory, location: location) != nil {
            throw .noLedgerTables(place: location.description)
        }
        return try LedgerDatabase(dataDirectory: dataDirectory, location: location)
    }

    static func absence(in dataDirectory: URL, location: LedgerLocation) throws(LedgerError) -> String? {
        switch location {
        case .dataFolder:
            return absence(in: dataDirectory)
        case .postgres(let address):
            let store = try PostgresStore(address: address)
            defer { try? store.close() }
            do {
                return try store.holdsLedger() ? nil : "\(store.place) holds no ledger tables"
            } catch {
                throw store.ledgerError(error)
            }
        }
    }

    /// Opens the database of `dataDirectory` (or the PostgreSQL database `location` names). Without `create`,
    /// the file must exist with the ledger's tables (``LedgerError/historyMissing(directory:found:known:)`` with an
    /// empty `known` otherwise: the caller knows what history there was); with `create`, a new file is made (0600),
    /// or the PostgreSQL database given the tables, and the schema and the demo seed are written. Either way the
    /// SQLite file and its `-wal`/`-shm` must be private to this user.
    init(dataDirectory: URL, location: LedgerLocation = .dataFolder, create: Bool = false) throws(LedgerError) {
        do {
            try SecureFile.ensureDirectory(dataDirectory)
        } catch {
            switch error { case .system(let detail): throw .dataDirectory(path: dataDirectory.path, detail: detail) }
        }
        directory = dataDirectory
        recorder = TipRecorder.for(dataDirectory)
        self.location = location
        let store: any LedgerStore
        switch location {
        case .dataFolder:
            let path = dataDirectory.appendingPathComponent(Self.fileName).path
            if !create, let absent = Self.absence(in: dataDirectory) {
                throw .historyMissing(directory: dataDirectory.path, found: absent, known: "")
            }
            store = try SQLiteStore(path: path, create: create)
        case .postgres(let address):
            store = try PostgresStore(address: address)
        }
        self.store = store
        standing = location == .dataFolder ? StandingMemo(path: dataDirectory.appendingPathComponent(Self.fileName).path) : nil
        watch = DataFolderWatch(directory: dataDirectory,
                                ledgerFile: location == .dataFolder ? dataDirectory.appendingPathComponent(Self.fileName).path : nil)
        do {
            if !create, try !store.holdsLedger() {
                throw LedgerError.historyMissing(directory: dataDirectory.path, found: "\(store.place) holds no ledger tables", known: "")
            }
            stepsApplied = try store.migrate()
            // Every entry stored is chained before the start reads the journal's tip (PostgreSQL, schema step v29).
            try store.integrate()
        } catch {
            throw store.ledgerError(error)
        }
    }

    /// Rewrites `ledger-tip` with `tip` now, unless this process already wrote that state. Best effort: the
    /// commit it follows has happened whatever the file system says now, and a record that lags is accepted on the
    /// next start (only one that ran ahead, or a different ledger, is refused).
    func record(_ tip: LedgerTip) {
        recorder.record(tip)
    }

    /// Chains every journal entry stored and not integrated yet (PostgreSQL with schema step v29; nothing on SQLite).
    func integrate() throws(LedgerError) {
        do {
            try store.integrate()
        } catch {
            throw store.ledgerError(error)
        }
    }

    /// Runs `body` in one write transaction, mapping database errors, then records the new tip in the background
    /// (``TipRecorder``). The data folder is checked (``DataFolderWatch``) before the transaction and again after its
    /// commit: a commit that went into a file deleted or replaced meanwhile is not reported as done, so no payment is
    /// acknowledged that the ledger on disk does not hold.
    func write<T>(_ body: (any SQLTransaction) throws -> T) throws(LedgerError) -> T {
        try watch.check()
        let (value, tip): (T, LedgerTip)
        do {
            if let postgres = store as? PostgresStore {
                // PostgreSQL's one-call writes report the tip their commit left (the journal is read after the writes).
                (value, tip) = try postgres.writeReportingTip(body)
            } else {
                (value, tip) = try store.write { db in (try body(db), try LedgerTip.current(db)) }
            }
        } catch {
            throw store.ledgerError(error)
        }
        try watch.check()
        recorder.submit(tip)
        return value
    }

    /// Runs `body` on a read snapshot, mapping database errors (after the data folder's check: a deleted or
    /// replaced ledger shows nothing as if it were still there).
    func read<T>(_ body: (any SQLTransaction) throws -> T) throws(LedgerError) -> T {
        try watch.check()
        do {
            return try store.read(body)
        } catch {
            throw store.ledgerError(error)
        }
    }

    /// The rows of one query on its own snapshot, given to `body` (one round trip on PostgreSQL, where ``read(_:)``
    /// costs BEGIN and COMMIT around its statements), mapping database errors as ``read(_:)`` does.
    func query<T>(_ sql: String, _ arguments: [SQLValue], _ body: ([SQLRow]) throws -> T) throws(LedgerError) -> T {
        try watch.check()
        do {
            return try body(try store.query(sql, arguments: arguments))
        } catch {
            throw store.ledgerError(error)
        }
    }

    /// Ends every connection (SQLite: after copying its WAL into the main file), after the last tip is recorded.
    func close() throws(LedgerError) {
        recorder.settle()
        standing?.close()
        do {
            try store.close()
        } catch {
            throw store.ledgerError(error)
        }
    }
}
