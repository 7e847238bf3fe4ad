import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The host's own exit path: a command's exit status comes from its outcome, and the process never ends with
/// success that the command did not report. While a command runs, an `atexit` handler stands guard: if anything
/// calls `exit()` before the command has finished (a plugin's `exit(0)` in the middle of `run --json`), the
/// handler writes one line to standard error and ends the process with status 70 (EX_SOFTWARE) instead of the
/// status that `exit()` was given. Containing plugins is the worker isolation's job; this only keeps the exit
/// status honest.
enum ExitGuard {
    /// The status the guard exits with.
    static let status: Int32 = 70

    private static let running = Atomic<Bool>(false)
    /// The message, made before the command starts, so the handler only writes bytes.
    nonisolated(unsafe) private static var message: [UInt8] = []

    /// Registers the handler (once, before a command starts).
    static func install() {
        atexit {
            guard ExitGuard.running.load(ordering: .acquiring) else { return }
            ExitGuard.message.withUnsafeBufferPointer { buffer in
                _ = write(STDERR_FILENO, buffer.baseAddress, buffer.count)
            }
            _exit(ExitGuard.status)
        }
    }

    /// A command is running: until ``end()``, an `exit()` from anywhere is refused as success.
    static func begin(_ command: String) {
        message = Array(("rbs-host: the process was told to exit while `\(command)` was still running (a plugin "
            + "called exit()?); its outcome was not reported, so rbs-host exits with status \(status), not success — "
            + "check `rbs-host journal` for what was posted\n").utf8)
        running.store(true, ordering: .releasing)
    }

    /// The command has finished: its own exit status stands.
    static func end() {
        running.store(false, ordering: .releasing)
    }
}
