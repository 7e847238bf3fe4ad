import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Files that hold secrets: created 0600 from the first byte, written whole, synced, then renamed into place; and
/// the check every file and folder of the data folder passes before it is read: owned by the user the host runs as,
/// and no permission bits for the group or others.
public enum SecureFile {
    package enum Failure: Error {
        case system(String)
    }

    /// Why a file or folder must not be used: who owns it or who else may read or write it, and the command that fixes it.
    public struct Exposure: Error, Sendable, Hashable, Codable, CustomStringConvertible {
        public let path: String
        /// What is wrong, e.g. "is owned by uid 1001 (mallory), not by uid 0 (root), the user rbs-host runs as".
        public let problem: String
        /// The shell command that fixes it (`chmod …` or `chown …`).
        public let fix: String

        public var description: String { "\(path) \(problem) — run `\(fix)`" }
    }

    /// Checks that `path` (followed through symbolic links) is owned by the effective user and that the group and
    /// others have no permission bits on it; `nil` when it is private or does not exist.
    package static func exposure(of path: String) -> Exposure? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return exposure(of: path, info)
    }

    /// ``exposure(of:)`` from `info`, what `stat` said of `path` just now (a caller that stats it anyway).
    package static func exposure(of path: String, _ info: stat) -> Exposure? {
        let mode = UInt32(info.st_mode) & 0o7777
        let isDirectory = (UInt32(info.st_mode) & UInt32(S_IFMT)) == UInt32(S_IFDIR)
        let user = geteuid()
        if info.st_uid != user {
            return Exposure(
                path: path,
                problem: "is owned by \(userName(info.st_uid)), not by \(userName(user)), the user rbs-host runs as: "
                    + "another user could have written it",
                fix: "chown \(isDirectory ? "-R " : "")\(userName(user, bare: true)) \(quoted(path))")
        }
        if mode & 0o077 != 0 {
            let wanted: UInt32 = isDirectory ? 0o700 : 0o600
            let who = mode & 0o022 != 0 ? "other users can change it" : "other users can read it"
            return Exposure(
                path: path,
                problem: "has mode \(String(mode, radix: 8)) (\(who)); it must be \(String(wanted, radix: 8))",
                fix: "chmod \(String(wanted, radix: 8)) \(quoted(path))")
        }
        return nil
    }

    /// "uid 1001 (mallory)", or with `bare` the name alone (the uid when it has no name), for a `chown` line.
    private static func userName(_ uid: uid_t, bare: Bool = false) -> String {
        var name: String?
        if let entry = getpwuid(uid), let text = entry.pointee.pw_name { name = String(cString: text) }
        if bare { return name ?? String(uid) }
        return "uid \(uid)" + (name.map { " (\($0))" } ?? "")
    }

    private static func quoted(_ path: String) -> String {
        path.allSatisfy { $0.isLetter || $0.isNumber || "/._-+".contains($0) } ? path : "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "'"
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
