import Foundation
import RBSMoney

/// The command line as bytes. Swift's `CommandLine.arguments` repairs invalid UTF-8 with U+FFFD, which would then
/// be signed as if the person had typed it; the host refuses such a value instead, before anything is signed.
enum RawArguments {
    /// Arguments that are not valid UTF-8: their position, the argument as decoded (for naming it), and the byte
    /// offset of the first bad byte.
    static func invalidUTF8() -> [(index: Int, lossy: String, offset: Int)] {
        var found: [(Int, String, Int)] = []
        for index in 0..<Int(CommandLine.argc) {
            guard let pointer = CommandLine.unsafeArgv[index] else { continue }
            let bytes = UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)).bindMemory(to: UInt8.self)
            guard let offset = UnicodeText.firstInvalidUTF8(in: bytes) else { continue }
            found.append((index, String(decoding: bytes, as: UTF8.self), offset))
        }
        return found
    }

    /// For each `--set ID=VALUE` whose bytes are not valid UTF-8: the atom id and why it is refused.
    static func refusedAssignments() -> [(id: String, message: String)] {
        invalidUTF8().map { bad in
            let text = bad.lossy.hasPrefix("--set=") ? String(bad.lossy.dropFirst(6)) : bad.lossy
            let id = text.split(separator: "=", maxSplits: 1).first.map(String.init) ?? text
            return (id, "the value is not valid UTF-8 (bad byte at offset \(bad.offset) of the argument): refused, not repaired — nothing was signed")
        }
    }
}
