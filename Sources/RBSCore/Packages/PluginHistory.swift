import Foundation
import RBSLedger
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What `plugin install` and `plugin uninstall` did on this data folder: `DATA/plugin-history`, one JSON object a
/// line, only ever appended to (opened with O_APPEND, each line synced), mode 0600 like every file of the folder.
public struct PluginHistory: Sendable {
    public static let fileName = "plugin-history"

    /// One install, downgrade or uninstall.
    public struct Entry: Codable, Equatable, Sendable {
        public enum Action: String, Codable, Sendable {
            case install, downgrade, uninstall
        }

        /// When, ISO 8601 in UTC ("2026-11-26T13:40:05Z").
        public var time: String
        public var action: Action
        public var id: String
        /// The version installed, or the one uninstalled.
        public var version: String
        /// The version it replaced (install, downgrade).
        public var previousVersion: String?
        /// The manifest's publisher (install, downgrade).
        public var publisher: String?
        /// The key that signed the package, or the uninstalled file's signature (lowercase hex).
        public var publisherKey: String?
        /// The operating-system user who ran the command.
        public var by: String
        /// SHA-256 of the package file (install, downgrade).
        public var package: String?
        /// The plugin file placed or removed.
        public var file: String
    }

    public let path: String

    public init(dataDirectory: URL) {
        path = dataDirectory.appendingPathComponent(Self.fileName).path
    }

    /// Appends one entry and syncs it to disk.
    public func append(_ entry: Entry) throws(PackageError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(entry) else { throw .io(path: path, reason: "the entry cannot be encoded") }
        let line = Array(data) + [UInt8(ascii: "\n")]
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .io(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        if let failure = line.withUnsafeBytes({ FileDescriptor.writeAll(fd, $0) }) {
            throw .io(path: path, reason: String(cString: strerror(failure)))
        }
        _ = fsync(fd)
    }

    /// The entries in the order they were written, and the numbers of lines that are not entries (a damaged file).
    public func entries() throws(PackageError) -> (entries: [Entry], unreadable: [Int]) {
        guard FileManager.default.fileExists(atPath: path) else { return ([], []) }
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw .io(path: path, reason: (error as NSError).localizedDescription)
        }
        var entries: [Entry] = []
        var unreadable: [Int] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where !line.isEmpty {
            if let entry = try? JSONDecoder().decode(Entry.self, from: Data(line.utf8)) {
                entries.append(entry)
            } else {
                unreadable.append(number + 1)
            }
        }
        return (entries, unreadable)
    }

    /// Who runs the command, for the history: `USER` as the host read it, else the account of this process's uid.
    public static func user(_ environmentUser: String?) -> String {
        if let environmentUser, !environmentUser.isEmpty { return environmentUser }
        if let entry = getpwuid(getuid()), let name = entry.pointee.pw_name { return String(cString: name) }
        return "uid \(getuid())"
    }

    /// A time as the file writes it.
    public static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }
}
