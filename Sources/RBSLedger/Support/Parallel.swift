import Dispatch
import Foundation

/// Order-preserving parallel map over the machine's cores, for CPU-bound pure work (signing, verifying, hashing).
public enum Parallel {
    /// The cores this process may use (asked once: the question reads system files on Linux).
    public static let cores = ProcessInfo.processInfo.activeProcessorCount

    /// `items.map(transform)` computed on all cores; result `i` is `transform(items[i])`. Small inputs (or one
    /// core) run serially. `transform` must be safe to call concurrently; it runs only during this call.
    public static func map<T, R>(_ items: [T], minimumPerChunk: Int = 8, _ transform: (T) -> R) -> [R] {
        let count = items.count
        guard cores > 1, count >= 2 * minimumPerChunk else { return items.map(transform) }
        let chunks = min(cores * 4, count / minimumPerChunk)
        return withoutActuallyEscaping(transform) { transform in
            [R](unsafeUninitializedCapacity: count) { buffer, initialized in
                items.withUnsafeBufferPointer { source in
                    // Each chunk writes only its own slots; all are written before concurrentPerform returns.
                    let shared = Unchecked((transform, source, buffer.baseAddress!))
                    DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
                        let (transform, source, base) = shared.value
                        let lower = chunk * count / chunks, upper = (chunk + 1) * count / chunks
                        for index in lower..<upper { (base + index).initialize(to: transform(source[index])) }
                    }
                }
                initialized = count
            }
        }
    }

    /// Hands values to the worker threads of one ``map(_:minimumPerChunk:_:)`` call, which outlives them.
    private struct Unchecked<Value>: @unchecked Sendable {
        let value: Value
        init(_ value: Value) { self.value = value }
    }
}
