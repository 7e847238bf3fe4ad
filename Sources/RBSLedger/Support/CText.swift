/// The text a C function wrote into `buffer`: its bytes up to the first NUL, read as UTF-8 (a message from the C
/// shims' `why`/error buffers; `String(cString:)` of an array is deprecated).
package func cText(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
