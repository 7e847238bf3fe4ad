#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Ctrl-C handling shared by every ``LineEditor``.
///
/// A `sigaction` handler for SIGINT replaces the default (which would kill the host). It only does
/// async-signal-safe work:
/// 1. sets ``pending`` (what ``LineEditor/takeInterrupt()`` reads while the host works);
/// 2. writes a byte to a self-pipe, which wakes the `poll()` of a plain-input read on any thread;
/// 3. if a read is in progress on another thread, forwards the signal to that thread with `pthread_kill`,
///    so the `read(2)` inside libedit fails with EINTR (the handler is installed *without* SA_RESTART while
///    a read is in progress, and with SA_RESTART otherwise, so the host's own system calls are not disturbed).
enum Interrupts {
    static let pending = Atomic<Bool>(false)
    /// The thread blocked in ``LineEditor/read(prompt:)``, as an integer (0: no read in progress).
    static let readerThread = Atomic<UInt>(0)
    /// Set while a forwarded copy of an interrupt is on its way to the reader thread: that copy only breaks the
    /// reader's blocking call (EINTR) and is not a second interrupt (it could otherwise arrive after the first was
    /// taken and end the next read as well).
    static let forwarding = Atomic<Bool>(false)
    /// Write end (non-blocking) and read end of the self-pipe; -1 until installed.
    static let wakeWrite = Atomic<Int32>(-1)
    static let wakeRead = Atomic<Int32>(-1)
    private static let installed = Mutex<Bool>(false)

    /// Installs the SIGINT handler once per process (idempotent).
    static func install() {
        installed.withLock { done in
            guard !done else { return }
            done = true
            var fds: [Int32] = [-1, -1]
            if pipe(&fds) == 0 {
                for fd in fds {
                    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                }
                wakeRead.store(fds[0], ordering: .sequentiallyConsistent)
                wakeWrite.store(fds[1], ordering: .sequentiallyConsistent)
            }
            setHandler(restart: true)
        }
    }

    /// (Re)installs the handler; `restart: false` while a read is in progress so blocking reads fail with EINTR.
    static func setHandler(restart: Bool) {
        var action = sigaction()
        #if canImport(Glibc)
        action.__sigaction_handler.sa_handler = interruptHandler
        #else
        action.__sigaction_u.__sa_handler = interruptHandler
        #endif
        sigemptyset(&action.sa_mask)
        action.sa_flags = restart ? Int32(SA_RESTART) : 0
        sigaction(SIGINT, &action, nil)
    }

    static func currentThreadID() -> UInt {
        #if canImport(Glibc)
        return UInt(pthread_self())
        #else
        return UInt(bitPattern: pthread_self())
        #endif
    }

    static func threadFromID(_ id: UInt) -> pthread_t {
        #if canImport(Glibc)
        return pthread_t(id)
        #else
        return pthread_t(bitPattern: id)!
        #endif
    }

    /// Marks the calling thread as the reader: SIGINT interrupts its blocking reads.
    static func beginRead() {
        install()
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        clear()
        forwarding.store(false, ordering: .sequentiallyConsistent)
        readerThread.store(currentThreadID(), ordering: .sequentiallyConsistent)
        setHandler(restart: false)
    }

    static func endRead() {
        setHandler(restart: true)
        readerThread.store(0, ordering: .sequentiallyConsistent)
    }

    /// Forgets an interrupt that nobody consumed, and drains the self-pipe.
    static func clear() {
        pending.store(false, ordering: .sequentiallyConsistent)
        let fd = wakeRead.load(ordering: .sequentiallyConsistent)
        guard fd >= 0 else { return }
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(fd, &buffer, buffer.count) > 0 {}
    }

    /// Takes (and clears) the interrupt flag.
    static func take() -> Bool {
        let was = pending.exchange(false, ordering: .sequentiallyConsistent)
        if was { clear() }
        return was
    }
}

/// The SIGINT handler: async-signal-safe work only (atomics, `write`, `pthread_self`, `pthread_kill`).
private func interruptHandler(_ signal: Int32) {
    let savedErrno = errno
    let reader = Interrupts.readerThread.load(ordering: .sequentiallyConsistent)
    if reader != 0, reader == Interrupts.currentThreadID(),
       Interrupts.forwarding.exchange(false, ordering: .sequentiallyConsistent) {
        errno = savedErrno  // the forwarded copy: its work is the EINTR it causes
        return
    }
    Interrupts.pending.store(true, ordering: .sequentiallyConsistent)
    let fd = Interrupts.wakeWrite.load(ordering: .sequentiallyConsistent)
    if fd >= 0 {
        var byte: UInt8 = 3
        _ = write(fd, &byte, 1)
    }
    if reader != 0, reader != Interrupts.currentThreadID() {
        Interrupts.forwarding.store(true, ordering: .sequentiallyConsistent)
        pthread_kill(Interrupts.threadFromID(reader), SIGINT)
    }
    errno = savedErrno
}
