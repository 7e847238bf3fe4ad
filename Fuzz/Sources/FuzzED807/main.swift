import Foundation
import FuzzSupport
@testable import RBSCore

/// The ED807 reader (the Bank of Russia's BIC directory, UFEBS XML, windows-1251 or UTF-8), as `directory import`
/// and the host's start read a file: any bytes give banks or a `DirectoryError` naming the file and line.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzED807(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let reader = ED807Reader(file: "fuzz.xml")
    try? reader.read(Data(fuzzBytes(data, size)))
    return 0
}

runFuzzer(fuzzED807)
