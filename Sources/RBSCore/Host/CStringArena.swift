#if canImport(Glibc)
import Glibc
#endif

/// Owns C strings handed to a plugin until the next call replaces them ("valid until the next call to the same
/// service"), so a plugin never sees a dangling pointer and the host never leaks.
final class CStringArena: @unchecked Sendable {
    private var strings: [UnsafeMutablePointer<CChar>] = []

    /// Frees what the previous call handed out.
    func reset() {
        for string in strings { free(string) }
        strings.removeAll(keepingCapacity: true)
    }

    /// A NUL-terminated copy of `text`, alive until the next `reset()`.
    func keep(_ text: String) -> UnsafePointer<CChar> {
        let copy = strdup(text) ?? strdup("")!
        strings.append(copy)
        return UnsafePointer(copy)
    }

    deinit { reset() }
}
