import CIsolation
import Foundation
import RBSLedger

/// One worker process as the host sees it: its pid and its end of the socket pair. The thread that makes a request
/// reads the answer itself (a blocking `recv` under the deadline, through ``WireReceiver``): no reader thread hands
/// frames over, so a round trip costs the two processes' own wake-ups, as a bare socket ping-pong does (the hand-off
/// through a reader thread and a condition variable cost two more thread wake-ups a message). Requests are made one
/// at a time (re-entrantly: a callback the host serves may itself call into the worker), each with a deadline.
///
/// A worker that crashes, exits, hangs past the deadline or breaks the protocol is killed and reaped; `fault` then
/// says what happened, and every later request fails with it at once. A worker that ends while idle is noticed and
/// reaped by ``isAlive`` or by the next request.
///
/// A worker runs in a session of its own; whenever it ends, its whole process group is killed before it is reaped
/// (while its pid, and so the group's id, cannot yet be reused), so nothing it started outlives it.
final class WorkerProcess: @unchecked Sendable {
    let pid: pid_t
    private let fd: Int32
    /// The read end of the worker's report pipe: the number of a forbidden system call, if it made one.
    private let reportFD: Int32
    /// The CPU time the worker had used when it was reaped, in seconds.
    private var cpuUsed: Double = 0
    /// The most resident memory the ended worker had, MiB.
    private var peakMiB = 0
    /// The host killed the worker (a deadline, a stop): a SIGKILL is then no limit's.
    private var killedByHost = false
    /// Guards the end's bookkeeping below; held while reaping, never while waiting for a frame.
    private let state = NSLock()
    private var reaped = false
    private var brokenProtocol: String?
    /// The worker closed its channel but went on running, and was killed for it.
    private var closedChannel = false
    private var status: Int32 = 0
    /// Why this worker is dead, once it is (e.g. "killed by SIGSEGV").
    private var recordedFault: String?
    var fault: String? { state.withLock { recordedFault } }
    /// One request at a time; the channel and `receiver` are used only under it.
    private let requestLock = NSRecursiveLock()
    private let receiver: WireReceiver
    /// What to add to a fault's cause (the limits it ran under).
    private let limits: PluginWorker.Limits
    /// The worker's standard error and output: passed through to the host's standard error, its last lines kept
    /// for the fault report (a Rust panic's message, a Swift fatalError's with its file and line).
    private let stderrTail: StderrTail
    /// What this worker leaves in the host: its pid and whether its descriptors here are closed yet.
    let trace: WorkerTrace

    /// What a request's caller does with a callback the worker makes meanwhile: the reply to send, or nil for
    /// callbacks that take none (log).
    typealias CallbackServer = (inout WireReader) throws(WireError) -> WireWriter?

    private init(pid: pid_t, fd: Int32, reportFD: Int32, limits: PluginWorker.Limits, stderrTail: StderrTail) {
        self.pid = pid
        self.fd = fd
        self.reportFD = reportFD
        self.limits = limits
        self.stderrTail = stderrTail
        trace = stderrTail.trace
        trace.pid = pid
        receiver = WireReceiver(fd: fd)
    }

    /// Closes the channel; a worker still running then ends (it reads the end of its channel) and is reaped in the
    /// background, killed if it has not ended within 0.2 s, so no zombie is left behind.
    deinit {
        close(fd)
        close(reportFD)
        trace.closed(2)
        guard !reaped else { return }
        let pid = pid
        DispatchQueue.global(qos: .utility).async {
            for _ in 0..<100 {
                if Self.reapIfEnded(pid) != nil { return }
                usleep(2_000)
            }
            _ = Self.killAndReap(pid)
        }
    }

    /// How a worker ended and the CPU time it used.
    private struct End {
        var status: Int32
        var cpuSeconds: Double
        /// The most resident memory it had (the kernel's `ru_maxrss`), MiB.
        var peakMiB: Int
    }

    /// Reaps `pid` if it has ended, after killing what is left of its process group; nil while it runs.
    private static func reapIfEnded(_ pid: pid_t) -> End? {
        var info = siginfo_t()
        // WNOWAIT: the zombie keeps the pid (and the group's id) ours until the group is killed.
        guard waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0, info._sifields._sigchld.si_pid == pid
        else { return nil }
        kill(-pid, SIGKILL)
        return reap(pid)
    }

    /// Kills the worker and its process group, and reaps it.
    private static func killAndReap(_ pid: pid_t) -> End {
        kill(-pid, SIGKILL)
        kill(pid, SIGKILL)
        return reap(pid)
    }

    private static func reap(_ pid: pid_t) -> End {
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0, errno == EINTR {}
        let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        return End(status: status, cpuSeconds: cpu, peakMiB: Int(usage.ru_maxrss) / 1024)
    }

    /// Records how the worker ended (under `state`).
    private func record(_ end: End) {
        status = end.status
        cpuUsed = end.cpuSeconds
        peakMiB = end.peakMiB
        reaped = true
    }

    /// Starts `executable` with `arguments`; its end of a fresh socket pair becomes its descriptor 3, the write end
    /// of its report pipe its descriptor 4, standard input is /dev/null, standard output goes where the host's
    /// standard error goes. It runs in a session of its own (so a Ctrl-C at the terminal reaches the host, which
    /// cancels a module, not the worker, and the worker has no terminal to write into), and it is started from
    /// ``WorkerSpawner``'s thread, which lives as long as the host: the worker dies with its parent thread.
    static func spawn(executable: String, arguments: [String], limits: PluginWorker.Limits) -> Result<WorkerProcess, WireError> {
        WorkerSpawner.shared.run { spawnHere(executable: executable, arguments: arguments, limits: limits) }
    }

    private static func spawnHere(executable: String, arguments: [String], limits: PluginWorker.Limits) -> Result<WorkerProcess, WireError> {
        func failure(_ what: String) -> Result<WorkerProcess, WireError> {
            .failure(WireError(description: "\(what): \(String(cString: strerror(errno)))"))
        }
        var pair: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            return failure("socketpair")
        }
        var pipe: [Int32] = [0, 0]
        guard rbs_pipe_cloexec(&pipe) == 0 else {
            close(pair[0])
            close(pair[1])
            return failure("pipe")
        }
        // Above the descriptors the child's are dup2'ed to, so no dup2 overwrites one still to be moved (and
        // dup2(3, 3) would leave close-on-exec set).
        func high(_ fd: Int32) -> Int32 {
            let moved = fcntl(fd, F_DUPFD_CLOEXEC, 10)
            close(fd)
            return moved
        }
        var errors: [Int32] = [0, 0]
        guard rbs_pipe_cloexec(&errors) == 0 else {
            close(pair[0])
            close(pair[1])
            close(pipe[0])
            close(pipe[1])
            return failure("pipe")
        }
        let child = high(pair[1])
        let report = high(pipe[1])
        let errorsWrite = high(errors[1])
        defer {
            close(child)
            close(report)
            close(errorsWrite)
        }
        _ = fcntl(pipe[0], F_SETFL, fcntl(pipe[0], F_GETFL) | O_NONBLOCK)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, child, PluginWorker.channel)
        posix_spawn_file_actions_adddup2(&actions, report, PluginWorker.report)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, errorsWrite, 2)
        posix_spawn_file_actions_adddup2(&actions, errorsWrite, 1)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // POSIX_SPAWN_SETSID (glibc 2.26), spelled out: the Glibc module does not import it.
        let setsid: Int32 = 0x80
        posix_spawnattr_setflags(&attributes, Int16(setsid | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGPIPE, SIGCHLD, SIGXCPU, SIGSEGV, SIGABRT, SIGSYS] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp = Self.environment(of: ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else {
            close(pair[0])
            close(pipe[0])
            close(errors[0])
            return .failure(WireError(description: "cannot start \(executable): \(String(cString: strerror(result)))"))
        }
        return .success(WorkerProcess(pid: pid, fd: pair[0], reportFD: pipe[0], limits: limits,
                                      stderrTail: StderrTail(reading: errors[0])))
    }

    // MARK: - The end

    /// Waits for the process to end and records how (under `state`). After the channel closed, a worker gets a
    /// moment to exit by itself (so its real status is reported), then is killed.
    private func reapLocked() {
        guard !reaped else { return }
        for _ in 0..<100 {
            if let end = Self.reapIfEnded(pid) {
                record(end)
                return
            }
            usleep(2_000)
        }
        closedChannel = true
        killedByHost = true
        record(Self.killAndReap(pid))
    }

    /// How the process ended, in words, with the last lines it wrote to standard error (the cause in its own words).
    private func describeEnd() -> String {
        let end = describeStatus()
        guard let words = stderrTail.lastWords() else { return end }
        return "\(end); its last words on standard error: \(words)"
    }

    private func describeStatus() -> String {
        if let brokenProtocol { return brokenProtocol }
        if closedChannel { return "closed its channel to the host and was killed" }
        if (status & 0x7f) == 0 { return "exited with status \((status >> 8) & 0xff)" }
        let signal = status & 0x7f
        var cause = "killed by \(Self.signalName(signal))"
        if signal == SIGSYS {
            cause += ": it made a forbidden system call (\(forbiddenCall() ?? "one the sandbox does not allow"))"
        }
        // SIGXCPU at the soft limit; SIGKILL at the hard one, a second later, if the plugin ignored SIGXCPU.
        if limits.cpuSeconds > 0,
           signal == SIGXCPU || (signal == SIGKILL && !killedByHost && cpuUsed >= Double(limits.cpuSeconds)) {
            cause += ": it exceeded its CPU time limit of \(limits.cpuSeconds) s"
        }
        // A refused allocation leaves no trace the host can read (the kernel refuses it with ENOMEM, the plugin then
        // aborts or writes through a null pointer), so the limit is named as what it may have been — and as what it
        // was when the worker's resident memory came near it — never as the certain cause of an ordinary crash.
        if limits.addressSpaceMiB > 0, [SIGSEGV, SIGABRT, SIGBUS, SIGILL, SIGTRAP].contains(signal) {
            cause += peakMiB * 2 >= limits.addressSpaceMiB
                ? " (it had used \(peakMiB) MiB, near its address-space limit of \(limits.addressSpaceMiB) MiB)"
                : " (perhaps an allocation refused at its address-space limit of \(limits.addressSpaceMiB) MiB)"
        }
        return cause
    }

    /// The name of the forbidden call the worker reported on its way out, if it did.
    private func forbiddenCall() -> String? {
        var number: Int32 = -1
        guard read(reportFD, &number, MemoryLayout<Int32>.size) == MemoryLayout<Int32>.size, number >= 0 else { return nil }
        return rbs_syscall_name(number).map { String(cString: $0) } ?? "system call \(number)"
    }

    /// A worker's environment: the host's, without Swift's backtracer (a crash is reported by the host in one line)
    /// and without the ledger's database address — it carries the login's password, and the plugin in the worker has
    /// no business with the ledger.
    static func environment(of host: [String: String]) -> [String: String] {
        var environment = host
        environment["SWIFT_BACKTRACE"] = "enable=no"
        environment[LedgerLocation.environmentVariable] = nil
        return environment
    }

    static func signalName(_ signal: Int32) -> String {
        switch signal {
        case SIGSEGV: "SIGSEGV"
        case SIGABRT: "SIGABRT"
        case SIGBUS: "SIGBUS"
        case SIGILL: "SIGILL"
        case SIGFPE: "SIGFPE"
        case SIGKILL: "SIGKILL"
        case SIGTERM: "SIGTERM"
        case SIGTRAP: "SIGTRAP"
        case SIGXCPU: "SIGXCPU"
        case SIGSYS: "SIGSYS"
        case SIGPIPE: "SIGPIPE"
        default: "signal \(signal)"
        }
    }

    // MARK: - Requests

    /// Kills the worker (if it still runs), reaps it, and records `cause` (or, without one, how it ended by itself).
    private func die(_ cause: String?) -> String {
        state.lock()
        defer { state.unlock() }
        if let recordedFault { return recordedFault }
        if !reaped, cause != nil {
            killedByHost = true
            record(Self.killAndReap(pid))
        }
        reapLocked()
        recordedFault = cause ?? describeEnd()
        return recordedFault ?? "ended"
    }

    /// Waits for the first frame the worker sends that is not a callback (its `ready` or `startFailed`), serving
    /// the callbacks the plugin's init() makes meanwhile (a log line, the clock, the accounts).
    func first(deadline: Duration, serve: CallbackServer) -> Result<WireReader, WireError> {
        requestLock.lock()
        defer { requestLock.unlock() }
        var until = ContinuousClock.now + deadline
        while true {
            switch next(until: until) {
            case .frame(var frame):
                guard frame.kind.isCallback else { return .success(frame) }
                let reply: WireWriter?
                do { reply = try serve(&frame) } catch {
                    return .failure(WireError(description: die("broke the protocol (\(error.description))")))
                }
                if let reply, !WireIO.write(fd, reply.frame) { return .failure(WireError(description: die(nil))) }
                until = ContinuousClock.now + deadline
            case .timeout: return .failure(WireError(description: die("no answer in \(Self.seconds(deadline))")))
            case .ended(let cause): return .failure(WireError(description: die(cause)))
            }
        }
    }

    private enum Next {
        case frame(WireReader)
        case timeout
        /// The channel ended; with a cause when the worker broke the protocol (it is killed for that).
        case ended(String?)
    }

    /// The next frame from the worker (under `requestLock`).
    private func next(until deadline: ContinuousClock.Instant) -> Next {
        switch receiver.next(until: deadline) {
        case .frame(let frame): return .frame(frame)
        case .timedOut: return .timeout
        case .end: return .ended(nil)
        case .malformed(let what):
            state.withLock { brokenProtocol = "broke the protocol (\(what))" }
            return .ended("broke the protocol (\(what))")
        }
    }

    /// Sends `request` and waits for its reply, serving the worker's callbacks meanwhile.
    /// - Throws: the cause of the worker's end when it crashed, exited, hung past `deadline` or broke the protocol.
    func request(_ request: WireWriter, deadline: Duration,
                 serve: CallbackServer) throws(WireError) -> WireReader {
        requestLock.lock()
        defer { requestLock.unlock() }
        if let fault { throw WireError(description: fault) }
        trace.countRequest()
        guard WireIO.write(fd, request.frame) else { throw WireError(description: die(nil)) }
        var until = ContinuousClock.now + deadline
        while true {
            switch next(until: until) {
            case .ended(let cause):
                throw WireError(description: die(cause))
            case .timeout:
                throw WireError(description: die("no answer in \(Self.seconds(deadline))"))
            case .frame(var frame):
                switch frame.kind {
                case .reply:
                    return frame
                case let kind where kind.isCallback:
                    let reply: WireWriter?
                    trace.countCallback()
                    do { reply = try serve(&frame) } catch {
                        throw WireError(description: die("broke the protocol (\(error.description))"))
                    }
                    if let reply, !WireIO.write(fd, reply.frame) { throw WireError(description: die(nil)) }
                    until = ContinuousClock.now + deadline
                default:
                    throw WireError(description: die("broke the protocol (an unexpected \(frame.kind) message)"))
                }
            }
        }
    }

    /// Asks the worker to call deinit() and exit; kills it if it does not within `grace`.
    func quit(grace: Duration = .seconds(2)) {
        requestLock.lock()
        defer { requestLock.unlock() }
        guard fault == nil else { return }
        _ = WireIO.write(fd, WireWriter(.quit).frame)
        shutdown(fd, Int32(SHUT_WR))
        let until = ContinuousClock.now + grace
        while ContinuousClock.now < until {
            let ended: Bool = state.withLock {
                if !reaped, let end = Self.reapIfEnded(pid) { record(end) }
                return reaped
            }
            if ended { break }
            usleep(1_000)
        }
        _ = die("stopped")
    }

    /// Kills the worker now (its modules end). Safe from any thread, also while another one waits on a request:
    /// that one then sees the channel end and reports this fault.
    func terminate() { _ = die("stopped") }

    /// Whether the worker can still serve: no fault recorded, and the process has not ended by itself meanwhile
    /// (one that has is reaped here, and its end recorded as its fault).
    var isAlive: Bool {
        let ended: Bool = state.withLock {
            guard recordedFault == nil else { return true }
            guard let end = Self.reapIfEnded(pid) else { return false }
            record(end)
            return true
        }
        if ended, fault == nil { _ = die(nil) }
        return !ended
    }

    static func seconds(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return seconds == seconds.rounded() ? "\(Int(seconds)) s" : String(format: "%.1f s", seconds)
    }
}

/// The one thread workers are started from. A worker asks the kernel to kill it when its parent ends
/// (PR_SET_PDEATHSIG), and "parent" there is the thread that started it: started from a pool thread that ends when
/// idle, a worker would die with it in the middle of its modules. This thread lives as long as the host.
final class WorkerSpawner: @unchecked Sendable {
    static let shared = WorkerSpawner()
    private let condition = NSCondition()
    private var jobs: [() -> Void] = []

    private init() {
        let thread = Thread { [self] in loop() }
        thread.name = "rbs-worker-spawner"
        thread.start()
    }

    private func loop() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
        }
    }

    /// Runs `body` on the spawner thread and returns its result.
    func run<T>(_ body: @escaping () -> T) -> T {
        let box = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        condition.lock()
        jobs.append {
            box.value = body()
            done.signal()
        }
        condition.signal()
        condition.unlock()
        done.wait()
        // Set before `done` was signalled; the fallback only keeps this free of a forced unwrap.
        guard let value = box.value else { return body() }
        return value
    }

    private final class ResultBox<T>: @unchecked Sendable {
        var value: T?
    }
}

/// Reads a worker's standard error on a thread of its own until the worker's end closes it: each byte passes through
/// to the host's standard error as before, and the last lines are kept, so a fault report can say what the plugin
/// said as it died ("panicked at src/lib.rs:294:5: …", "Fatal error: … at File.swift:12").
final class StderrTail: @unchecked Sendable {
    /// Told when the pipe's read end is closed.
    let trace = WorkerTrace()

    /// The most lines kept, and the most characters of each.
    static let keptLines = 4
    static let lineLimit = 300

    private let lock = NSLock()
    private var lines: [String] = []
    private var partial: [UInt8] = []
    private var ended = false

    init(reading fd: Int32) {
        let thread = Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(fd, &buffer, buffer.count)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                // Relayed with each control byte but a line feed and a tab named (`<U+001B>`): a plugin's escape
                // sequence would clear the operator's screen or print a fake line over a real one.
                let shown = Self.visible(buffer[..<count])
                _ = shown.withUnsafeBytes { FileDescriptor.writeAll(STDERR_FILENO, $0) }
                take(buffer[..<count])
            }
            close(fd)
            trace.closed(1)
            lock.withLock {
                if !partial.isEmpty { keep(partial) }
                partial = []
                ended = true
            }
        }
        thread.name = "rbs-worker-stderr"
        thread.start()
    }

    /// `bytes` with every C0 control byte but a line feed and a tab, and DEL, written as its name (`<U+001B>`);
    /// byte by byte, so a chunk that ends inside a UTF-8 sequence is still passed on whole.
    static func visible(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        func hidden(_ byte: UInt8) -> Bool { (byte < 0x20 && byte != 0x0A && byte != 0x09) || byte == 0x7F }
        guard bytes.contains(where: hidden) else { return Array(bytes) }
        var shown: [UInt8] = []
        shown.reserveCapacity(bytes.count + 16)
        for byte in bytes {
            if hidden(byte) {
                shown.append(contentsOf: Array("<\(ShownText.name(Unicode.Scalar(byte)))>".utf8))
            } else {
                shown.append(byte)
            }
        }
        return shown
    }

    private func take(_ bytes: ArraySlice<UInt8>) {
        lock.withLock {
            for byte in bytes {
                if byte == UInt8(ascii: "\n") {
                    keep(partial)
                    partial = []
                } else if partial.count < Self.lineLimit * 4 {
                    partial.append(byte)
                }
            }
        }
    }

    /// Keeps one line (under the lock): not an empty one, nor Rust's hint about RUST_BACKTRACE, which says nothing
    /// of the cause.
    private func keep(_ bytes: [UInt8]) {
        lines.append(String(decoding: bytes, as: UTF8.self))
        if lines.count > Self.keptLines * 4 { lines.removeFirst(lines.count - Self.keptLines * 4) }
    }

    /// The last lines, joined with " / ", or nil when the worker wrote none. Waits a moment for the pipe's end (the
    /// worker is reaped first, so its last write is in the pipe).
    func lastWords() -> String? {
        for _ in 0..<50 where !lock.withLock({ ended }) { usleep(2_000) }
        return Self.summary(lock.withLock { lines + (partial.isEmpty ? [] : [String(decoding: partial, as: UTF8.self)]) })
    }

    /// The last ``keptLines`` of `lines` that say something of the cause, each without control characters and at
    /// most ``lineLimit`` characters, joined with " / "; nil when none does. Blank lines and Rust's hint about
    /// RUST_BACKTRACE say nothing of it.
    static func summary(_ lines: [String]) -> String? {
        let speaking = lines.map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("note: run with `RUST_BACKTRACE") }
            .suffix(keptLines)
            .map { String($0.unicodeScalars.filter { $0.properties.generalCategory != .control }.prefix(lineLimit)) }
        return speaking.isEmpty ? nil : speaking.joined(separator: " / ")
    }
}

/// What one worker leaves in the host while it lives: its pid (a child of the host until reaped) and its three
/// descriptors here (the channel, the report pipe, the standard-error pipe). A runtime keeps the traces of the workers
/// it started, so a test can check that its own workers left nothing behind — no zombie, no descriptor — while
/// other tests start and end workers of their own in the same process.
final class WorkerTrace: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: pid_t = 0
    private var open = 3

    var pid: pid_t {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }

    /// The worker's descriptors still open in the host.
    var openDescriptors: Int { lock.withLock { open } }

    func closed(_ count: Int) { lock.withLock { open -= count } }

    /// Requests the host sent this worker (each one round trip: the request, then its reply) and callbacks the
    /// worker made while serving them (the plugin calling its host table: another message each way, or one for a
    /// log line): what a commit costs on the wire, counted where the frames are written and read.
    private var requestCount = 0
    private var callbackCount = 0
    var requests: Int { lock.withLock { requestCount } }
    var callbacks: Int { lock.withLock { callbackCount } }
    func countRequest() { lock.withLock { requestCount += 1 } }
    func countCallback() { lock.withLock { callbackCount += 1 } }
}
