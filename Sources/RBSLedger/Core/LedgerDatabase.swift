import Foundation
import GRDB
import RBSMoney
import Synchronization

/// The one SQLite file `rbs.sqlite` in the data directory: journal, core bank and one-time code state (TOTP steps,
/// OCRA challenges waiting and answered).
///
/// A GRDB `DatabasePool` in WAL mode with `synchronous = FULL`, so a transaction reported committed survives
/// a power cut, not only a process crash. The schema and the demo seed are created by one migration in one
/// transaction, so a process killed while creating the file leaves an empty, re-creatable database.
/// The file is created only when asked (`rbs-host init`, `keys init` on a fresh folder): opening never makes a
/// new ledger where one is expected (see ``Ledger``).
final class LedgerDatabase: Sendable {
    let pool: DatabasePool
    let path: String
    let directory: URL
    /// The last tip record this process wrote (so an unchanged state is not written again).
    private let recorded = Mutex<LedgerTip?>(nil)

    static let fileName = "rbs.sqlite"

    /// What is wrong with the database file before it is opened: "…/rbs.sqlite is missing" or "… is empty
    /// (0 bytes)"; `nil` when it has content.
    static func absence(in dataDirectory: URL) -> String? {
        let path = dataDirectory.appendingPathComponent(fileName).path
        var info = stat()
        guard stat(path, &info) == 0 else { return "\(path) is missing" }
        return info.st_size == 0 ? "\(path) is empty (0 bytes)" : nil
    }

    /// Opens the database of `dataDirectory`. Without `create`, the file must exist with the ledger's tables
    /// (``LedgerError/historyMissing(directory:found:known:)`` with an empty `known` otherwise: the caller knows
    /// what history there was); with `create`, a new file is made (0600) and the schema and the demo seed are
    /// written. Either way the file and its `-wal`/`-shm` must be private to this user.
    init(dataDirectory: URL, create: Bool = false) throws(LedgerError) {
        do {
            try SecureFile.ensureDirectory(dataDirectory)
        } catch {
            switch error { case .system(let detail): throw .dataDirectory(path: dataDirectory.path, detail: detail) }
        }
        directory = dataDirectory
        let path = dataDirectory.appendingPathComponent(Self.fileName).path
        self.path = path
        for file in [path, path + "-wal", path + "-shm"] {
            if let exposure = SecureFile.exposure(of: file) { throw .notPrivate(exposure) }
        }
        if create {
            // Made 0600 before SQLite sees it: SQLite gives the -wal and -shm files the database's mode.
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard fd >= 0 else {
                throw .dataDirectory(path: dataDirectory.path, detail: "cannot create \(path): \(String(cString: strerror(errno)))")
            }
            Glibc.close(fd)
        } else if let absent = Self.absence(in: dataDirectory) {
            throw .historyMissing(directory: dataDirectory.path, found: absent, known: "")
        }
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            // Checkpoint the WAL every ~32 MB rather than every 4 MB: fewer commits pay for a checkpoint (which
            // copies pages back into the main file and fsyncs it). Durability is the WAL's, unchanged.
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 8000")
            try db.execute(sql: "PRAGMA cache_size = -65536")
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
        }
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            let check = try pool.read { db in try String.fetchOne(db, sql: "PRAGMA quick_check") }
            guard check == "ok" else {
                throw LedgerError.corruptDatabase(path: path, detail: "integrity check: \(check ?? "no answer")")
            }
            if !create, try pool.read({ db in try !db.tableExists("journal") }) {
                throw LedgerError.historyMissing(directory: dataDirectory.path, found: "\(path) holds no ledger tables", known: "")
            }
            try Self.migrator.migrate(pool)
        } catch {
            throw LedgerError.from(error, path: path)
        }
    }

    /// Rewrites `ledger-tip` with `tip` unless this process already wrote that state. Best effort: the commit
    /// it follows has happened whatever the file system says now, and a record that lags is accepted on the next
    /// start (only one that ran ahead, or a different ledger, is refused).
    func record(_ tip: LedgerTip) {
        recorded.withLock { last in
            guard last != tip else { return }
            if let last, last.ledgerId == tip.ledgerId, tip.sequence < last.sequence { return }
            if (try? tip.write(in: directory)) != nil { last = tip }
        }
    }

    /// Runs `body` in one write transaction, mapping database errors, then records the new tip.
    func write<T>(_ body: (Database) throws -> T) throws(LedgerError) -> T {
        let (value, tip): (T, LedgerTip)
        do {
            (value, tip) = try pool.write { db in (try body(db), try LedgerTip.current(db)) }
        } catch {
            throw LedgerError.from(error, path: path)
        }
        record(tip)
        return value
    }

    /// Runs `body` on a read snapshot, mapping database errors.
    func read<T>(_ body: (Database) throws -> T) throws(LedgerError) -> T {
        do {
            return try pool.read(body)
        } catch {
            throw LedgerError.from(error, path: path)
        }
    }

    /// Copies the WAL into the main file, truncates the WAL and closes every connection.
    func close() throws(LedgerError) {
        do {
            _ = try pool.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
            try pool.close()
        } catch {
            throw LedgerError.from(error, path: path)
        }
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE accounts (
                    number TEXT PRIMARY KEY NOT NULL,
                    currency TEXT NOT NULL,
                    balance TEXT NOT NULL,
                    owner TEXT NOT NULL,
                    title TEXT NOT NULL,
                    blocked INTEGER NOT NULL,
                    position INTEGER NOT NULL
                );
                CREATE TABLE postings (
                    id INTEGER PRIMARY KEY,
                    document_id TEXT NOT NULL,
                    debit TEXT NOT NULL,
                    credit TEXT NOT NULL,
                    amount TEXT NOT NULL,
                    currency TEXT NOT NULL,
                    time_ms INTEGER NOT NULL,
                    journal_seq INTEGER NOT NULL
                );
                CREATE TABLE keys (
                    key_id TEXT PRIMARY KEY NOT NULL,
                    public_key BLOB NOT NULL,
                    first_used_ms INTEGER NOT NULL
                );
                CREATE TABLE journal (
                    seq INTEGER PRIMARY KEY,
                    kind TEXT NOT NULL,
                    document_id TEXT NOT NULL,
                    document BLOB NOT NULL,
                    signature BLOB NOT NULL,
                    key_id TEXT NOT NULL,
                    reason_code TEXT,
                    reason TEXT,
                    debit TEXT,
                    credit TEXT,
                    amount TEXT,
                    currency TEXT,
                    balance_after TEXT,
                    recorded_ms INTEGER NOT NULL,
                    prev_hash BLOB NOT NULL,
                    hash BLOB NOT NULL,
                    document_key INTEGER NOT NULL
                );
                CREATE INDEX journal_document_key ON journal (document_key);
                CREATE TRIGGER journal_unique_document BEFORE INSERT ON journal
                    WHEN EXISTS (SELECT 1 FROM journal WHERE document_key = NEW.document_key AND document_id = NEW.document_id)
                    BEGIN SELECT RAISE(ABORT, 'the document is already journaled'); END;
                CREATE TABLE code_state (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    last_step INTEGER,
                    failures INTEGER NOT NULL,
                    locked_until_ms INTEGER
                );
                INSERT INTO code_state (id, last_step, failures, locked_until_ms) VALUES (1, NULL, 0, NULL);
                CREATE TRIGGER journal_no_update BEFORE UPDATE ON journal
                    BEGIN SELECT RAISE(ABORT, 'the journal is append-only: entries cannot be changed'); END;
                CREATE TRIGGER journal_no_delete BEFORE DELETE ON journal
                    BEGIN SELECT RAISE(ABORT, 'the journal is append-only: entries cannot be deleted'); END;
                CREATE TRIGGER postings_no_update BEFORE UPDATE ON postings
                    BEGIN SELECT RAISE(ABORT, 'postings are append-only: they cannot be changed'); END;
                CREATE TRIGGER postings_no_delete BEFORE DELETE ON postings
                    BEGIN SELECT RAISE(ABORT, 'postings are append-only: they cannot be deleted'); END;
                CREATE TRIGGER keys_no_update BEFORE UPDATE ON keys
                    BEGIN SELECT RAISE(ABORT, 'registered keys cannot be changed'); END;
                CREATE TRIGGER keys_no_delete BEFORE DELETE ON keys
                    BEGIN SELECT RAISE(ABORT, 'registered keys cannot be deleted'); END;
                """)
            for (position, account) in DemoBank.seedAccounts.enumerated() {
                try db.execute(
                    sql: "INSERT INTO accounts (number, currency, balance, owner, title, blocked, position) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    arguments: [
                        account.number, account.currency,
                        DecimalText.format(account.balance, scale: Currency(code: account.currency)?.minorUnits ?? 2) ?? "\(account.balance)",
                        account.owner, account.title, account.blocked, position,
                    ])
            }
        }
        // `rbs-host serve`'s customers: a step of its own, so existing databases gain the tables on first open.
        migrator.registerMigration(CustomerSchema.migration, migrate: CustomerSchema.create)
        // The ledger's identity (what `ledger-tip` names, so a replaced database is told from this one) and the
        // callers' request ids (`run --request-id`), each written in the transaction of what it records.
        migrator.registerMigration("v2") { db in
            var generator = SystemRandomNumberGenerator()
            let ledgerId = Hex.encode((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
            try db.execute(sql: """
                CREATE TABLE ledger_identity (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    ledger_id TEXT NOT NULL,
                    created_ms INTEGER NOT NULL
                );
                CREATE TRIGGER ledger_identity_no_update BEFORE UPDATE ON ledger_identity
                    BEGIN SELECT RAISE(ABORT, 'the ledger id cannot be changed'); END;
                CREATE TRIGGER ledger_identity_no_delete BEFORE DELETE ON ledger_identity
                    BEGIN SELECT RAISE(ABORT, 'the ledger id cannot be deleted'); END;
                CREATE TABLE requests (
                    customer TEXT NOT NULL,
                    request_id TEXT NOT NULL,
                    document_id TEXT NOT NULL,
                    journal_seq INTEGER NOT NULL,
                    PRIMARY KEY (customer, request_id)
                ) WITHOUT ROWID;
                CREATE TRIGGER requests_no_update BEFORE UPDATE ON requests
                    BEGIN SELECT RAISE(ABORT, 'request ids are append-only: they cannot be changed'); END;
                CREATE TRIGGER requests_no_delete BEFORE DELETE ON requests
                    BEGIN SELECT RAISE(ABORT, 'request ids are append-only: they cannot be deleted'); END;
                """)
            try db.execute(sql: "INSERT INTO ledger_identity (id, ledger_id, created_ms) VALUES (1, ?, ?)",
                           arguments: [ledgerId, Timestamp.milliseconds(Date())])
        }
        // Dynamic linking (issue #21): how each entry was authorised, OCRA challenges waiting for their response,
        // and the challenges answered once.
        migrator.registerMigration("v2-signing-method") { db in
            try db.execute(sql: """
                ALTER TABLE journal ADD COLUMN auth_method TEXT;
                ALTER TABLE journal ADD COLUMN auth_suite TEXT;
                ALTER TABLE journal ADD COLUMN auth_challenge TEXT;
                ALTER TABLE journal ADD COLUMN auth_response TEXT;
                ALTER TABLE journal ADD COLUMN auth_secret_id TEXT;
                CREATE TABLE ocra_pending (
                    document_id TEXT PRIMARY KEY NOT NULL,
                    document BLOB NOT NULL,
                    challenge TEXT NOT NULL,
                    operation TEXT NOT NULL,
                    plugin TEXT NOT NULL,
                    issued_ms INTEGER NOT NULL
                );
                CREATE TABLE ocra_used (
                    challenge TEXT PRIMARY KEY NOT NULL,
                    document_id TEXT NOT NULL,
                    used_ms INTEGER NOT NULL
                );
                CREATE TRIGGER ocra_used_no_update BEFORE UPDATE ON ocra_used
                    BEGIN SELECT RAISE(ABORT, 'answered challenges cannot be changed'); END;
                CREATE TRIGGER ocra_used_no_delete BEFORE DELETE ON ocra_used
                    BEGIN SELECT RAISE(ABORT, 'answered challenges cannot be deleted'); END;
                """)
        }
        // Every account's opening balance, kept beside its balance so `verify` reconciles the seed's accounts and
        // those `customers add` opens alike. An existing account's opening is its balance less its postings'
        // movement (what the postings cannot explain was there from the start); it never changes afterwards.
        migrator.registerMigration("v3-opening-balances") { db in
            try db.execute(sql: "ALTER TABLE accounts ADD COLUMN opening TEXT")
            var movement: [String: Decimal] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT debit, credit, amount FROM postings") {
                guard let amount = DecimalText.parse(row["amount"]) else { continue }
                movement[row["debit"], default: 0] -= amount
                movement[row["credit"], default: 0] += amount
            }
            for row in try Row.fetchAll(db, sql: "SELECT number, currency, balance FROM accounts") {
                let number: String = row["number"], currency: String = row["currency"], text: String = row["balance"]
                guard let balance = DecimalText.parse(text) else { continue }
                let scale = Currency(code: currency)?.minorUnits ?? 2
                let opening = DecimalText.format(balance - (movement[number] ?? 0), scale: scale) ?? text
                try db.execute(sql: "UPDATE accounts SET opening = ? WHERE number = ?", arguments: [opening, number])
            }
            try db.execute(sql: """
                CREATE TRIGGER accounts_opening_fixed BEFORE UPDATE OF opening ON accounts WHEN OLD.opening IS NOT NULL
                    BEGIN SELECT RAISE(ABORT, 'an opening balance cannot be changed'); END;
                """)
        }
        // Customers' passkeys (issue #21): the public key of each registered WebAuthn credential and its counter.
        migrator.registerMigration(CustomerSchema.passkeysMigration, migrate: CustomerSchema.createPasskeys)
        return migrator
    }
}
