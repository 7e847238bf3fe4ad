import Foundation
import Testing
@testable import RBSLedger

/// The data folder watched while a ledger is open (issue 28, item 8): a folder or database that vanishes, is replaced
/// or stops being private stops the ledger at once, and nothing is acknowledged after that.
@Suite("Ledger: the data folder is watched while the ledger is open")
struct DataFolderWatchTests {
    /// Posts one payment, then does `change` to the folder and returns what the next payment threw.
    private func nextPaymentAfter(_ change: (Fixture) throws -> Void) throws -> (Fixture, LedgerError?) {
        let f = try Fixture(engine: .sqlite)
        _ = try f.ledger.signAndPost(try f.payment(amount: "1.00"), code: f.nextCode())
        // The tip record of that commit is written in the background: let it land before the folder is changed.
        TipRecorder.for(f.directory).settle()
        try change(f)
        do {
            _ = try f.ledger.signAndPost(try f.payment(amount: "2.00"), code: f.nextCode())
            return (f, nil)
        } catch let error as LedgerError {
            return (f, error)
        }
    }

    private var database: String { LedgerDatabase.fileName }

    @Test("a data folder deleted under an open ledger: the next payment is refused saying so, not acknowledged into the unlinked file")
    func deletedFolder() throws {
        let (f, error) = try nextPaymentAfter { f in try FileManager.default.removeItem(at: f.directory) }
        #expect(error == .dataFolderChanged(.folderMissing(path: f.directory.path)))
        #expect(error?.description.hasPrefix("the ledger stopped: the data folder \(f.directory.path) was deleted or moved away while rbs-host was running") == true)
        // Reads are refused too: the balances of a ledger that is gone are not shown as if it were there.
        #expect(throws: LedgerError.dataFolderChanged(.folderMissing(path: f.directory.path))) { try f.ledger.journal.verify() }
    }

    @Test("a data folder deleted and made again (another inode) is another folder: refused as replaced")
    func replacedFolder() throws {
        let (f, error) = try nextPaymentAfter { f in
            try FileManager.default.removeItem(at: f.directory)
            try FileManager.default.createDirectory(at: f.directory, withIntermediateDirectories: false,
                                                    attributes: [.posixPermissions: 0o700])
        }
        #expect(error == .dataFolderChanged(.folderReplaced(path: f.directory.path)))
    }

    @Test("the database replaced by a copy of itself (another inode): refused, and the copy is not written")
    func replacedDatabase() throws {
        var before: Data?
        let (f, error) = try nextPaymentAfter { f in
            let path = f.directory.appendingPathComponent(database).path
            let copy = path + ".copy"
            try FileManager.default.copyItem(atPath: path, toPath: copy)
            chmod(copy, 0o600)
            #expect(rename(copy, path) == 0)
            before = FileManager.default.contents(atPath: path)
        }
        let path = f.directory.appendingPathComponent(database).path
        #expect(error == .dataFolderChanged(.ledgerReplaced(path: path)))
        #expect(FileManager.default.contents(atPath: path) == before)
    }

    @Test("the database deleted while the folder stays: refused as missing")
    func deletedDatabase() throws {
        let (f, error) = try nextPaymentAfter { f in
            try FileManager.default.removeItem(at: f.directory.appendingPathComponent(database))
        }
        #expect(error == .dataFolderChanged(.ledgerMissing(path: f.directory.appendingPathComponent(database).path)))
    }

    @Test("a folder turned 0777 stops the ledger, naming the fix, and putting 0700 back does not resume it before a restart")
    func folderOpenedToOthers() throws {
        let (f, error) = try nextPaymentAfter { f in #expect(chmod(f.directory.path, 0o777) == 0) }
        let exposure = SecureFile.Exposure(
            path: f.directory.path, problem: "has mode 777 (other users can change it); it must be 700",
            fix: "chmod 700 \(f.directory.path)")
        #expect(error == .dataFolderChanged(.exposed(exposure)))
        // One sentence that reads: what changed, then its fix (not "put the folder back from a backup").
        #expect(error?.description.hasPrefix("the ledger stopped: while rbs-host was running, \(f.directory.path) has mode 777 "
            + "(other users can change it); it must be 700, so nothing is signed or posted any more — run `chmod 700 \(f.directory.path)`") == true,
            "\(String(describing: error))")
        #expect(chmod(f.directory.path, 0o700) == 0)
        #expect(throws: LedgerError.dataFolderChanged(.exposed(exposure))) {
            _ = try f.ledger.signAndPost(try f.payment(amount: "3.00"), code: f.nextCode())
        }
        // The next start checks the folder as every start does, finds it private again, and the first payment stands.
        let reopened = try f.reopen()
        #expect(try reopened.journal.verify() == .ok(1))
    }

    @Test("a database turned 0666 stops the ledger")
    func databaseOpenedToOthers() throws {
        let (f, error) = try nextPaymentAfter { f in
            #expect(chmod(f.directory.appendingPathComponent(database).path, 0o666) == 0)
        }
        guard case .dataFolderChanged(.exposed(let exposure)) = error else {
            Issue.record("expected the database's exposure, got \(String(describing: error))")
            return
        }
        #expect(exposure.path == f.directory.appendingPathComponent(database).path)
        #expect(exposure.problem == "has mode 666 (other users can change it); it must be 600")
    }

    @Test("health: usable while the folder is as opened; after the folder is deleted it names the folder and stays unusable")
    func health() throws {
        let f = try Fixture(engine: .sqlite)
        let fine = f.ledger.health()
        #expect(fine.isUsable)
        #expect(fine.folder == nil && fine.database == nil)
        #expect(fine.place == f.directory.appendingPathComponent(database).path)
        TipRecorder.for(f.directory).settle()
        try FileManager.default.removeItem(at: f.directory)
        let gone = f.ledger.health()
        #expect(!gone.isUsable)
        #expect(gone.folder == .folderMissing(path: f.directory.path))
    }
}

/// `health()` against a PostgreSQL server that stops answering (needs `RBS_TEST_POSTGRES`, as `make test` sets it).
@Suite("Ledger: health with PostgreSQL")
struct PostgresHealthTests {
    @Test("a PostgreSQL that stops taking connections makes health unusable naming the server; it is usable again once the server is back")
    func stoppedServer() throws {
        guard let server = TestDatabase.server else {
            print("*** SKIPPED: PostgresHealthTests.stoppedServer — \(TestDatabase.skipReason) ***")
            return
        }
        let database = try TestDatabase()
        let directory = temporaryDirectory()
        let ledger = try Ledger.create(dataDirectory: directory, location: database.location).ledger
        #expect(ledger.health().isUsable)
        // As a stopped server looks from the host: every connection ends and no new one is taken.
        let name = database.address.database
        try PostgresStore.administer("ALTER DATABASE \(name) ALLOW_CONNECTIONS false", at: server)
        try PostgresStore.administer(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(name)'", at: server)
        let down = ledger.health()
        #expect(!down.isUsable)
        #expect(down.folder == nil)
        #expect(down.database != nil)
        #expect(down.place == database.address.description)
        try PostgresStore.administer("ALTER DATABASE \(name) ALLOW_CONNECTIONS true", at: server)
        #expect(ledger.health().isUsable)
    }
}
