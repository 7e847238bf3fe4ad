#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The reason `dlopen` or `dlsym` failed, as `dlerror()` put it.
public struct DLError: Error, CustomStringConvertible, Sendable {
    public let description: String

    /// Reads and clears the thread's `dlerror()` message.
    static func current(or fallback: String) -> DLError {
        if let message = dlerror() { return DLError(description: String(cString: message)) }
        return DLError(description: fallback)
    }
}

/// An image opened with `dlopen`: the one owner of the handle, so `unsafe` dynamic-loader code lives here.
///
/// A Swift image is opened with `.noDelete` and is never closed: the Swift runtime keeps pointers into it.
public final class DLHandle: @unchecked Sendable {
    public struct Options: OptionSet, Sendable {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }
        public static let now = Options(rawValue: RTLD_NOW)
        public static let local = Options(rawValue: RTLD_LOCAL)
        public static let noDelete = Options(rawValue: RTLD_NODELETE)
    }

    private var raw: UnsafeMutableRawPointer?
    public let path: String
    public let options: Options

    /// Opens the image at `path`.
    public init(path: String, options: Options) throws(DLError) {
        _ = dlerror()
        guard let raw = dlopen(path, options.rawValue) else { throw DLError.current(or: "dlopen failed") }
        self.raw = raw
        self.path = path
        self.options = options
    }

    /// The address of `symbol` in this image, or nil when it does not export it.
    public func symbol(_ name: String) -> UnsafeMutableRawPointer? {
        guard let raw else { return nil }
        _ = dlerror()
        return dlsym(raw, name)
    }

    /// Closes the image, unless it was opened `.noDelete` (a Swift image stays mapped for the process's life).
    public func close() {
        guard let handle = raw, !options.contains(.noDelete) else { return }
        raw = nil
        dlclose(handle)
    }

    public var isOpen: Bool { raw != nil }
}
