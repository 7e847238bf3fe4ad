import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The calls a plugin makes into the host on one thread while ``record(_:)`` runs, each as it would be written in C
/// ("set_caption('fee', "Fee 1.00")"). `plugin check` watches with it what value_changed does for an atom listed in
/// rbs.recorded-atoms/1, which promises to call nothing of the host: the host skips such calls, so anything the plugin
/// does in them would never be shown, or shown late.
///
/// It sees the calls made in this process (the checker loads the plugin in its own process): the host table's
/// callbacks and the host's own service tables. A worker's calls reach the host as messages and are not seen; nor
/// are the calls into a service another plugin registered (its `get_service` is).
enum HostCallbackTap {
    private struct Recording {
        var thread: pthread_t
        var calls: [String]
    }

    /// Whether a thread records: the one load a callback pays when nobody watches (every run outside `plugin check`).
    private static let watching = Atomic<Bool>(false)
    private static let recording = Mutex<Recording?>(nil)

    /// Runs `body` and returns what it returned with the host calls made on this thread meanwhile, in order. Not
    /// nested: one recording at a time (the checker's thread).
    static func record<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> (result: T, calls: [String]) {
        recording.withLock { $0 = Recording(thread: pthread_self(), calls: []) }
        watching.store(true, ordering: .releasing)
        // Ended however the body ends; the calls are taken (below) before this runs.
        defer {
            watching.store(false, ordering: .releasing)
            recording.withLock { $0 = nil }
        }
        let result = try body()
        return (result, recording.withLock { $0?.calls ?? [] })
    }

    /// Notes one call, when this thread records. `call` is only made into text then.
    static func note(_ call: @autoclosure () -> String) {
        guard watching.load(ordering: .acquiring) else { return }
        let me = pthread_self()
        recording.withLock { recording in
            guard let thread = recording?.thread, pthread_equal(thread, me) != 0 else { return }
            recording?.calls.append(call())
        }
    }

    /// A C string argument as the plugin passed it, quoted and cut to 60 characters ("NULL" for none).
    static func quoted(_ text: UnsafePointer<CChar>?) -> String {
        guard let text else { return "NULL" }
        let string = String(decoding: UnsafeRawBufferPointer(start: text, count: strnlen(text, 61)), as: UTF8.self)
        return "\"" + (string.count > 60 ? String(string.prefix(60)) + "…" : string) + "\""
    }

    /// An atom id as the plugin passed it: 'fee' (NULL for none: set_error's mark of the whole form).
    static func atom(_ id: UnsafePointer<CChar>?) -> String {
        id.map { "'" + String(cString: $0) + "'" } ?? "NULL"
    }
}
