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
    /// Where each ASCII plugin name starts in `bytes`; it ends where the next one starts. (Plain `Int`s: the first
    /// `[Range<Int>]` of a process cost more, in Swift's generic metadata look-up, than sorting the names.)
    private var starts: [Int] = []
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
                    starts.append(bytes.count)
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
            let sorted = starts.indices.sorted { left, right in
                let leftCount = length(left), rightCount = length(right)
                let order = memcmp(base! + starts[left], base! + starts[right], min(leftCount, rightCount))
                return order != 0 ? order < 0 : leftCount < rightCount
            }
            return sorted.map { index in
                let name = UnsafeBufferPointer(rebasing: buffer[starts[index]..<starts[index] + length(index)])
                return String(unsafeUninitializedCapacity: prefix.count + name.count) { path in
                    _ = path.initialize(from: prefix)
                    _ = UnsafeMutableBufferPointer(rebasing: path[prefix.count...]).initialize(from: name)
                    return prefix.count + name.count
                }
            }
        }
    }

    /// The ASCII plugin names, unsorted, as `String`s.
    var ascii: [String] {
        bytes.withUnsafeBufferPointer { buffer in
            starts.indices.map { String(decoding: buffer[starts[$0]..<starts[$0] + length($0)], as: UTF8.self) }
        }
    }

    /// The length of name `index`.
    private func length(_ index: Int) -> Int {
        (index + 1 < starts.count ? starts[index + 1] : bytes.count) - starts[index]
    }

    /// `*.so` and not hidden, for a name's UTF-8 bytes.
    static func isPluginName(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        name.count > 3 && name[0] != UInt8(ascii: ".") && name[name.count - 3] == UInt8(ascii: ".")
            && name[name.count - 2] == UInt8(ascii: "s") && name[name.count - 1] == UInt8(ascii: "o")
    }
}
