#if canImport(Glibc)
import Glibc
#endif

/// What every fuzz target's `LLVMFuzzerTestOneInput` has: the input's bytes and their count; returns 0.
public typealias FuzzTestOneInput = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ body: FuzzTestOneInput) -> CInt

/// Hands the process to libFuzzer (its flags and corpus folders are the command's arguments) and exits with its code.
///
/// Why not libFuzzer's own `main`: SwiftPM links every executable target with `main` aliased to the module's entry
/// point (`--defsym main=<Module>_main`), which shadows libFuzzer's. So each target's `main.swift` calls this, and
/// libFuzzer runs from there exactly as from its own `main` (which is a call of `LLVMFuzzerRunDriver` too).
public func runFuzzer(_ body: FuzzTestOneInput) -> Never {
    var argc = CommandLine.argc
    var argv = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, body))
}

/// The input's bytes as an array.
public func fuzzBytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    guard let data, size > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: size))
}

/// Reads structured values from the fuzzer's bytes (a structure-aware target builds C descriptors from them). Past
/// the end every read gives zero or empty, so any input is a complete structure.
public struct FuzzInput {
    private let bytes: [UInt8]
    private var offset = 0

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public var isAtEnd: Bool { offset >= bytes.count }

    public mutating func u8() -> UInt8 {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    public mutating func u32() -> UInt32 {
        (0..<4).reduce(UInt32(0)) { value, _ in value << 8 | UInt32(u8()) }
    }

    /// A length byte, then that many bytes (which may be any bytes: invalid UTF-8 and NULs included).
    public mutating func bytesField() -> [UInt8] {
        let count = min(Int(u8()), bytes.count - min(offset, bytes.count))
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    /// The rest of the bytes.
    public mutating func rest() -> [UInt8] {
        guard offset < bytes.count else { return [] }
        defer { offset = bytes.count }
        return Array(bytes[offset...])
    }
}
