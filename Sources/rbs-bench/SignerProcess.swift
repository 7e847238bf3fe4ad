import Foundation
import Synchronization
import RBSLedger

/// `rbs-bench signer --database URL|sqlite --customer NAME --seconds S [--start-at UNIX] [--group N | --customers N]`: one host process that signs,
/// journals and posts payments as its own customer (its own code state, so processes never wait on each other's
/// codes) for S seconds, one code and one durable transaction each, as `serve` does for one signing. Prints
/// `ops N seconds S roundtrips R` (R: statements sent to PostgreSQL per payment). Benchmarks/postgres_bench.py runs one, two and three of them against one PostgreSQL database
/// (`make bench-pg`); with `sqlite` it works in a fresh data folder of its own.
func signerProcess(_ arguments: [String]) -> Int32 {
    func option(_ name: String) -> String? {
        arguments.firstIndex(of: name).flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }
    }
    // --init: create the ledger in the database (as a first host's `rbs-host init`) and stop.
    if arguments.contains("--init"), let database = option("--database") {
        do {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rbs-bench-init-\(getpid())")
            defer { try? FileManager.default.removeItem(at: folder) }
            try Ledger.create(dataDirectory: folder, location: try LedgerLocation.parse(database)).ledger.close()
            return 0
        } catch {
            FileHandle.standardError.write(Data("signer --init: \(error)\n".utf8))
            return 1
        }
    }
    guard let database = option("--database"), let name = option("--customer"),
          let seconds = option("--seconds").flatMap(Double.init), seconds.isFinite, seconds > 0, seconds <= 86_400 else {
        FileHandle.standardError.write(Data("usage: rbs-bench signer --database URL|sqlite --customer NAME --seconds S (0 < S ≤ 86400) [--start-at UNIX] [--group N | --customers N]\n".utf8))
        return 2
    }
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rbs-bench-signer-\(getpid())")
    defer { try? FileManager.default.removeItem(at: folder) }
    let clock = SteppingClock()
    do {
        let location = try LedgerLocation.parse(database)
        // PostgreSQL: the driver made the ledger (`rbs-host init`); this process joins it from a fresh folder.
        let ledger = location == .dataFolder
            ? try Ledger.create(dataDirectory: folder, clock: { clock.now }).ledger
            : try Ledger(dataDirectory: folder, location: location, clock: { clock.now })
        let (customer, enrolment) = try ledger.customers.add(name: name, passwordRecord: "benchmark (never logs in)")
        guard let credentials = try ledger.customers.credentials(named: name),
              let account = try ledger.customers.accounts(of: customer).first?.number else {
            FileHandle.standardError.write(Data("signer \(name): the customer just added cannot be read back\n".utf8))
            return 1
        }
        let secret = enrolment.totpSecret ?? Data()
        // The payment is drafted once through the ledger (its quote: the accounts' currencies, a round trip for a
        // payee outside the bank); each payment signed is then that draft's fields at a new time with a new nonce,
        // as a customer's form is drafted when it is reviewed, not when it is signed: what is timed is the signing.
        let drafted = try ledger.draftBenchPayment(from: account, keyId: customer.keyId)
        func document() throws -> Document { try resigned(drafted, clock) }
        // A warm-up signing (connections, caches), then everyone starts at the same moment.
        clock.step()
        _ = try ledger.signAndPost(try document(), code: TOTP.code(secret: secret, at: clock.now), as: credentials)
        // --customers N: the other customers, added and warmed up before the start too.
        let roundPayers = try option("--customers").flatMap(Int.init).flatMap { customers in
            customers > 1 ? try preparePayers(ledger: ledger, clock: clock, name: name, customers: customers,
                                              first: RoundPayer(credentials: credentials, secret: secret, drafted: drafted)) : nil
        }
        if let start = option("--start-at").flatMap(Double.init) {
            let wait = start - Date().timeIntervalSince1970
            if wait > 0 { usleep(UInt32(wait * 1_000_000)) }
        }
        let began = DispatchTime.now().uptimeNanoseconds
        let roundTripsBefore = ledger.databaseRoundTrips ?? 0
        /// The statements sent to PostgreSQL per payment (0 on SQLite): what a round trip's time multiplies.
        func roundTrips(_ count: Int) -> String {
            String(format: "%.2f", Double((ledger.databaseRoundTrips ?? 0) - roundTripsBefore) / Double(max(count, 1)))
        }
        let deadline = began + UInt64(seconds * 1e9)
        /// Closes the ledger and prints the line the driver reads: `count` payments over the time since `began`.
        func finished(_ count: Int) throws -> Int32 {
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - began) / 1e9
            try ledger.close()
            print("ops \(count) seconds \(String(format: "%.3f", elapsed)) roundtrips \(roundTrips(count))")
            return 0
        }
        var count = 0
        // --group N: group commit instead, with the host's own key: N documents signed in parallel, journaled and
        // posted in one transaction under one code (one process only: the host key's code state is shared).
        if let group = option("--group").flatMap(Int.init), group > 0 {
            _ = try KeyStore(dataDirectory: folder).initialize(name: "bench", force: true)
            let hostIdentity = try KeyStore(dataDirectory: folder).load()
            let hostSecret = hostIdentity.totpSecret ?? Data()
            let hostDraft = try ledger.draftBenchPayment(from: benchDebitAccount, keyId: hostIdentity.keyId)
            while DispatchTime.now().uptimeNanoseconds < deadline {
                let batch = try (0..<group).map { _ in try resigned(hostDraft, clock) }
                clock.step()
                let outcomes = try ledger.process(batch: batch, code: TOTP.code(secret: hostSecret, at: clock.now))
                count += outcomes.count
            }
            return try finished(count)
        }
        // --customers N: N customers of this one host sign at the same moment, round after round (each round one
        // payment each, the clock a code step on between rounds), as N people pressing "sign" on one `serve`: what
        // the host's group commit across requests batches (RBS_POSTGRES_GROUP_COMMIT=0 turns it off, for the baseline).
        if let roundPayers {
            count = try signInRounds(ledger: ledger, clock: clock, payers: roundPayers, deadline: deadline)
            return try finished(count)
        }
        while DispatchTime.now().uptimeNanoseconds < deadline {
            let payment = try document()
            clock.step()
            guard case .posted = try ledger.signAndPost(payment, code: TOTP.code(secret: secret, at: clock.now),
                                                         as: credentials) else {
                FileHandle.standardError.write(Data("signer \(name): a payment was not posted\n".utf8))
                return 1
            }
            count += 1
        }
        return try finished(count)
    } catch {
        FileHandle.standardError.write(Data("signer \(name): \(error)\n".utf8))
        return 1
    }
}

/// The payers of `signer --customers N`: the first customer and N−1 more, added now; each with its code secret and
/// its payment drafted once.
private struct RoundPayer {
    let credentials: CustomerCredentials
    let secret: Data
    let drafted: Document
}

/// `first` and `customers` − 1 more customers, added now, each having paid once alone (its predictions made).
private func preparePayers(ledger: Ledger, clock: SteppingClock, name: String, customers: Int,
                           first: RoundPayer) throws -> [RoundPayer] {
    var payers = [first]
    for index in 1..<customers {
        let (customer, enrolment) = try ledger.customers.add(name: "\(name)-\(index)", passwordRecord: "benchmark (never logs in)")
        guard let credentials = try ledger.customers.credentials(named: "\(name)-\(index)"),
              let account = try ledger.customers.accounts(of: customer).first?.number else {
            throw SignerFailure(text: "the customer \(name)-\(index) just added cannot be read back")
        }
        payers.append(RoundPayer(credentials: credentials, secret: enrolment.totpSecret ?? Data(),
                                 drafted: try ledger.draftBenchPayment(from: account, keyId: customer.keyId)))
    }
    clock.step()
    for payer in payers.dropFirst() {
        _ = try ledger.signAndPost(try resigned(payer.drafted, clock), code: TOTP.code(secret: payer.secret, at: clock.now), as: payer.credentials)
    }
    return payers
}

/// `drafted`'s fields at the clock's time with a new nonce: a payment drafted once, signed again and again.
private func resigned(_ drafted: Document, _ clock: SteppingClock) throws -> Document {
    try Document(operation: drafted.operation, plugin: drafted.plugin, pluginVersion: drafted.pluginVersion,
                 fields: drafted.fields, createdAt: clock.now, nonce: Document.randomNonce(), keyId: drafted.keyId)
}

/// Rounds of payments signed at once, one thread per payer, until `deadline`: how many were posted.
private func signInRounds(ledger: Ledger, clock: SteppingClock, payers: [RoundPayer], deadline: UInt64) throws -> Int {
    // One thread per customer, each paying once a round when told to.
    let go = payers.map { _ in DispatchSemaphore(value: 0) }
    let done = DispatchSemaphore(value: 0)
    let failure = Mutex<String?>(nil)
    let stop = Atomic<Bool>(false)
    for (index, payer) in payers.enumerated() {
        Thread.detachNewThread {
            while true {
                go[index].wait()
                if stop.load(ordering: .relaxed) { return }
                do {
                    let outcome = try ledger.signAndPost(try resigned(payer.drafted, clock), code: TOTP.code(secret: payer.secret, at: clock.now),
                                                         as: payer.credentials)
                    if case .posted = outcome {} else { failure.withLock { $0 = "a payment was not posted: \(outcome)" } }
                } catch {
                    failure.withLock { $0 = "\(error)" }
                }
                done.signal()
            }
        }
    }
    var count = 0
    while DispatchTime.now().uptimeNanoseconds < deadline {
        clock.step()
        for semaphore in go { semaphore.signal() }
        for _ in payers { done.wait() }
        if let failed = failure.withLock({ $0 }) {
            stop.store(true, ordering: .relaxed)
            for semaphore in go { semaphore.signal() }
            throw SignerFailure(text: failed)
        }
        count += payers.count
    }
    stop.store(true, ordering: .relaxed)
    for semaphore in go { semaphore.signal() }
    return count
}

private struct SignerFailure: Error, CustomStringConvertible {
    let text: String
    var description: String { text }
}
