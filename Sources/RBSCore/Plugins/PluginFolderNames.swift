#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The names in a folder as `readdir` gives them: the ASCII ones that name a plugin (`*.so`, not hidden), as
/// bytes; every name with other bytes as a `String`, for the caller to judge as text.
struct PluginFolderNames {
    var ascii: [[UInt8]] = []
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
                    ascii.append(Array(name))
                }
            }
        }
        guard errno == 0 else { return nil }
    }

    /// `*.so` and not hidden, for an ASCII name.
    private static func isPluginName(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        name.count > 3 && name[0] != UInt8(ascii: ".") && name[name.count - 3] == UInt8(ascii: ".")
            && name[name.count - 2] == UInt8(ascii: "s") && name[name.count - 1] == UInt8(ascii: "o")
    }
}
