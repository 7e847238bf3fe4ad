import Foundation
import Testing
@testable import RBSServer

@Suite("A commit's body read from its bytes is what JSONDecoder reads; everything else is left to the decoder")
struct CommitBodyTests {
    private func decoded(_ body: [UInt8]) -> JSONValue? {
        try? JSONDecoder().decode(API.CommitRequest.self, from: Data(body)).value
    }

    @Test("the common bodies are read quickly, to the decoder's value")
    func commonBodies() {
        let bodies: [(String, JSONValue)] = [
            (#"{"value":"200.50"}"#, .string("200.50")),
            (#"{"value": "1 500,50"}"#, .string("1 500,50")),
            ("{\"value\": \"1\u{00A0}500,00\"}", .string("1\u{00A0}500,00")),
            (#"{"value":"١٢٣"}"#, .string("١٢٣")),
            (#"{"value":"оплата / счёт"}"#, .string("оплата / счёт")),
            (#"{"value":""}"#, .string("")),
            (" \t\r\n{ \"value\" :\n\"x\" }\n ", .string("x")),
            (#"{"value":true}"#, .bool(true)),
            (#"{"value": false}"#, .bool(false)),
            (#"{"value":null}"#, .null),
        ]
        for (body, value) in bodies {
            let bytes = Array(body.utf8)
            #expect(CommitBody.value(in: bytes) == value, "\(body)")
            #expect(decoded(bytes) == value, "\(body)")
        }
    }

    @Test("escapes, numbers, objects, other keys and malformed JSON are left to the decoder (and so refused in its words)")
    func everythingElseIsTheDecoders() {
        let bodies: [[UInt8]] = [
            #"{"value": }"#, #"{"value":"1"} x"#, #"{"value":"1""#, #"{"value":"1",}"#, #"{"value":"a\"b"}"#,
            #"{"value":"\u0031"}"#, #"{"value":12.5}"#, #"{"value":{"amount":"1","currency":"RUB"}}"#,
            #"{"value":["1"]}"#, #"{"amount":"1"}"#, #"{"value":"1","other":2}"#, #"{"value":"1","value":"2"}"#,
            #"{"valu\u0065":"1"}"#, "[]", "", " ", "null", #""value""#, #"{"value":tru}"#, #"{"value":nul}"#,
            #"{"value":True}"#, "{\"value\":\"a\u{01}b\"}", "{\"value\":\"a\tb\"}", "\u{FEFF}{\"value\":\"1\"}",
        ].map { Array($0.utf8) } + [
            [0x7B, 0x22, 0x76, 0x61, 0x6C, 0x75, 0x65, 0x22, 0x3A, 0x22, 0xFF, 0x22, 0x7D],  // {"value":"<0xFF>"}
            [0x7B, 0x22, 0x76, 0x61, 0x6C, 0x75, 0x65, 0x22, 0x3A, 0x22, 0xED, 0xA0, 0x80, 0x22, 0x7D],  // a lone surrogate
        ]
        for body in bodies {
            #expect(CommitBody.value(in: body) == nil, "\(String(decoding: body, as: UTF8.self))")
        }
    }
}
