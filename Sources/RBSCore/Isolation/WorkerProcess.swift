import Foundation

/// One worker process as the host sees it: its pid, its end of the socket pair, and a reader thread that turns what
/// the worker writes into frames (blocking reads never happen on the caller's thread). Requests are made one at a
/// time (re-entrantly: a callback the host serves may itself call into the worker), each with a deadline.
///
/// A worker that crashes, exits, hangs past the deadline or breaks the protocol is killed and reaped; `fault` then
/// says what happened, and every later request fails with it at once.
final class WorkerProcess: @unchecked Sendable {
    let pid: pid_t
    private let fd: Int32
    private let condition = NSCondition()
    private var inbox: [WireReader] = []
    private var ended = false
    private var brokenProtocol: String?
    private var reaped = false
    /// The worker closed its channel but went on running, and was killed for it.
    private var closedChannel = false
    private var status: Int32 = 0
    /// Why this worker is dead, once it is (e.g. "killed by SIGSEGV").
    private(set) var fault: String?
    private let requestLock = NSRecursiveLock()
    /// What to add to a fault's cause (the limits it ran under).
    private let limits: PluginWorker.Limits

    /// What a request's caller does with a callback the worker makes meanwhile: the reply to send, or nil for
    /// callbacks that take none (log).
    typealias CallbackServer = (inout WireReader) throws(WireError) -> WireWriter?

    private init(pid: pid_t, fd: Int32, limits: PluginWorker.Limits) {
        self.pid = pid
        self.fd = fd
        self.limits = limits
    }

    deinit { close(fd) }

    /// Starts `executable` with `arguments`; its end of a fresh socket pair becomes its descriptor 3, standard input
    /// is /dev/null, standard output goes where the host's standard error goes. It runs in its own process group,
    /// so a Ctrl-C at the terminal reaches the host (which cancels a module), not the worker.
    static func spawn(executable: String, arguments: [String], limits: PluginWorker.Limits) -> Result<WorkerProcess, WireError> {
        var pair: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            return .failure(WireError(description: "socketpair: \(String(cString: strerror(errno)))"))
        }
        var child = pair[1]
        if child == PluginWorker.channel {
            // dup2(3, 3) would leave close-on-exec set: move it first.
            child = fcntl(pair[1], F_DUPFD_CLOEXEC, 10)
            close(pair[1])
        }
        defer { close(child) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, child, PluginWorker.channel)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, 2, 1)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        posix_spawnattr_setpgroup(&attributes, 0)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGPIPE, SIGCHLD, SIGXCPU, SIGSEGV, SIGABRT] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        // The host's environment, without Swift's backtracer (a crash is reported by the host in one line).
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else {
            close(pair[0])
            return .failure(WireError(description: "cannot start \(executable): \(String(cString: strerror(result)))"))
        }
        let worker = WorkerProcess(pid: pid, fd: pair[0], limits: limits)
        let thread = Thread { [worker] in worker.readLoop() }
        thread.name = "rbs-worker-\(pid)"
        thread.start()
        return .success(worker)
    }

    // MARK: - The reader thread

    private func readLoop() {
        while true {
            let outcome = WireIO.read(fd)
            condition.lock()
            switch outcome {
            case .frame(let frame):
                inbox.append(frame)
                condition.broadcast()
                condition.unlock()
                continue
            case .end:
                ended = true
            case .malformed(let what):
                ended = true
                brokenProtocol = "broke the protocol (\(what))"
                kill(pid, SIGKILL)
            }
            condition.broadcast()
            condition.unlock()
            break
        }
        reap()
    }

    /// Waits for the process to end and records how. After the channel closed, a worker gets a moment to exit by
    /// itself (so its real status is reported), then is killed.
    private func reap() {
        var status: Int32 = 0
        var waited: pid_t = 0
        for _ in 0..<100 {
            waited = waitpid(pid, &status, WNOHANG)
            if waited != 0 { break }
            usleep(2_000)
        }
        if waited == 0 {
            closedChannel = true
            kill(pid, SIGKILL)
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        }
        condition.lock()
        self.status = status
        reaped = true
        condition.broadcast()
        condition.unlock()
    }

    /// How the process ended, in words.
    private func describeEnd() -> String {
        if let brokenProtocol { return brokenProtocol }
        if closedChannel { return "closed its channel to the host and was killed" }
        if (status & 0x7f) == 0 { return "exited with status \((status >> 8) & 0xff)" }
        let signal = status & 0x7f
        var cause = "killed by \(Self.signalName(signal))"
        if signal == SIGXCPU, limits.cpuSeconds > 0 { cause += " (its CPU-time limit of \(limits.cpuSeconds) s was reached)" }
        if limits.addressSpaceMiB > 0, signal == SIGSEGV || signal == SIGABRT || signal == SIGBUS {
            cause += " (it runs with an address-space limit of \(limits.addressSpaceMiB) MiB)"
        }
        return cause
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

    /// Kills the worker (if it still runs), waits until it is reaped, and records `cause` (or how it ended).
    private func die(_ cause: String?) -> String {
        condition.lock()
        defer { condition.unlock() }
        if let fault { return fault }
        // Without a cause of our own, the worker ended by itself: the reader thread reaps it (after a grace period
        // in which it may still be exiting) so its own status is what is reported.
        if !reaped, cause != nil { kill(pid, SIGKILL) }
        while !reaped { condition.wait() }
        fault = cause ?? describeEnd()
        return fault ?? "ended"
    }

    /// Waits for the first frame the worker sends (its `ready` or `startFailed`).
    func first(deadline: Duration) -> Result<WireReader, WireError> {
        switch next(until: ContinuousClock.now + deadline) {
        case .frame(let frame): return .success(frame)
        case .timeout: return .failure(WireError(description: die("no answer in \(Self.seconds(deadline))"))) 
        case .ended: return .failure(WireError(description: die(nil)))
        }
    }

    private enum Next {
        case frame(WireReader)
        case timeout
        case ended
    }

    private func next(until deadline: ContinuousClock.Instant) -> Next {
        condition.lock()
        defer { condition.unlock() }
        while inbox.isEmpty {
            if ended { return .ended }
            let left = ContinuousClock.now.duration(to: deadline)
            if left <= .zero { return .timeout }
            let seconds = Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18
            _ = condition.wait(until: Date(timeIntervalSinceNow: seconds))
        }
        return .frame(inbox.removeFirst())
    }

    /// Sends `request` and waits for its reply, serving the worker's callbacks meanwhile.
    /// - Throws: the cause of the worker's end when it crashed, exited, hung past `deadline` or broke the protocol.
    func request(_ request: WireWriter, deadline: Duration,
                 serve: CallbackServer) throws(WireError) -> WireReader {
        requestLock.lock()
        defer { requestLock.unlock() }
        if let fault { throw WireError(description: fault) }
        guard WireIO.write(fd, request.frame) else { throw WireError(description: die(nil)) }
        var until = ContinuousClock.now + deadline
        while true {
            switch next(until: until) {
            case .ended:
                throw WireError(description: die(nil))
            case .timeout:
                throw WireError(description: die("no answer in \(Self.seconds(deadline))"))
            case .frame(var frame):
                switch frame.kind {
                case .reply:
                    return frame
                case .getValue, .setValue, .setCaption, .setVisible, .setError, .log, .accountsCount, .accountsAt,
                     .accountsFind, .directoryLookup, .clockNow, .clockToday:
                    let reply: WireWriter?
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
        condition.lock()
        let dead = fault != nil
        condition.unlock()
        guard !dead else { return }
        _ = WireIO.write(fd, WireWriter(.quit).frame)
        shutdown(fd, Int32(SHUT_WR))
        let until = ContinuousClock.now + grace
        condition.lock()
        while !reaped, ContinuousClock.now < until {
            _ = condition.wait(until: Date(timeIntervalSinceNow: 0.05))
        }
        condition.unlock()
        _ = die("stopped")
    }

    /// Kills the worker now (its modules end).
    func terminate() { _ = die("stopped") }

    var isAlive: Bool {
        condition.lock()
        defer { condition.unlock() }
        return fault == nil && !ended
    }

    static func seconds(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return seconds == seconds.rounded() ? "\(Int(seconds)) s" : String(format: "%.1f s", seconds)
    }
}
