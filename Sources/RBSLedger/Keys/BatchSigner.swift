import Crypto
import Dispatch
import Foundation

/// Signs the canonical bytes of a batch in the background while the caller journals and posts the documents in
/// order: worker threads (one fewer than the cores, at least one) take chunks of documents in increasing order,
/// and ``signature(_:)`` waits for a document's chunk — or signs it on the calling thread if no worker has taken
/// it yet. Ed25519 signing with one key is a pure function of the key bytes and the message, so the workers share
/// the key safely.
///
/// Call ``finish()`` before dropping it (it stops the workers taking new chunks and waits for them).
final class BatchSigner: @unchecked Sendable {
    private let key: Curve25519.Signing.PrivateKey
    private let messages: [Data]
    private let chunkSize: Int
    private let chunkCount: Int
    /// Slot `i` is written once, by whoever signs its chunk, before that chunk is marked done under `condition`.
    private let results: UnsafeMutablePointer<Result<Data, KeyStoreError>>
    private let condition = NSCondition()
    private let group = DispatchGroup()
    // Guarded by `condition`:
    private var nextChunk = 0
    private var done: [Bool]
    private var stopped = false

    init(key: Curve25519.Signing.PrivateKey, messages: [Data], chunkSize: Int = 4) {
        self.key = key
        self.messages = messages
        self.chunkSize = chunkSize
        chunkCount = (messages.count + chunkSize - 1) / chunkSize
        results = .allocate(capacity: max(messages.count, 1))
        done = Array(repeating: false, count: chunkCount)
        let workers = min(max(1, ProcessInfo.processInfo.activeProcessorCount - 1), chunkCount)
        for _ in 0..<workers {
            DispatchQueue.global(qos: .userInitiated).async(group: group) { [self] in
                while let chunk = claim() { sign(chunk) }
            }
        }
    }

    deinit {
        for chunk in 0..<chunkCount where done[chunk] { (results + chunk * chunkSize).deinitialize(count: range(chunk).count) }
        results.deallocate()
    }

    /// The signature of message `index` (waiting for it, or making it here).
    func signature(_ index: Int) -> Result<Data, KeyStoreError> {
        let chunk = index / chunkSize
        condition.lock()
        while !done[chunk] {
            if nextChunk <= chunk {
                // Nobody has taken it: the chunks before it are taken, so take the next one here.
                let mine = nextChunk
                nextChunk += 1
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
        for index in messages.indices {
            if case .failure(let error) = signature(index) { return error }
        }
        return nil
    }

    /// Stops the workers taking new chunks and waits for the ones they are signing.
    func finish() {
        condition.lock()
        stopped = true
        condition.unlock()
        group.wait()
    }

    private func range(_ chunk: Int) -> Range<Int> {
        chunk * chunkSize..<min((chunk + 1) * chunkSize, messages.count)
    }

    private func claim() -> Int? {
        condition.lock()
        defer { condition.unlock() }
        guard !stopped, nextChunk < chunkCount else { return nil }
        nextChunk += 1
        return nextChunk - 1
    }

    private func sign(_ chunk: Int) {
        for index in range(chunk) {
            let result: Result<Data, KeyStoreError>
            do {
                result = .success(try key.signature(for: messages[index]))
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
