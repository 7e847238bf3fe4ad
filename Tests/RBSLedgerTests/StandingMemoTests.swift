import Foundation
import Testing
@testable import RBSLedger

/// The session check's memo (``StandingMemo``, issue 33): `isActive` answers from memory only while nothing was
/// committed to the SQLite ledger since; a removal or a new key by another connection (another process's
/// `customers remove`) is seen by the very next check, and the data folder is still checked on every answer.
@Suite("Ledger: the session check's memo of active customers")
struct StandingMemoTests {
    @Test("a customer removed through another connection is inactive at the next check, though the memo knew them active")
    func removalElsewhereIsSeen() throws {
        let f = try Fixture(engine: .sqlite)
        let (ann, _) = try f.ledger.customers.add(name: "ann", passwordRecord: "x")
        #expect(try f.ledger.customers.isActive(ann))
        // The memo now holds ann at the ledger's current version, so the next check is answered from it.
        let memo = try #require(f.ledger.database.standing)
        let version = try #require(memo.version())
        #expect(memo.knowsActive(ann, at: version))
        #expect(try f.ledger.customers.isActive(ann))

        // Another ledger on the same folder (as `rbs-host customers remove` in another process) removes her.
        let elsewhere = try f.reopen()
        try elsewhere.customers.remove(name: "ann")
        #expect(try !f.ledger.customers.isActive(ann))
        #expect(try !f.ledger.customers.isActive(ann))
    }

    @Test("a customer removed and added again under the same name (a new key) no longer matches the old session's login")
    func newKeyIsNotTheOldLogin() throws {
        let f = try Fixture(engine: .sqlite)
        let (bob, _) = try f.ledger.customers.add(name: "bob", passwordRecord: "x")
        #expect(try f.ledger.customers.isActive(bob))
        let elsewhere = try f.reopen()
        try elsewhere.customers.remove(name: "bob")
        let (again, _) = try elsewhere.customers.add(name: "bob", passwordRecord: "y")
        #expect(try !f.ledger.customers.isActive(bob))
        #expect(try f.ledger.customers.isActive(again))
    }

    @Test("an answer from the memo still checks the data folder: a folder opened to others stops the check")
    func memoStillChecksTheFolder() throws {
        let f = try Fixture(engine: .sqlite)
        let (cid, _) = try f.ledger.customers.add(name: "cid", passwordRecord: "x")
        #expect(try f.ledger.customers.isActive(cid))
        let memo = try #require(f.ledger.database.standing)
        #expect(memo.knowsActive(cid, at: try #require(memo.version())))
        #expect(chmod(f.directory.path, 0o777) == 0)
        defer { chmod(f.directory.path, 0o700) }
        let exposure = SecureFile.Exposure(
            path: f.directory.path, problem: "has mode 777 (other users can change it); it must be 700",
            fix: "chmod 700 \(f.directory.path)")
        #expect(throws: CustomerError.storage(.dataFolderChanged(.exposed(exposure)))) {
            _ = try f.ledger.customers.isActive(cid)
        }
    }
}
