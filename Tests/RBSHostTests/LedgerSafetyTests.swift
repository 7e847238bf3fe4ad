import Foundation
import Testing

/// What the journal and the core look like after processes killed mid-run, and after bytes changed on disk.
@Suite("Crash safety and tamper evidence")
struct LedgerSafetyTests {
    /// The runs of a batch, in turn: money goes both ways between our accounts and out to another customer.
    static let runs: [(operation: String, assignments: [String])] = [
        ("transfer.own", ["fromAccount=\(Demo.current)", "toAccount=\(Demo.savings)", "amount=1.11"]),
        ("pay.pp.quick", ["srcAccount=\(Demo.savings)", "destName=Crash Test", "destAccount=\(Demo.external)",
                          "destBic=\(Demo.bic)", "destDesc=batch", "amount=2.22"]),
        ("transfer.own", ["fromAccount=\(Demo.savings)", "toAccount=\(Demo.current)", "amount=3.33"]),
        ("pay.pp.quick", ["srcAccount=\(Demo.current)", "destName=Crash Test", "destAccount=\(Demo.external)",
                          "destBic=\(Demo.bic)", "destDesc=batch", "amount=4.44"]),
    ]

    @Test("SIGKILL at a random moment of a batch of runs, 15 times: verify passes, nothing posted twice, balances add up")
    func killedMidBatch() throws {
        let sandbox = try HostSandbox()
        try sandbox.initKeys()
        var generator = SeededGenerator(seed: 0x5EED_0F_C4A5)
        let iterations = 15, batchSize = 3
        var planned = 0, started = 0, kills = 0
        /// Runs that finished on their own: what they reported.
        var reported: [(sequence: Int64, documentId: String)] = []

        // How long one run takes on this machine now (it varies with load): the kill moments spread over a batch.
        // (The first run also creates the database and scans the plugins: time the second.)
        var runMilliseconds = 20
        for warmUp in Self.runs.prefix(2) {
            sandbox.step()
            let began = DispatchTime.now()
            let first = try sandbox.run(warmUp.operation, warmUp.assignments)
            #expect(first.report.status == "posted", "\(first.report.errors)")
            if let sequence = first.report.journal, let id = first.report.document?.id { reported.append((sequence, id)) }
            started += 1
            runMilliseconds = max(20, Int((DispatchTime.now().uptimeNanoseconds - began.uptimeNanoseconds) / 1_000_000))
        }

        for iteration in 0..<iterations {
            // The codes first (one fresh 30-second step per run), so the kill window holds only runs.
            var batch: [(clock: Int, arguments: [String])] = []
            for _ in 0..<batchSize {
                sandbox.step()
                let run = Self.runs[planned % Self.runs.count]
                planned += 1
                batch.append((sandbox.clock, sandbox.runArguments(run.operation, run.assignments, code: try sandbox.code())))
            }
            // Within one measured run: a run under load takes as long or longer, so nearly every batch is cut, at any
            // moment of its first run (spreading over one and a half runs made the expected kills equal the bound).
            let delay = Int.random(in: 5...max(10, runMilliseconds), using: &generator)
            let deadline = DispatchTime.now() + .milliseconds(delay)
            for (clock, arguments) in batch {
                sandbox.clock = clock
                let child = try sandbox.start(arguments)
                started += 1
                let exitedInTime = child.wait(until: deadline)
                if !exitedInTime { child.killNow() }
                let result = child.finish()
                try #require(!result.timedOut, "iteration \(iteration): a run hung: \(result)")
                if result.signalled {
                    #expect(result.status == SIGKILL, "iteration \(iteration): \(result)")
                    kills += 1
                    break
                }
                // It finished (perhaps just before the kill): it must have posted, and said so.
                #expect(result.status == 0, "iteration \(iteration): \(result)")
                let report = try decode(RunJSON.self, result.stdout)
                #expect(report.status == "posted", "iteration \(iteration): \(report.errors)")
                if let sequence = report.journal, let id = report.document?.id { reported.append((sequence, id)) }
                if !exitedInTime { break }
            }
        }
        // The kills must have landed: the moments fall inside one measured run, so most batches are cut.
        #expect(kills >= iterations / 2, "only \(kills) of \(iterations) batches were killed")

        // After all that, a run still posts.
        let last = Self.runs[0]
        let after = try sandbox.run(last.operation, last.assignments)
        #expect(after.report.status == "posted", "\(after.report.errors)")
        if let sequence = after.report.journal, let id = after.report.document?.id { reported.append((sequence, id)) }

        let verify = try sandbox.host(["verify"])
        #expect(verify.status == 0, "\(verify)")
        let journal = try sandbox.journal()
        #expect(verify.stdout == "ok \(journal.count) entries\n")
        #expect(journal.count >= reported.count && journal.count <= started + 1,
                "\(journal.count) entries for \(started + 1) runs started, \(reported.count) reported")
        #expect(journal.map(\.sequence) == (0..<journal.count).map { Int64($0 + 1) })
        #expect(journal.allSatisfy { $0.kind == "posted" })

        // No document posted twice, in the journal or in the core's postings.
        let documentIds = journal.map(\.documentId)
        #expect(Set(documentIds).count == documentIds.count, "a document is in the journal twice")
        let postings = try sandbox.query("SELECT document_id, journal_seq FROM postings ORDER BY journal_seq")
        #expect(postings.map { $0[0] } == documentIds, "the core's postings differ from the journal's")
        #expect(postings.map { $0[1] } == journal.map { String($0.sequence) })

        // Every run that reported posted is in the journal under the sequence it reported.
        let bySequence = Dictionary(uniqueKeysWithValues: journal.map { ($0.sequence, $0.documentId) })
        for (sequence, id) in reported {
            #expect(bySequence[sequence] == id, "run reported entry \(sequence) = \(id)")
        }

        // Balances: seed, minus what each account paid, plus what it received, per the journal; each entry's
        // balance after is the running balance of its debit account.
        var running = Demo.seedBalances
        for entry in journal {
            let debit = try #require(entry.debit), credit = try #require(entry.credit)
            let amount = Decimal(try #require(entry.amount))
            running[debit, default: .nan] -= amount
            if running[credit] != nil { running[credit]! += amount }
            #expect(Decimal(entry.balanceAfter ?? "") == running[debit], "entry \(entry.sequence)")
        }
        #expect(try sandbox.balances() == running)
    }

    @Test("one byte of an entry's document changed in rbs.sqlite: verify exits 1 naming that entry", arguments: [1, 2])
    func tamper(entry: Int) throws {
        let sandbox = try HostSandbox()
        try sandbox.initKeys()
        let payees = ["Tamper Payee Alpha", "Tamper Payee Bravo"]
        for (index, payee) in payees.enumerated() {
            let (report, _) = try sandbox.run("pay.pp.quick", [
                "srcAccount=\(Demo.current)", "destName=\(payee)", "destAccount=\(Demo.external)", "destBic=\(Demo.bic)",
                "destDesc=tamper", "amount=\(index + 5)",
            ])
            try #require(report.status == "posted", "\(report.errors)")
        }
        let before = try sandbox.host(["verify"])
        #expect(before.status == 0)
        #expect(before.stdout == "ok 2 entries\n")

        // Every process has closed the database, so its pages are in the main file, not in a write-ahead log.
        let wal = sandbox.database.path + "-wal"
        let walSize = (try? FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int) ?? 0
        try #require(walSize == 0, "\(wal) still holds \(walSize) bytes: the main file would not have the entry")

        var bytes = try Data(contentsOf: sandbox.database)
        // The payee as the signed document's canonical bytes hold it (the form values kept for `repeat` hold it too,
        // in JSON).
        let needle = Data("name=\(payees[entry - 1])\n".utf8)
        let found = try #require(bytes.range(of: needle), "\(payees[entry - 1]) is not in \(sandbox.database.path)")
        #expect(bytes.range(of: needle, in: found.upperBound..<bytes.endIndex) == nil, "the document is in the file twice")
        let offset = found.upperBound - 2  // the payee's last letter, flipped to its ASCII neighbour
        bytes[offset] ^= 0x01
        let changed = String(decoding: bytes[found].dropFirst(5).dropLast(), as: UTF8.self)
        try bytes.write(to: sandbox.database)

        let verify = try sandbox.host(["verify"])
        #expect(verify.status == 1, "\(verify)")
        #expect(verify.stdout.hasPrefix("bad entry \(entry): "), "\(verify.stdout)")
        #expect(verify.stdout.split(separator: "\n").count == 1)

        // The journal still reads, and shows the changed text in that entry only.
        let journal = try sandbox.journal()
        #expect(journal.count == 2)
        #expect(journal.map { $0.document.contains("name=\(changed)\n") } == [entry == 1, entry == 2])
    }
}
