import Foundation

/// Frames read from one end of the worker channel through a buffer, by the thread that waits for them.
///
/// One `recv` usually brings a whole frame (or several), where reading a frame's header and body apart costs two
/// system calls a message. A wait with a deadline is a blocking `recv` under the socket's receive timeout
/// (`SO_RCVTIMEO`, set to the time left only when that differs from the last one by more than an eighth), so a
/// round trip costs each side one `send` and one `recv` — what a bare socket ping-pong costs.
final class WireReceiver {
    enum Outcome {
        case frame(WireReader)
        /// The other side closed the channel (or it failed).
        case end
        case malformed(String)
        case timedOut
    }

    private let fd: Int32
    private var buffer: [UInt8] = []
    /// Where the first unread byte of `buffer` is.
    private var start = 0
    private var chunk = [UInt8](repeating: 0, count: 64 << 10)
    /// The receive timeout set on `fd` (zero: none).
    private var timeout: Duration = .zero

    init(fd: Int32) {
        self.fd = fd
    }

    /// The next frame: waits until it has all arrived, the channel ends, or `deadline` passes (nil: no deadline).
    func next(until deadline: ContinuousClock.Instant? = nil) -> Outcome {
        while true {
            if let outcome = parse() { return outcome }
            if let deadline {
                let left = ContinuousClock.now.duration(to: deadline)
                if left <= .zero { return .timedOut }
                if timeout == .zero || left < timeout - timeout / 8 || left > timeout + timeout / 8 { setTimeout(left) }
            } else if timeout != .zero {
                setTimeout(.zero)
            }
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK { continue }
                return .end
            }
            if count == 0 { return .end }
            if start == buffer.count {
                buffer.removeAll(keepingCapacity: true)
                start = 0
            } else if start > 64 << 10 {
                buffer.removeFirst(start)
                start = 0
            }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }

    /// A whole frame from the buffer, a malformed header, or nil when more bytes are needed.
    private func parse() -> Outcome? {
        let available = buffer.count - start
        guard available >= 4 else { return nil }
        let length = Int(buffer[start]) | Int(buffer[start + 1]) << 8 | Int(buffer[start + 2]) << 16 | Int(buffer[start + 3]) << 24
        guard length >= 1, length <= wireFrameLimit else { return .malformed("a frame of \(length) bytes") }
        guard available >= 4 + length else { return nil }
        let kindByte = buffer[start + 4]
        guard let kind = WireKind(rawValue: kindByte) else { return .malformed("an unknown message kind \(kindByte)") }
        let payload = Array(buffer[(start + 5)..<(start + 4 + length)])
        start += 4 + length
        return .frame(WireReader(kind: kind, payload: payload))
    }

    private func setTimeout(_ wait: Duration) {
        guard wait != timeout else { return }
        let microseconds = max(wait.components.seconds * 1_000_000 + wait.components.attoseconds / 1_000_000_000_000, wait > .zero ? 1 : 0)
        var value = timeval(tv_sec: Int(microseconds / 1_000_000), tv_usec: Int(microseconds % 1_000_000))
        if setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size)) == 0 { timeout = wait }
    }
}
