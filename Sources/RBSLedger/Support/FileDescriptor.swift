#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Plain POSIX calls on an open file descriptor, shared by the files that must not pass through Foundation's
/// buffering (secret files, trust files).
package enum FileDescriptor {
    /// Writes every byte of `bytes` to `fd`, retrying short writes and `EINTR`.
    /// - Returns: nil when all was written, else the `errno` of the failing `write(2)`.
    package static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
        guard let base = bytes.baseAddress else { return nil }
        var offset = 0
        while offset < bytes.count {
            let count = write(fd, base + offset, bytes.count - offset)
            if count < 0 {
                if errno == EINTR { continue }
                return errno
            }
            if count == 0 { return EIO }
            offset += count
        }
        return nil
    }
}
