import Foundation
import Testing
@testable import RBSLedger

@Suite("ledger-tip written beside the commits")
struct TipRecorderTests {
    /// The record as the file holds it, read without waiting for this process's writes in flight.
    static func onDisk(_ directory: URL) throws -> LedgerTip? {
        let url = directory.appendingPathComponent(LedgerTip.fileName)
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return nil }
        let fields = Dictionary(text.split(separator: "\n").map { line -> (String, [Substring]) in
            let parts = line.split(separator: " ")
            return (String(parts[0]), Array(parts.dropFirst()))
        }, uniquingKeysWith: { first, _ in first })
        guard let entry = fields["entry"], entry.count == 2, let sequence = Int64(entry[0]) else { return nil }
        return LedgerTip(ledgerId: String(fields["ledger"]?.first ?? ""), sequence: sequence, hash: hex(String(entry[1])),
                         codeStep: nil, codeFailures: 0, lockedUntil: nil)
    }

    @Test("commits in quick succession: the record never runs ahead of the database, and a reader here sees the last one")
    func neverAheadAndSettledForReaders() throws {
        let f = try Fixture()
        var committed: [Int64] = [0]
        for round in 0..<40 {
            let outcome = try f.ledger.signAndPost(try f.payment(amount: "1.0\(round % 10)"), code: f.nextCode())
            committed.append(outcome.sequence)
            // Whatever is on disk at any moment is a state the database reached (it may lag, never lead).
            if let disk = try Self.onDisk(f.directory) {
                #expect(disk.sequence <= outcome.sequence)
                #expect(committed.contains(disk.sequence))
            }
        }
        // A reader in this process waits for the records handed over: it sees the last commit and its code state.
        let read = try #require(try LedgerTip.read(in: f.directory))
        let current = try f.ledger.database.read(LedgerTip.current)
        #expect(read == current)
        #expect(read.sequence == committed.last)
        #expect(read.codeStep != nil)
    }

    @Test("closing the ledger writes the last record; reopening accepts it")
    func closeWritesTheLast() throws {
        let f = try Fixture()
        var last: Int64 = 0
        for _ in 0..<10 { last = try f.ledger.signAndPost(try f.payment(amount: "2.00"), code: f.nextCode()).sequence }
        try f.ledger.close()
        #expect(try Self.onDisk(f.directory)?.sequence == last)
        let reopened = try f.reopen()
        #expect(try reopened.journal.verify() == .ok(Int(last)))
    }
}
