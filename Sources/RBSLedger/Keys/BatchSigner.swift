import Crypto
import Dispatch
import Foundation

/// Encodes, identifies and signs the documents of a batch in the background while the caller journals and posts the documents in
/// order: worker threads take chunks of documents in increasing order, and ``signed(_:)`` waits for a document's
/// chunk — or signs it on the calling thread if no worker has taken it yet. Ed25519 signing with one key is a pure
/// function of the key bytes and the message, so the workers share the key safely.
///
/// A batch signed ahead (``Ledger/prepare(batch:after:)``) follows the one before it: its workers start on it once
/// every chunk of that one is taken, so the cores sign batch after batch in order — through the commit (and its
/// fsync) of the one before, when the committing thread signs nothing — and no batch waits for a later one's
/// signatures. Chained signers share one lock.
///
/// The workers are ``SigningThreads``, which yield to the committing thread: signing fills the cores around the
/// commit, never takes the core the commit (the serial part of group commit) is waiting for.
///
/// Call ``finish()`` before dropping it (it stops the workers taking new chunks and waits for them).
final class BatchSigner: @unchecked Sendable {
    private let key: Curve25519.Signing.PrivateKey
    private let documents: [Document]
    private let chunkSize: Int
    private let chunkCount: Int
    /// Slot `i` is written once, by whoever signs its chunk, before that chunk is marked done under `condition`.
    private let results: UnsafeMutablePointer<Result<Signed, KeyStoreError>>
    private let condition: NSCondition
    private let group = DispatchGroup()
    /// The signer of the batch before, whose chunks are all taken before this one's workers start (weak: a finished
    /// signer has no workers left to wait for, and a long pipeline must not keep every batch before it alive).
    private weak var predecessor: BatchSigner?
    // Guarded by `condition`:
    private var nextChunk = 0
    private var done: [Bool]
    private var stopped = false

    /// A document's canonical bytes, its id and the signature over the bytes.
    struct Signed {
        let canonicalBytes: Data
        let id: String
        let signature: Data
    }

    /// Starts one worker thread per core (none for a single chunk that follows no batch: its caller signs it), after
    /// `predecessor` has handed out its last chunk when one is given. (One
    /// fewer, leaving the committing thread a core of its own, left a core idle through every commit's fsync once
    /// the commit came near the bare storage floor, which waits for the disk more than it computes: issue #33.)
    init(key: Curve25519.Signing.PrivateKey, documents: [Document], chunkSize: Int = 4, after predecessor: BatchSigner? = nil) {
        self.key = key
        self.documents = documents
        self.chunkSize = chunkSize
        self.predecessor = predecessor
        condition = predecessor?.condition ?? NSCondition()
        chunkCount = (documents.count + chunkSize - 1) / chunkSize
        results = .allocate(capacity: max(documents.count, 1))
        done = Array(repeating: false, count: chunkCount)
        // A batch of one chunk that follows none (one payment) is signed by the caller when it asks: a worker woken
        // for it cost a thread's wake-up and switches for ~45 µs of signing, which on PostgreSQL's one-call path the
        // caller was waiting for anyway (and `finish` waited for the worker to have run).
        let workers = chunkCount > 1 || predecessor != nil ? min(max(1, Parallel.cores), chunkCount) : 0
        for _ in 0..<workers {
            group.enter()
            SigningThreads.shared.run { [self] in
                self.predecessor?.waitUntilHandedOut(unless: self)
                while let chunk = claim() { sign(chunk) }
                group.leave()
            }
        }
    }

    deinit {
        for chunk in 0..<chunkCount where done[chunk] { (results + chunk * chunkSize).deinitialize(count: range(chunk).count) }
        results.deallocate()
    }

    /// Document `index` encoded, identified and signed (waiting for it, or doing it here).
    func signed(_ index: Int) -> Result<Signed, KeyStoreError> {
        let chunk = index / chunkSize
        condition.lock()
        while !done[chunk] {
            if nextChunk < chunkCount {
                // Rather than wait, take the next chunk nobody has taken (the wanted one itself, if it is that).
                let mine = nextChunk
                nextChunk += 1
                if nextChunk == chunkCount { condition.broadcast() }
                condition.unlock()
                sign(mine)
                condition.lock()
            } else {
                condition.wait()
            }
        }
        condition.unlock()
        return results[index]
    }

    /// The first signing failure in batch order, after every message is signed; `nil` when all are.
    func firstFailure() -> KeyStoreError? {
        for index in documents.indices {
            if case .failure(let error) = signed(index) { return error }
        }
        return nil
    }

    /// Stops the workers taking new chunks and waits for the ones they are signing.
    func finish() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
        group.wait()
    }

    /// Waits until every chunk is taken (or this signer, or `successor`, is stopped): then the successor's
    /// workers start.
    private func waitUntilHandedOut(unless successor: BatchSigner) {
        condition.lock()
        while nextChunk < chunkCount && !stopped && !successor.stopped { condition.wait() }
        condition.unlock()
    }

    private func range(_ chunk: Int) -> Range<Int> {
        chunk * chunkSize..<min((chunk + 1) * chunkSize, documents.count)
    }

    private func claim() -> Int? {
        condition.lock()
        defer { condition.unlock() }
        guard !stopped, nextChunk < chunkCount else { return nil }
        nextChunk += 1
        if nextChunk == chunkCount { condition.broadcast() }
        return nextChunk - 1
    }

    private func sign(_ chunk: Int) {
        for index in range(chunk) {
            let result: Result<Signed, KeyStoreError>
            let document = documents[index]
            if let field = document.fields.first(where: { SigningIdentity.holdsFullCardNumber(key: $0.key, value: $0.value) }) {
                (results + index).initialize(to: .failure(.signingFailed(
                    "field \"\(field.key)\" holds a full card number; a document names a card by its masked form or last four digits")))
                continue
            }
            let bytes = document.canonicalBytes
            do {
                let signature = try key.signature(for: bytes)
                result = .success(Signed(canonicalBytes: bytes, id: Document.id(ofCanonical: bytes), signature: signature))
            } catch {
                result = .failure(.signingFailed(String(describing: error)))
            }
            (results + index).initialize(to: result)
        }
        condition.lock()
        done[chunk] = true
        condition.broadcast()
        condition.unlock()
    }
}

/// The threads that sign ahead for ``BatchSigner``: one a core, made on first use and kept for the process's life, each
/// at a lower scheduling priority than the process's other threads (nice + ``niceness``). Group commit is a serial
/// part — the committing thread journals and commits batch after batch — fed by signing on every core: with the
/// workers at the same priority, the committing thread shared a core with them and waited for its turn (2 cores, 2
/// signing workers and it: `rbs-bench ledger` showed group commit well below its own serial part's rate, with the
/// cores not full). Lower, they take what the committing thread leaves (its fsyncs, and the core it does not use),
/// and it never waits for them: when no worker has taken a chunk it needs, it signs that chunk itself.
///
/// Dispatch's global queues would keep a lowered priority on threads that serve other work later, and an
/// unprivileged process cannot raise it again, so these threads are the signer's own.
final class SigningThreads: @unchecked Sendable {
    static let shared = SigningThreads(count: max(1, Parallel.cores))
    /// How much lower than the process's own the workers' priority is (setpriority on each thread). Measured with
    /// `rbs-bench ledger` on 2 cores, runs alternating (group commit, ops/s): 0 → 25,905–28,985 (median 27,103 of 5),
    /// 5 → 26,919–33,182, 10 → 29,778 / 31,000, 19 → 31,632 / 33,931. 10 rather than 19: a worker holding a chunk the
    /// committing thread waits for still gets about a tenth of a busy core (CFS weight 110 against 1,024), where at 19
    /// it would get 1.5% on a host busy with other work.
    static let niceness: Int32 = 10

    private let condition = NSCondition()
    private var work: [@Sendable () -> Void] = []
    private var head = 0
    private var started = false
    private let count: Int

    private init(count: Int) {
        self.count = count
    }

    /// Runs `body` on one of the threads, as soon as one is free.
    func run(_ body: @escaping @Sendable () -> Void) {
        condition.lock()
        if !started {
            started = true
            for index in 0..<count {
                let thread = Thread { [self] in self.serve() }
                thread.name = "rbs-signing-\(index)"
                thread.start()
            }
        }
        work.append(body)
        condition.signal()
        condition.unlock()
    }

    private func serve() {
        // This thread's own nice value: on Linux a thread has its own, and PRIO_PROCESS with 0 names the caller's.
        #if os(Linux)
        let which = __priority_which_t(PRIO_PROCESS.rawValue)
        _ = setpriority(which, 0, getpriority(which, 0) + Self.niceness)
        #endif
        while true {
            condition.lock()
            while head == work.count { condition.wait() }
            let body = work[head]
            head += 1
            if head == work.count {
                work.removeAll(keepingCapacity: true)
                head = 0
            }
            condition.unlock()
            body()
        }
    }
}
