import Foundation
import GRDB
import RBSMoney

/// The one SQLite file `rbs.sqlite` in the data directory: journal, core bank and one-time code state.
///
/// A GRDB `DatabasePool` in WAL mode with `synchronous = FULL`, so a transaction reported committed survives
/// a power cut, not only a process crash. The schema and the demo seed are created by one migration in one
/// transaction, so a process killed while creating the file leaves an empty, re-creatable database.
final class LedgerDatabase: Sendable {
    let pool: DatabasePool
    let path: String

    static let fileName = "rbs.sqlite"

    init(dataDirectory: URL) throws(LedgerError) {
        do {
            try SecureFile.ensureDirectory(dataDirectory)
        } catch {
            switch error { case .system(let detail): throw .dataDirectory(path: dataDirectory.path, detail: detail) }
        }
        let path = dataDirectory.appendingPathComponent(Self.fileName).path
        self.path = path
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
            try Self.migrator.migrate(pool)
        } catch {
            throw LedgerError.from(error, path: path)
        }
    }

    /// Runs `body` in one write transaction, mapping database errors.
    func write<T>(_ body: (Database) throws -> T) throws(LedgerError) -> T {
        do {
            return try pool.write(body)
        } catch {
            throw LedgerError.from(error, path: path)
        }
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
        return migrator
    }
}
