import Foundation
import Testing
@testable import RBSLedger

/// The storage interface on the SQLite engine: every kind of value bound and read back as stored, conveniences,
/// and damaged or mistaken reads reported with the column named, never trapped on.
@Suite struct SQLTransactionTests {
    private func store() throws -> SQLiteStore {
        let directory = temporaryDirectory()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let store = try SQLiteStore(path: directory.appendingPathComponent("t.sqlite").path, create: true)
        try store.write { db in try db.executeScript("CREATE TABLE t (i INTEGER, s TEXT, b BLOB)") }
        return store
    }

    /// A commit reported done must survive a power cut: every write runs on the pool's writer, which must sync the
    /// WAL at each commit (synchronous = FULL, 2). GRDB's pool sets NORMAL (1: synced only at checkpoints) on its
    /// writer after `prepareDatabase` has run, which the store once relied on — group commit then made one fdatasync
    /// every ~8,000 pages instead of one a batch. Checked on a new file and on one opened again.
    @Test func everyCommitSyncsTheWAL() throws {
        let directory = temporaryDirectory()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("t.sqlite").path
        for create in [true, false] {
            let store = try SQLiteStore(path: path, create: create)
            #expect(try store.write { db in try db.value(Int64.self, "PRAGMA synchronous") } == 2)
            #expect(try store.write { db in try db.value(String.self, "PRAGMA journal_mode") } == "wal")
            try store.close()
        }
    }

    @Test func everyKindOfValueComesBackAsStored() throws {
        let store = try store()
        let cases: [(SQLValue, SQLValue, SQLValue)] = [
            (.integer(Int64.min), .text("Оплата по счёту №7 😀"), .blob(Data([0, 1, 2, 255]))),
            (.integer(0), .text(""), .blob(Data())),
            (.null, .null, .null),
        ]
        try store.write { db in
            for (i, s, b) in cases { try db.execute("INSERT INTO t (i, s, b) VALUES (?, ?, ?)", arguments: [i, s, b]) }
        }
        let rows = try store.read { db in try db.rows("SELECT i, s, b FROM t ORDER BY rowid") }
        #expect(rows.map(\.values) == cases.map { [$0.0, $0.1, $0.2] })
        #expect(try rows[0]["s"] as String == "Оплата по счёту №7 😀")
        #expect(try rows[2]["s"] as String? == nil)
    }

    /// Text and blob arguments are bound where they were copied for the statement (SQLiteTransaction's arena):
    /// values larger than it first was, one statement after another in one transaction, and an argument read back
    /// as a column all come back as given.
    @Test func argumentsBoundInPlaceStayTheirs() throws {
        let store = try store()
        let long = String(repeating: "Счёт 40817810438000000001; ", count: 200), bytes = Data((0..<9_000).map { UInt8($0 % 251) })
        let echoed = try store.write { db -> [SQLRow] in
            try db.execute("INSERT INTO t (i, s, b) VALUES (?, ?, ?)", arguments: [.integer(1), .text("short"), .blob(Data([7]))])
            try db.execute("INSERT INTO t (i, s, b) VALUES (?, ?, ?)", arguments: [.integer(2), .text(long), .blob(bytes)])
            try db.execute("INSERT INTO t (i, s, b) VALUES (?, ?, ?)", arguments: [.integer(3), .text(""), .blob(Data([8, 9]))])
            return try db.rows("SELECT ? AS a, s, ? AS c FROM t WHERE i = ?", arguments: [.text(long), .blob(bytes), .integer(1)])
        }
        #expect(echoed.map(\.values) == [[.text(long), .text("short"), .blob(bytes)]])
        let rows = try store.read { db in try db.rows("SELECT s, b FROM t ORDER BY i") }
        #expect(rows.map(\.values) == [[.text("short"), .blob(Data([7]))], [.text(long), .blob(bytes)], [.text(""), .blob(Data([8, 9]))]])
    }

    @Test func conveniencesReadFirstColumnsAndExistence() throws {
        let store = try store()
        try store.write { db in
            try db.execute("INSERT INTO t (i, s) VALUES (?, ?)", 1, "one")
            try db.execute("INSERT INTO t (i, s) VALUES (?, ?)", 2, Optional<String>.none)
        }
        let (one, null, all, two, three) = try store.read { db in
            (try db.value(Int64.self, "SELECT i FROM t WHERE s = ?", "one"),
             try db.value(String.self, "SELECT s FROM t WHERE i = ?", 2),
             try db.values(Int.self, "SELECT i FROM t ORDER BY i"),
             try db.exists("SELECT 1 FROM t WHERE i = ?", 2),
             try db.exists("SELECT 1 FROM t WHERE i = ?", 3))
        }
        #expect(one == 1)
        #expect(null == nil)
        #expect(all == [1, 2])
        #expect(two)
        #expect(!three)
        #expect(throws: (any Error).self, "a read transaction cannot write") {
            try store.read { db in try db.value(Int64.self, "INSERT INTO t (i) VALUES (7) RETURNING i") }
        }
    }

    @Test func returningGivesTheNewKey() throws {
        let store = try store()
        let id = try store.write { db in try db.value(Int64.self, "INSERT INTO t (i) VALUES (?) RETURNING rowid", 5) }
        #expect(id == 1)
    }

    @Test func aWrongKindIsReportedWithTheColumn() throws {
        let store = try store()
        try store.write { db in try db.execute("INSERT INTO t (i, s) VALUES (?, ?)", 1, "x") }
        let row = try #require(try store.read { db in try db.row("SELECT i, s FROM t") })
        #expect(throws: SQLRowError.self) { try row.decode(Data.self, forColumn: "s") }
        do {
            _ = try row.decode(Int64.self, forColumn: "s")
            Issue.record("text read as an integer")
        } catch {
            #expect(error.description == "column s holds text of 1 characters, not Int64")
        }
        do {
            _ = try row.decode(Int64.self, forColumn: "missing")
            Issue.record("a missing column read")
        } catch {
            #expect(error.description == "the result has no column missing (it has i, s)")
        }
        #expect(try row.decode(Int64.self, forColumn: "I") == 1, "column names are case-insensitive")
    }

    @Test func aWrongNumberOfArgumentsIsRefusedBeforeRunning() throws {
        let store = try store()
        #expect(throws: (any Error).self) { try store.write { db in try db.execute("INSERT INTO t (i, s) VALUES (?, ?)", 1) } }
        let count = try store.read { db in try db.value(Int.self, "SELECT COUNT(*) FROM t") }
        #expect(count == 0)
        let message = store.ledgerError(SQLRowError.noColumn("x", among: [])).description
        #expect(message.contains("no column x"))
    }

    @Test func aFailedStatementRollsTheTransactionBackAndTheStoreStaysUsable() throws {
        let store = try store()
        try store.write { db in try db.executeScript("CREATE UNIQUE INDEX t_i ON t (i)") }
        #expect(throws: (any Error).self) {
            try store.write { db in
                try db.execute("INSERT INTO t (i) VALUES (?)", 1)
                try db.execute("INSERT INTO t (i) VALUES (?)", 1)
            }
        }
        try store.write { db in try db.execute("INSERT INTO t (i) VALUES (?)", 2) }
        #expect(try store.read { db in try db.values(Int.self, "SELECT i FROM t") } == [2])
    }

    @Test func theLedgerSchemaIsAppliedOnceInOrder() throws {
        let directory = temporaryDirectory()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let store = try SQLiteStore(path: directory.appendingPathComponent("l.sqlite").path, create: true)
        #expect(try store.migrate() == LedgerSchema.steps.map(\.name))
        #expect(try store.migrate() == [])
        #expect(try store.appliedSteps() == LedgerSchema.steps.map(\.name))
        #expect(try store.holdsLedger())
    }
}
