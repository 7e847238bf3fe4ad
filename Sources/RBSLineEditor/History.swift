import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The history kept by a ``LineEditor``, independent of the backend (so it also works in plain mode and the
/// file format does not depend on libedit's).
///
/// File format: UTF-8 text, one entry per line; a backslash is written `\\` and a newline `\n`. Reading also
/// accepts libedit's own `write_history` files (a `_HiStOrY_V2_` first line and `\ooo` octal escapes).
struct History {
    private(set) var entries: [String] = []
    let maxEntries: Int

    init(maxEntries: Int) {
        self.maxEntries = max(0, maxEntries)
    }

    /// Appends `line` unless it is empty (or only blanks) or repeats the previous entry; keeps the newest
    /// `maxEntries`. Returns whether the line was added.
    @discardableResult
    mutating func add(_ line: String) -> Bool {
        guard !line.allSatisfy(\.isWhitespace), line != entries.last, maxEntries > 0 else { return false }
        entries.append(line)
        if entries.count > maxEntries { entries.removeFirst(entries.count - maxEntries) }
        return true
    }

    // MARK: File

    mutating func load(from url: URL) {
        guard let data = FileManager.default.contents(atPath: url.path) else { return }
        let text = String(decoding: data, as: UTF8.self)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        if lines.first == "_HiStOrY_V2_" { lines.removeFirst() }
        for line in lines { add(Self.decode(line)) }
    }

    /// Writes the entries atomically (temporary file + rename) with mode 0600. The folder must exist: one that was
    /// moved or deleted while the REPL ran is not made again for a history file alone.
    func save(to url: URL) throws {
        let directory = url.deletingLastPathComponent()
        var text = entries.map(Self.encode).joined(separator: "\n")
        if !text.isEmpty { text += "\n" }
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(getpid()).tmp").path
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var ok = fchmod(fd, 0o600) == 0
        var bytes = Array(text.utf8)
        var offset = 0
        while ok && offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { ok = false } else { offset += written }
        }
        bytes.removeAll()
        let savedErrno = errno
        close(fd)
        guard ok, rename(temporary, url.path) == 0 else {
            unlink(temporary)
            throw POSIXError(POSIXErrorCode(rawValue: ok ? errno : savedErrno) ?? .EIO)
        }
    }

    static func encode(_ line: String) -> String {
        var out = ""
        for character in line.unicodeScalars {
            switch character {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }

    static func decode(_ line: String) -> String {
        var bytes: [UInt8] = []
        let input = Array(line.utf8)
        var index = 0
        while index < input.count {
            let byte = input[index]
            guard byte == UInt8(ascii: "\\"), index + 1 < input.count else {
                bytes.append(byte); index += 1; continue
            }
            let next = input[index + 1]
            switch next {
            case UInt8(ascii: "n"): bytes.append(10); index += 2
            case UInt8(ascii: "r"): bytes.append(13); index += 2
            case UInt8(ascii: "0")...UInt8(ascii: "3")
                where index + 3 < input.count
                && (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(input[index + 2])
                && (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(input[index + 3]):
                bytes.append((next - 48) * 64 + (input[index + 2] - 48) * 8 + (input[index + 3] - 48))
                index += 4
            default: bytes.append(next); index += 2
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
