import Foundation
import RBSLedger
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Small POSIX file helpers for the trust files: exclusive creation with a mode, atomic replacement, modes and owners.
enum TrustFile {
    /// Writes `text` to `path` with `mode`, never through a moment where the file is more open than `mode`:
    /// a temporary file is created with the mode and renamed over the target. With `exclusive`, refuses an existing file.
    static func write(_ text: String, to path: String, mode: mode_t, exclusive: Bool = false) throws(TrustError) {
        if exclusive, FileManager.default.fileExists(atPath: path) { throw .keyExists(path: path) }
        let temporary = try stage(Array(text.utf8), for: path, mode: mode)
        try commit(temporary, to: path)
    }

    /// Writes `bytes` with `mode` to a hidden temporary file beside `path` (a name the plugin scanner and watcher pass
    /// over), synced to disk; ``commit(_:to:)`` renames it into place.
    static func stage(_ bytes: [UInt8], for path: String, mode: mode_t) throws(TrustError) -> String {
        let temporary = directory(of: path) + "/.\(name(of: path)).\(UUID().uuidString).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw .io(path: path, reason: String(cString: strerror(errno))) }
        if let failure = bytes.withUnsafeBytes({ FileDescriptor.writeAll(fd, $0) }) {
            close(fd)
            unlink(temporary)
            throw .io(path: path, reason: String(cString: strerror(failure)))
        }
        _ = fchmod(fd, mode)
        _ = fsync(fd)
        close(fd)
        return temporary
    }

    /// Renames a staged file over `path` (one atomic step), or removes it and says why not.
    static func commit(_ temporary: String, to path: String) throws(TrustError) {
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw .io(path: path, reason: reason)
        }
    }

    /// Syncs a folder, so the renames into it survive a crash.
    static func syncDirectory(_ path: String) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }

    /// The folder part of a path ("." for a bare name), without Foundation's path parsing. The slash is found among
    /// the UTF-8 bytes: searching the characters walks grapheme breaks from the end, which cost a warm `list`
    /// 6,000 instructions a plugin file.
    static func directory(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The last component of a path.
    static func name(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return path }
        return String(path[path.utf8.index(after: slash)...])
    }

    /// The text of a file.
    static func read(_ path: String) throws(TrustError) -> String {
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            guard let text = String(data: data, encoding: .utf8) else { throw TrustError.io(path: path, reason: "not UTF-8 text") }
            return text
        } catch let error as TrustError {
            throw error
        } catch {
            throw .io(path: path, reason: (error as NSError).localizedDescription)
        }
    }

    /// The mode bits and owner of a file or folder (following symbolic links), or nil when it cannot be seen.
    static func status(_ path: String) -> (mode: UInt32, owner: uid_t)? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return (UInt32(info.st_mode) & 0o7777, info.st_uid)
    }
}
