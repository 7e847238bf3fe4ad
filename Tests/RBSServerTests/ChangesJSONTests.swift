import Foundation
@testable import RBSServer
import Testing

/// A commit's answer written by `ChangesJSON` is the encoder's JSON byte for byte (`Routes.encoder`: sorted keys,
/// slashes as they are), whatever its atoms hold.
@Suite("A commit's answer as JSON")
struct ChangesJSONTests {
    /// Every ASCII control character, quotes, backslashes, slashes, DEL, non-ASCII letters, an emoji, the line and
    /// paragraph separators, a combining accent, empty.
    static let awkward: [String] = (0..<0x20).map { String(UnicodeScalar(UInt8($0))) } + [
        "\"", "\\", "/", "a/b\\c\"d", "\u{7F}", "Сумма, ₽", "😀", "\u{2028}\u{2029}", "e\u{301}", "", "40817810099910004312",
        "line\nbreak\ttab\r\u{0}end",
    ]

    static func atom(_ text: String, everything: Bool, flag: Bool? = nil) -> API.Atom {
        API.Atom(id: "a\(text)", kind: everything ? "account" : "input", caption: text, hint: everything ? text : nil,
                 inputType: everything ? "amount" : nil, currency: everything ? text : nil,
                 value: flag.map(API.Value.flag) ?? .text(text), visible: !everything, error: everything ? text : nil,
                 optional: everything, secret: !everything, submit: everything, maxLength: everything ? 4096 : nil,
                 options: everything ? [API.Option(value: text, title: text), API.Option(value: "1", title: "")] : nil,
                 accounts: everything ? [API.AccountChoice(number: text, title: text, currency: "RUB", balance: "-1.50")] : nil)
    }

    @Test("the same bytes as the encoder's: every member present or absent, text and flag values, awkward strings")
    func sameBytesAsTheEncoder() throws {
        var answers: [API.Changes] = [API.Changes(changed: [], ready: false, formError: nil),
                                      API.Changes(changed: [], ready: true, formError: "")]
        for text in Self.awkward {
            answers.append(API.Changes(changed: [Self.atom(text, everything: false), Self.atom(text, everything: true)],
                                       ready: text.isEmpty, formError: text))
            answers.append(API.Changes(changed: [Self.atom(text, everything: true, flag: true),
                                                 Self.atom(text, everything: false, flag: false)], ready: true, formError: nil))
        }
        for answer in answers {
            let expected = [UInt8](try Routes.encoder.encode(answer))
            let written = ChangesJSON.bytes(answer)
            #expect(written == expected, "\(String(decoding: written, as: UTF8.self)) ≠ \(String(decoding: expected, as: UTF8.self))")
        }
    }
}
