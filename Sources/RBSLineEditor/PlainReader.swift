#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Line input without libedit: `read(2)` on a file descriptor with its own buffer, and `poll(2)` on the
/// interrupt self-pipe so that Ctrl-C ends the read whichever thread receives the signal.
final class PlainReader {
    enum Result: Equatable { case line(String), interrupt, endOfInput }

    let fd: Int32
    private var buffer: [UInt8] = []
    private var atEOF = false

    init(fd: Int32) { self.fd = fd }

    func readLine() -> Result {
        while true {
            if let newline = buffer.firstIndex(of: 10) {
                var bytes = buffer[..<newline]
                buffer.removeSubrange(...newline)
                if bytes.last == 13 { bytes = bytes.dropLast() }
                return .line(String(decoding: bytes, as: UTF8.self))
            }
            if atEOF {
                guard !buffer.isEmpty else { return .endOfInput }
                defer { buffer.removeAll() }
                return .line(String(decoding: buffer, as: UTF8.self))
            }
            if Interrupts.take() { buffer.removeAll(); return .interrupt }
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
            let wake = Interrupts.wakeRead.load(ordering: .sequentiallyConsistent)
            if wake >= 0 { fds.append(pollfd(fd: wake, events: Int16(POLLIN), revents: 0)) }
            let ready = poll(&fds, nfds_t(fds.count), -1)
            if ready < 0 {
                if errno == EINTR { continue }
                atEOF = true; continue
            }
            if fds.count > 1 && fds[1].revents != 0 {
                // Normally the interrupt check above returns; a byte left without the flag is stale.
                if !Interrupts.pending.load(ordering: .sequentiallyConsistent) { Interrupts.clear() }
                continue
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = read(fd, &chunk, chunk.count)
            if count > 0 {
                buffer.append(contentsOf: chunk[..<count])
            } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                atEOF = true
            }
        }
    }
}
