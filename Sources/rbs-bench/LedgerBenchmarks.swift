import CBenchFloor
import Crypto
import Foundation
import RBSLedger

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
            try? ledger.draft(operation: "payment.domestic", plugin: "bench", pluginVersion: "1", fields: [
                DocumentField("from", "40817810738000000002"), DocumentField("account", "40702810900000012345"),
                DocumentField("amount", "0.01"), DocumentField("currency", "RUB"), DocumentField("purpose", "benchmark"),
            ], keyId: identity.keyId)
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
    var signRates: [Double] = [], groupRates: [Double] = [], groupCoresBusy: [Double] = []
    for _ in 0..<(quick ? 1 : 5) {
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
    }
    let signRate = signRates.sorted()[signRates.count / 2]
    let groupRate = groupRates.sorted()[groupRates.count / 2]
    print(String(format: "group commit kept %.2f of %d cores busy (median of the rounds' process CPU time ÷ wall time)",
                 groupCoresBusy.sorted()[groupCoresBusy.count / 2], Parallel.cores))

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
            baselineName: "bare Ed25519 signing over all \(Parallel.cores) cores (Parallel.map)", baselineValue: signRate,
            target: "≥ 0.8× the bare parallel signing rate", met: groupFailures == 0 && groupRate >= 0.8 * signRate,
            bound: "callgrind of `rbs-bench ledger --quick` (1,110 documents): the serial writer thread ≈ 140k instructions a "
                + "document (SQLite: the journal insert ≈ 52k with its uniqueness trigger and two indexes, the posting ≈ 11k, "
                + "the lookup for an earlier entry ≈ 6k; the entry's SHA-256 ≈ 36k; the core's checks ≈ 14k), was ≈ 260k "
                + "(24 column names built for each lookup that found no row, a second-signer query a document); each "
                + "document's signing thread ≈ 381k (the Ed25519 signature itself ≈ 335k, its canonical encoding ≈ 47k), "
                + "was ≈ 403k (a Foundation substring search for card fields). 2 cores give at most 335k ÷ (381k + 140k) "
                + "≈ 0.64× by instructions; the measured ratio is lower because the writer also waits: perf's sched_switch profile puts the "
                + "writer's waits in the two fsyncs a batch, ledger-tip's (a new file each batch: data, inode, device "
                + "flush) longer than the WAL's fdatasync; the next batch is signed meanwhile, but the writer's chain "
                + "(journal, commit, both fsyncs) is serial, so it sets the rate. What would move it: ledger-tip recorded "
                + "off the commit path, fewer SQLite b-tree writes a document (the trigger's lookup repeats the writer's "
                + "own; multi-row inserts)"),
        BenchmarkFigure(
            name: "sign + journal + post, one transaction each (synchronous = FULL)",
            value: singleFailures == 0 ? singleRate : .nan, unit: "ops/s",
            baselineName: "bare 4 KiB write + fdatasync in the same folder", baselineValue: fsyncRate,
            target: nil, met: nil, bound: "one code check and one durable commit (WAL fsync) per document"),
    ]
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
