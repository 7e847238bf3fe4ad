import CBenchFloor
import Crypto
import Foundation
import RBSLedger

/// The bank's own account the benchmarks' host-key payments debit (the embedded bank's savings account).
let benchDebitAccount = "40817810738000000002"

extension Ledger {
    /// The benchmarks' payment, drafted for key `keyId`: 0.01 RUB from `from` to an account outside the bank.
    func draftBenchPayment(from: String, keyId: String) throws(LedgerError) -> Document {
        try draft(operation: "payment.domestic", plugin: "bench", pluginVersion: "1", fields: [
            DocumentField("from", from), DocumentField("account", "40702810900000012345"),
            DocumentField("amount", "0.01"), DocumentField("currency", "RUB"), DocumentField("purpose", "benchmark"),
        ], keyId: keyId)
    }
}

/// A clock the benchmark moves on by one TOTP step per code, so each batch gets a fresh code.
final class SteppingClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current = Date()
    var now: Date { lock.withLock { current } }
    func step() { lock.withLock { current += 30 } }
}

/// Signed + journaled + posted operations per second, with group commit and one at a time, next to the bare
/// Ed25519 signing rate measured in the same run. Works in a fresh ledger under `directory`. `quick`: one round of
/// ten batches and ten single operations, for a profile (not for the figures).
func ledgerBenchmarks(directory: URL, quick: Bool = false) -> [BenchmarkFigure] {
    let dataDirectory = directory.appendingPathComponent("ledger-bench-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: dataDirectory) }
    let clock = SteppingClock()
    let ledger: Ledger
    let identity: SigningIdentity
    do {
        ledger = try Ledger.create(dataDirectory: dataDirectory, clock: { clock.now }).ledger
        _ = try KeyStore(dataDirectory: dataDirectory).initialize(name: "bench", force: true)
        identity = try KeyStore(dataDirectory: dataDirectory).load()
    } catch {
        print("ledger benchmark: \(error)")
        return []
    }
    func code() -> String {
        clock.step()
        return TOTP.code(secret: identity.totpSecret ?? Data(), at: clock.now)
    }
    func documents(_ count: Int) -> [Document] {
        // Drafted for the key id loaded once (the draft without it reads the key files for each document).
        (0..<count).compactMap { _ in
            try? ledger.draftBenchPayment(from: benchDebitAccount, keyId: identity.keyId)
        }
    }
    func seconds(_ body: () -> Void) -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    // Bare signing spread over every core (Parallel.map: concurrentPerform, the ledger's own parallel primitive) and
    // group commit, measured in turns (5 rounds each; the medians are reported) after a warm-up
    // batch, so both see the same machine: on 2 shared vCPUs either alone swings by ±30% from run to run.
    // 15,000 documents in all: enough that the WAL checkpoints (every ~32 MB) fall inside the measured rounds.
    // Group commit: batches of 100 documents, one code and one transaction each; the next batch is prepared
    // (signed on the cores) while the current one is journaled and committed.
    let key = identity.privateKey
    var groupFailures = 0
    if (try? ledger.process(batch: documents(100), code: code())) == nil { groupFailures += 1 }
    let sectionLoad = loadAverage()
    var signRates: [Double] = [], groupRates: [Double] = [], groupCoresBusy: [Double] = [], chainRates: [Double] = []
    // The bare storage floor (CBenchFloor): the same rows, sizes, batches and sync mode through SQLite's C API, in a
    // database of its own in the same folder, one round beside each round of the ledger's, so it grows as the
    // journal does and meets the same disk.
    let documentBytes = documents(1).first?.canonicalBytes.count ?? 0
    var floorRates: [Double] = [], floorBusy: [Double] = []
    var floorError = [CChar](repeating: 0, count: 512)
    let floor = rbs_storage_floor_open(dataDirectory.appendingPathComponent("storage-floor.sqlite").path, &floorError, Int32(floorError.count))
    defer { rbs_storage_floor_close(floor) }
    if floor == nil { print("storage floor: \(cText(floorError))") }
    for _ in 0..<(quick ? 1 : 5) {
        if let floor {
            var cpu = 0.0
            let floorTime = rbs_storage_floor_run(floor, quick ? 10 : 30, 100, Int32(documentBytes), &cpu, &floorError, Int32(floorError.count))
            if floorTime > 0 {
                floorRates.append(Double((quick ? 10 : 30) * 100) / floorTime)
                floorBusy.append(cpu / floorTime)
            } else {
                print("storage floor: \(cText(floorError))")
            }
        }
        let sample = documents(1_000).map(\.canonicalBytes)
        var signed = 0
        let signTime = seconds {
            signed = Parallel.map(sample) { bytes in (try? key.signature(for: bytes))?.count ?? 0 }.reduce(0, +)
        }
        rbs_bench_sink(Int64(signed))
        signRates.append(Double(sample.count) / signTime)
        let batches = (0..<(quick ? 10 : 30)).map { _ in documents(100) }
        let cpuBefore = processCPUSeconds()
        let groupTime = seconds {
            var next = try? ledger.prepare(batch: batches[0])
            for index in batches.indices {
                let current = next
                next = index + 1 < batches.count ? try? ledger.prepare(batch: batches[index + 1], after: current) : nil
                guard let current, (try? ledger.process(current, code: code())) != nil else {
                    groupFailures += 1
                    continue
                }
            }
        }
        groupRates.append(Double(batches.count * 100) / groupTime)
        groupCoresBusy.append((processCPUSeconds() - cpuBefore) / groupTime)

        // The serial part alone: batches signed to the end first, then only their journal, posting and commit timed.
        var chainTime = 0.0
        let signedAhead = (0..<(quick ? 3 : 10)).map { _ in documents(100) }
        for batch in signedAhead {
            guard let prepared = try? ledger.prepare(batch: batch) else { groupFailures += 1; continue }
            prepared.waitUntilSigned()
            let authorisation = code()
            chainTime += seconds {
                if (try? ledger.process(prepared, code: authorisation)) == nil { groupFailures += 1 }
            }
        }
        chainRates.append(Double(signedAhead.count * 100) / chainTime)
    }
    let signRate = signRates.sorted()[signRates.count / 2]
    let groupRate = groupRates.sorted()[groupRates.count / 2]
    let chainRate = chainRates.sorted()[chainRates.count / 2]
    let floorRate = floorRates.isEmpty ? Double.nan : floorRates.sorted()[floorRates.count / 2]
    let floorCPU = floorBusy.isEmpty ? Double.nan : floorBusy.sorted()[floorBusy.count / 2]
    // What group commit is held to: the slower of its two floors, signing on every core and storage alone.
    let floorBounds = !(floorRate >= signRate)
    let groupBaseline = floorBounds ? floorRate : signRate
    let coresBusy = groupCoresBusy.sorted()[groupCoresBusy.count / 2]
    let cpuPerDocument = coresBusy / groupRate * 1e6
    let signCPUPerDocument = Double(Parallel.cores) / signRate * 1e6
    // What no implementation can pass on these cores: every document needs at least the bare signature's CPU and the
    // floor's CPU for its rows, so signing and storing together run at most cores ÷ their sum (and no faster than
    // either floor alone). When that is below 0.8× the target's baseline the target is out of reach on this machine.
    let floorCPUPerDocument = floorCPU / floorRate * 1e6
    let coresAllow = min(signRate, floorRate, Double(Parallel.cores) / (signCPUPerDocument + floorCPUPerDocument) * 1e6)
    print(String(format: "group commit kept %.2f of %d cores busy (median of the rounds' process CPU time ÷ wall time)",
                 coresBusy, Parallel.cores))

    // One at a time: one code and one durable transaction per operation.
    let singles = documents(quick ? 10 : 200)
    var singleFailures = 0
    let singleTime = seconds {
        for document in singles {
            if (try? ledger.signAndPost(document, code: code())) == nil { singleFailures += 1 }
        }
    }
    let singleRate = Double(singles.count) / singleTime
    try? ledger.close()
    let fsyncRate = bareFsyncRate(in: dataDirectory, count: singles.count)
    if groupFailures + singleFailures > 0 { print("ledger benchmark: \(groupFailures + singleFailures) batches/operations failed") }

    return [
        BenchmarkFigure(
            name: "sign + journal + post, group commit (batches of 100, the next signed while one commits; synchronous = FULL per batch; median of 5 rounds)",
            value: groupFailures == 0 ? groupRate : .nan, unit: "ops/s",
            baselineName: "min(bare Ed25519 signing over all \(Parallel.cores) cores (Parallel.map): \(String(format: "%.0f", signRate)), "
                + "bare storage floor (below): \(String(format: "%.0f", floorRate))) — the \(floorBounds ? "storage floor" : "signing")",
            baselineValue: groupBaseline,
            target: "≥ 0.8× min(bare parallel signing, bare storage floor)", met: groupFailures == 0 && groupRate >= 0.8 * groupBaseline,
            bound: "CPU: this run kept \(String(format: "%.2f", coresBusy)) of \(Parallel.cores) cores busy, "
                + "\(String(format: "%.1f", cpuPerDocument)) µs of CPU a document against the bare signature's "
                + "\(String(format: "%.1f", signCPUPerDocument)) µs and the floor's \(String(format: "%.1f", floorCPUPerDocument)) µs, "
                + "which together let \(Parallel.cores) cores do at most \(String(format: "%.0f", coresAllow)) documents a second "
                + "(\(String(format: "%.2f", coresAllow / groupBaseline))× the baseline\(coresAllow < 0.8 * groupBaseline ? ": below the target's 0.8×, which no implementation can reach on this machine" : "")"
                + "; next row) (load average \(sectionLoad) when the section began: "
                + "the bench runs niced on a shared machine, and fewer than the cores' share of CPU leaves signing and "
                + "journaling, both CPU work, short while the disk-bound floor barely notices). perf (cpu-clock, DWARF call "
                + "graphs, 2026-11-28, `rbs-bench serial`): the signing workers (one a core, at nice +10 so the committing "
                + "thread preempts them; it signs a chunk itself when none has taken it) and the committing thread, whose "
                + "work is SQLite's statements ≈ 54% (the journal row and its two indexes, the once-only and journal_posted_to; "
                + "the posting and its two; the commit's WAL frames, whose pwrite into the page cache alone is ≈ 18%), the "
                + "arguments bound ≈ 9%, the entry's SHA-256 chain hash and its hashed bytes ≈ 12%, the lookup of an earlier "
                + "entry of each document ≈ 8%, the core's decision ≈ 5%. Against signing alone the workers also encode each "
                + "document and take its id (SHA-256), ≈ 15% of their time beside the signature; "
                + "ledger-tip's record (a new file's fsync) is written beside the commits, which the floor does not do"),
        BenchmarkFigure(
            name: "sign + journal + post, group commit, against what the cores allow (the row above's rate)",
            value: groupFailures == 0 ? groupRate : .nan, unit: "ops/s",
            baselineName: "\(Parallel.cores) cores ÷ (the bare signature's CPU + the bare storage floor's CPU a document), "
                + "and no more than either floor", baselineValue: coresAllow,
            target: nil, met: nil,
            bound: "the CPU a document takes beyond signing and the floor's rows (above: the committing thread's journal work, "
                + "the workers' encoding and ids)"),
        BenchmarkFigure(
            name: "journal + post + commit alone, batches of 100 already signed (group commit's serial part; median of 5 rounds)",
            value: groupFailures == 0 ? chainRate : .nan, unit: "ops/s",
            baselineName: "bare storage floor (next row)", baselineValue: floorRate,
            target: nil, met: nil,
            bound: "the rows the floor writes, and beyond them: the once-only index (document key, id; time-ordered since "
                + "schema step v15-ordered-document-key, so a batch's 100 keys land on its last pages; a unique index since "
                + "v23-journal-unique-index, where a trigger looked each document up and made SQLite keep a statement "
                + "journal for every insert), the duplicate-payment index (journal_posted_to), the lookup of an earlier "
                + "entry of each document, the code check's row, the SHA-256 chain hash of each entry and the core's checks; "
                + "GRDB's statement cache and Swift's values (bound in place from one buffer) where the floor binds C "
                + "values; one fdatasync a batch as in the floor"),
        BenchmarkFigure(
            name: "bare storage floor: the same rows (a journal entry and a posting a document, \(documentBytes)-byte documents; the two "
                + "balances once a batch) through SQLite's C API, batches of 100, synchronous = FULL, no signing (CBenchFloor; median of 5 rounds)",
            value: floorRate, unit: "ops/s",
            baselineName: "bare Ed25519 signing over all \(Parallel.cores) cores (Parallel.map)", baselineValue: signRate,
            target: nil, met: nil,
            bound: "the disk: its thread was on a CPU \(String(format: "%.0f", floorCPU * 100))% of the time (median of the rounds' "
                + "thread CPU time ÷ wall time, \(String(format: "%.1f", floorCPU / floorRate * 1e6)) µs of CPU a document); the rest "
                + "is the commit's WAL fdatasync, one a batch, and an automatic checkpoint's fsync every 8,000 pages"),
        BenchmarkFigure(
            name: "sign + journal + post, one transaction each (synchronous = FULL)",
            value: singleFailures == 0 ? singleRate : .nan, unit: "ops/s",
            baselineName: "bare 4 KiB write + fdatasync in the same folder", baselineValue: fsyncRate,
            target: nil, met: nil, bound: "one code check and one durable commit (WAL fsync) per document"),
    ]
}

/// `rbs-bench serial [--seconds S]`, for a profile of group commit's committing thread alone (writes nothing): batches of
/// 100 signed to the end first, then journaled, posted and committed, for S seconds (10 by default); prints the rate
/// of the committing part.
func ledgerSerialProfile(directory: URL, seconds: Double) -> Int32 {
    let dataDirectory = directory.appendingPathComponent("ledger-serial-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: dataDirectory) }
    let clock = SteppingClock()
    do {
        let ledger = try Ledger.create(dataDirectory: dataDirectory, clock: { clock.now }).ledger
        _ = try KeyStore(dataDirectory: dataDirectory).initialize(name: "bench", force: true)
        let identity = try KeyStore(dataDirectory: dataDirectory).load()
        let draft = try ledger.draftBenchPayment(from: benchDebitAccount, keyId: identity.keyId)
        var committing = 0.0, count = 0
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        while DispatchTime.now().uptimeNanoseconds < deadline {
            let batch = try (0..<100).map { _ in
                try Document(operation: draft.operation, plugin: draft.plugin, pluginVersion: draft.pluginVersion, fields: draft.fields,
                             createdAt: clock.now, nonce: Document.randomNonce(), keyId: draft.keyId)
            }
            let prepared = try ledger.prepare(batch: batch)
            prepared.waitUntilSigned()
            clock.step()
            let code = TOTP.code(secret: identity.totpSecret ?? Data(), at: clock.now)
            let start = DispatchTime.now().uptimeNanoseconds
            count += try ledger.process(prepared, code: code).count
            committing += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        }
        try ledger.close()
        print(String(format: "%d documents journaled, posted and committed at %.0f/s (the committing part alone)", count, Double(count) / committing))
        return 0
    } catch {
        FileHandle.standardError.write(Data("serial: \(error)\n".utf8))
        return 1
    }
}

/// The CPU time this process has used, all threads, in seconds.
private func processCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// Durable appends per second in `directory`: a 4 KiB write and an `fdatasync` each, as one WAL commit needs at least.
private func bareFsyncRate(in directory: URL, count: Int) -> Double {
    let path = directory.appendingPathComponent("fsync-floor").path
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard descriptor >= 0 else { return .nan }
    defer {
        close(descriptor)
        unlink(path)
    }
    let page = [UInt8](repeating: 0x5a, count: 4096)
    let start = DispatchTime.now().uptimeNanoseconds
    for index in 0..<count {
        let written = page.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, 4096, off_t(index * 4096)) }
        guard written == 4096, fdatasync(descriptor) == 0 else { return .nan }
    }
    return Double(count) / (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
}
