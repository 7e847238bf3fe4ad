import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Watches the plugin folder with inotify (close-write, moved-to, create, delete, moved-from) on its own thread,
/// and after a short quiet period calls `changed` once for a burst of events. A half-written file is never
/// reported: a file counts once it is closed after writing or renamed into place.
public final class PluginWatcher: @unchecked Sendable {
    public enum WatchError: Error, CustomStringConvertible {
        case unavailable(String)
        public var description: String {
            switch self {
            case .unavailable(let why): "cannot watch the plugin folder: \(why) — use `reload` by hand"
            }
        }
    }

    private let descriptor: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let debounce: Duration
    private let changed: @Sendable () -> Void
    private var thread: Thread?

    /// Starts watching `directory`.
    /// - Parameters:
    ///   - debounce: how long the folder must be quiet before `changed` is called.
    ///   - changed: called on the watcher's thread.
    public init(directory: String, debounce: Duration = .milliseconds(15),
                changed: @escaping @Sendable () -> Void) throws(WatchError) {
        let fd = inotify_init1(Int32(IN_CLOEXEC))
        guard fd >= 0 else { throw .unavailable(String(cString: strerror(errno))) }
        let mask = UInt32(IN_CLOSE_WRITE) | UInt32(IN_MOVED_TO) | UInt32(IN_CREATE) | UInt32(IN_DELETE)
            | UInt32(IN_MOVED_FROM)
        guard inotify_add_watch(fd, directory, mask) >= 0 else {
            let why = String(cString: strerror(errno))
            close(fd)
            throw .unavailable("\(directory): \(why)")
        }
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else {
            close(fd)
            throw .unavailable("pipe: \(String(cString: strerror(errno)))")
        }
        descriptor = fd
        wakeRead = pipeEnds[0]
        wakeWrite = pipeEnds[1]
        self.debounce = debounce
        self.changed = changed
        let thread = Thread { [self] in loop() }
        thread.name = "rbs-plugin-watcher"
        self.thread = thread
        thread.start()
    }

    /// Stops the watcher thread.
    public func stop() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    deinit {
        stop()
    }

    private func loop() {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var pending = false
        while true {
            var fds = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            let wait = pending ? Int32(debounce.components.attoseconds / 1_000_000_000_000_000
                                       + debounce.components.seconds * 1000) : -1
            let ready = poll(&fds, 2, wait)
            if ready < 0 {
                if errno == EINTR { continue }
                break
            }
            if fds[1].revents != 0 { break }
            if ready == 0 {
                // Quiet for the debounce period after events: report the burst once.
                pending = false
                changed()
                continue
            }
            if fds[0].revents != 0 {
                let count = read(descriptor, &buffer, buffer.count)
                if count <= 0 { if count < 0, errno == EINTR { continue } else { break } }
                if Self.concernsPlugins(buffer[..<count]) { pending = true }
            }
        }
        close(descriptor)
        close(wakeRead)
        close(wakeWrite)
    }

    /// Whether any event in the buffer names a `*.so` file or its signature `*.so.sig` (not a hidden temporary one):
    /// a signature that arrives after its plugin (`cp x.so x.so.sig DIR`, or a `.sig` copied later) makes the
    /// rescan verify the plugin again, which the trust policy refused while the signature was missing or stale.
    static func concernsPlugins(_ events: ArraySlice<UInt8>) -> Bool {
        var offset = events.startIndex
        let header = MemoryLayout<inotify_event>.size
        while offset + header <= events.endIndex {
            let length = events.withUnsafeBytes { raw in
                raw.loadUnaligned(fromByteOffset: offset - events.startIndex + 12, as: UInt32.self)
            }
            let nameStart = offset + header
            let nameEnd = min(nameStart + Int(length), events.endIndex)
            let name = String(decoding: events[nameStart..<nameEnd].prefix { $0 != 0 }, as: UTF8.self)
            if name.hasSuffix(".so") || name.hasSuffix(".so.sig"), !name.hasPrefix(".") { return true }
            offset = nameEnd
        }
        return false
    }
}
