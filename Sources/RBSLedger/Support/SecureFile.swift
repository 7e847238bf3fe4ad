import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Files that hold secrets: created 0600 from the first byte, written whole, synced, then renamed into place.
package enum SecureFile {
    package enum Failure: Error {
        case system(String)
    }

    /// Creates `directory` (and parents) with mode 0700 when it is missing.
    package static func ensureDirectory(_ directory: URL) throws(Failure) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw .system("\(directory.path) exists and is not a directory") }
            return
        }
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .system("cannot create \(directory.path): \(error.localizedDescription)")
        }
    }

    /// Writes `data` to `url` atomically with mode 0600.
    package static func write(_ data: Data, to url: URL) throws(Failure) {
        let temporary = url.path + ".tmp-\(getpid())"
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard fd >= 0 else { throw .system("cannot create \(temporary): \(errnoText())") }
        let failure = data.withUnsafeBytes { FileDescriptor.writeAll(fd, $0) }
        let synced = fsync(fd) == 0
        close(fd)
        guard failure == nil, synced else {
            unlink(temporary)
            throw .system("cannot write \(temporary): \(failure.map { String(cString: strerror($0)) } ?? errnoText())")
        }
        guard rename(temporary, url.path) == 0 else {
            unlink(temporary)
            throw .system("cannot move \(temporary) to \(url.path): \(errnoText())")
        }
    }

    /// The permission bits of `url`, or `nil` when it does not exist.
    static func mode(of url: URL) -> UInt32? {
        var info = stat()
        guard stat(url.path, &info) == 0 else { return nil }
        return UInt32(info.st_mode) & 0o7777
    }

    private static func errnoText() -> String { String(cString: strerror(errno)) }
}
