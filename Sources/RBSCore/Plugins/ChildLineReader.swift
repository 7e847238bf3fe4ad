import CIsolation
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process whose standard output is read line by line against a deadline: the one way the host runs a
/// process that may crash or hang on a plugin's behalf (the scanner, `rbs-host scan`; the plugin checker,
/// `plugin check-child`).
///
/// The child is started with `posix_spawn` and reaped with `waitpid` on its own pid, so its end is seen even when
/// other parts of the process start and wait for children of their own. Its standard error is kept (the last few
/// kilobytes, for a crash's last words) or discarded. The Swift runtime's crash backtrace is turned off in the child
/// (`SWIFT_BACKTRACE=enable=no`): a crash is expected here and reported by its signal, and symbolicating it takes
/// seconds. Used from one thread at a time.
final class ChildLineReader {
    /// What reading brought.
    enum Event: Equatable {
        case line(String)
        /// The deadline passed with no complete line (the child still runs: ``kill()`` it).
        case timedOut
        /// Standard output ended and the child is gone.
        case ended(Termination)
    }

    /// How the child ended.
    enum Termination: Equatable, CustomStringConvertible {
        case exited(status: Int32)
        case signalled(Int32)

        /// "signal 11 (SIGSEGV)" or "exit status 3".
        var description: String {
            switch self {
            case .exited(let status): "exit status \(status)"
            case .signalled(let signal): "signal \(signal)" + (Self.signalName(signal).map { " (\($0))" } ?? "")
            }
        }

        /// "SIGSEGV", or nil for a signal without a name here (one table: `WorkerProcess.signalName`).
        static func signalName(_ signal: Int32) -> String? {
            let name = WorkerProcess.signalName(signal)
            return name.hasPrefix("SIG") ? name : nil
        }
    }

    /// Why the child could not be started.
    struct SpawnError: Error, CustomStringConvertible {
        var executable: String
        var reason: String
        var description: String { "cannot start \(executable): \(reason)" }
    }

    let pid: pid_t
    private var output: Int32
    private var errors: Int32
    private var buffer: [UInt8] = []
    private var tail: [UInt8] = []
    private var termination: Termination?

    /// Starts `executable` with `arguments` (and `environment`, or this process's), standard input empty.
    init(executable: String, arguments: [String], environment: [String: String]? = nil,
         keepStandardError: Bool = false) throws(SpawnError) {
        func failure(_ code: Int32) -> SpawnError { SpawnError(executable: executable, reason: String(cString: strerror(code))) }
        var outPipe: [Int32] = [-1, -1], errPipe: [Int32] = [-1, -1]
        guard Self.makePipe(&outPipe) else { throw failure(errno) }
        if keepStandardError, !Self.makePipe(&errPipe) {
            let code = errno
            close(outPipe[0]); close(outPipe[1])
            throw failure(code)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        if keepStandardError {
            posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        var environment = environment ?? ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        let environmentList = environment.map { "\($0.key)=\($0.value)" }
        let envp = environmentList.map { strdup($0) } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, executable, &actions, nil, argv, envp)
        close(outPipe[1])
        if keepStandardError { close(errPipe[1]) }
        guard spawned == 0 else {
            close(outPipe[0])
            if keepStandardError { close(errPipe[0]) }
            throw failure(spawned)
        }
        pid = child
        output = outPipe[0]
        errors = keepStandardError ? errPipe[0] : -1
    }

    deinit {
        kill()
        if output >= 0 { close(output) }
        if errors >= 0 { close(errors) }
    }

    /// The next line of standard output, or what happened before `deadline` instead.
    func next(until deadline: ContinuousClock.Instant) -> Event {
        while true {
            if let newline = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return .line(line)
            }
            if output < 0 {
                if let termination = reap(until: deadline) { return .ended(termination) }
                return .timedOut
            }
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return .timedOut }
            var fds = [pollfd(fd: output, events: Int16(POLLIN), revents: 0)]
            if errors >= 0 { fds.append(pollfd(fd: errors, events: Int16(POLLIN), revents: 0)) }
            let ready = poll(&fds, nfds_t(fds.count), Self.milliseconds(left))
            if ready < 0 {
                if errno == EINTR { continue }
                close(output)
                output = -1
                continue
            }
            if errors >= 0, fds.count > 1, fds[1].revents != 0 { drainErrors() }
            if fds[0].revents != 0 {
                var chunk = [UInt8](repeating: 0, count: 65536)
                let count = read(output, &chunk, chunk.count)
                if count > 0 {
                    buffer += chunk[..<count]
                } else if count == 0 || errno != EINTR {
                    close(output)
                    output = -1
                    // A last unterminated line still counts.
                    if !buffer.isEmpty { buffer.append(10) }
                }
            }
        }
    }

    /// Kills the child (SIGKILL) if it still runs, and reaps it.
    func kill() {
        guard termination == nil else { return }
        sendKill(pid)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        termination = Self.termination(status)
    }

    /// Waits for the child to end by `deadline` (after its output closed), and reaps it.
    func waitForEnd(until deadline: ContinuousClock.Instant) -> Termination? {
        reap(until: deadline)
    }

    /// The last lines the child wrote to standard error that say something of the cause (a Rust panic's place and
    /// message, not its RUST_BACKTRACE hint), shortened and joined (with `keepStandardError`); see ``StderrTail``.
    var lastWords: String? {
        drainErrors()
        let text = String(decoding: tail, as: UTF8.self)
        return StderrTail.summary(text.split(separator: "\n").map(String.init))
    }

    private func reap(until deadline: ContinuousClock.Instant) -> Termination? {
        if let termination { return termination }
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid {
                termination = Self.termination(status)
                drainErrors()
                return termination
            }
            if result < 0, errno != EINTR { return nil }
            guard ContinuousClock.now < deadline else { return nil }
            usleep(2_000)
        }
    }

    /// Reads what standard error holds now without blocking, keeping the last few kilobytes.
    private func drainErrors() {
        guard errors >= 0 else { return }
        var chunk = [UInt8](repeating: 0, count: 8192)
        while true {
            var probe = pollfd(fd: errors, events: Int16(POLLIN), revents: 0)
            guard poll(&probe, 1, 0) > 0 else { return }
            let count = read(errors, &chunk, chunk.count)
            if count <= 0 {
                if count < 0, errno == EINTR { continue }
                close(errors)
                errors = -1
                return
            }
            tail += chunk[..<count]
            if tail.count > 8192 { tail = Array(tail.suffix(4096)) }
        }
    }

    /// A pipe whose ends are closed on exec (the child gets its copies through dup2). On Linux the flag is set as
    /// the pipe is made, so a child spawned at that moment by another thread (parallel scans) never inherits it.
    private static func makePipe(_ ends: inout [Int32]) -> Bool {
        rbs_pipe_cloexec(&ends) == 0
    }

    private static func termination(_ status: Int32) -> Termination {
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import as functions.
        let signal = status & 0x7F
        return signal == 0 ? .exited(status: (status >> 8) & 0xFF) : .signalled(signal)
    }

    private static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        return Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
    }
}

/// SIGKILL to `pid` (outside the class, whose `kill()` hides the C function).
private func sendKill(_ pid: pid_t) {
    _ = kill(pid, SIGKILL)
}
