#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The names in a folder as `readdir` gives them: the ASCII ones that name a plugin (`*.so`, not hidden), as bytes
/// in one buffer; every name with other bytes as a `String`, for the caller to judge as text.
struct PluginFolderNames {
    /// The ASCII plugin names, one after another.
    private var bytes: [UInt8] = []
    /// Where each ASCII plugin name is in `bytes`.
    private var names: [Range<Int>] = []
    var other: [String] = []

    /// Nil when the folder cannot be opened or read to the end.
    init?(_ directory: String) {
        guard let stream = opendir(directory) else { return nil }
        defer { closedir(stream) }
        errno = 0
        while let entry = readdir(stream) {
            withUnsafeBytes(of: &entry.pointee.d_name) { raw in
                let length = strnlen(raw.baseAddress!.assumingMemoryBound(to: CChar.self), raw.count)
                let name = UnsafeBufferPointer(start: raw.baseAddress!.assumingMemoryBound(to: UInt8.self), count: length)
                if name.contains(where: { $0 >= 0x80 }) {
                    other.append(String(decoding: name, as: UTF8.self))
                } else if Self.isPluginName(name) {
                    names.append(bytes.count..<bytes.count + length)
                    bytes.append(contentsOf: name)
                }
            }
        }
        guard errno == 0 else { return nil }
    }

    /// The ASCII plugin names sorted by their bytes (for ASCII, the order `String` gives), each after `prefix`.
    func sortedASCII(after prefix: String) -> [String] {
        let prefix = Array(prefix.utf8)
        return bytes.withUnsafeBufferPointer { buffer in
            let base = buffer.baseAddress
            let sorted = names.sorted { left, right in
                let order = memcmp(base! + left.lowerBound, base! + right.lowerBound, min(left.count, right.count))
                return order != 0 ? order < 0 : left.count < right.count
            }
            return sorted.map { name in
                String(unsafeUninitializedCapacity: prefix.count + name.count) { path in
                    _ = path.initialize(from: prefix)
                    _ = UnsafeMutableBufferPointer(rebasing: path[prefix.count...]).initialize(from: buffer[name])
                    return prefix.count + name.count
                }
            }
        }
    }

    /// The ASCII plugin names, unsorted, as `String`s.
    var ascii: [String] {
        bytes.withUnsafeBufferPointer { buffer in names.map { String(decoding: buffer[$0], as: UTF8.self) } }
    }

    /// `*.so` and not hidden, for an ASCII name.
    private static func isPluginName(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        name.count > 3 && name[0] != UInt8(ascii: ".") && name[name.count - 3] == UInt8(ascii: ".")
            && name[name.count - 2] == UInt8(ascii: "s") && name[name.count - 1] == UInt8(ascii: "o")
    }
}
