import Foundation
import FuzzSupport
import RBSLedger

/// The canonical document decoder (what a signed document's bytes are read back with): any bytes either decode to a
/// document that encodes to exactly those bytes, or are refused with a `DocumentError`; nothing traps.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCanonicalDocument(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Data(fuzzBytes(data, size))
    guard let document = try? CanonicalEncoding.decode(bytes) else { return 0 }
    // The decoder's promise: what it accepts is canonical.
    if CanonicalEncoding.encode(document) != bytes { fatalError("decode accepted bytes that encode differently") }
    _ = document.id
    return 0
}

runFuzzer(fuzzCanonicalDocument)
