import Foundation
import Testing
@testable import RBSLedger

/// The answers a commit gives as rows (schema step `v24-answers-as-rows`), read by the host: the same cells as the
/// cells the server split before (`rbs_v22_answers`), and nothing from text that is not that format.
@Suite("Answers as rows: the host splits the server's row JSON")
struct PostgresRowsJSONTests {
    typealias Cell = PostgresStore.Cell

    @Test("rows become cells in column order, each query's digest after its rows; strings unescaped, numbers as written")
    func rowsToCells() throws {
        let text = #"""
            [["d1",{"n":12,"t":"a\"b\\c\nд\u00e9\ud83d\ude00","z":null,"b":true,"h":"\\x00ff","f":-1.5e3}],
             ["d2"],
             ["d3",{"x":1},{"x":2},{}]]
            """#
        let cells = try #require(PostgresStore.cells(fromRowsJSON: text))
        #expect(cells == [
            Cell(query: 1, row: 1, name: "n", kind: "number", value: "12"),
            Cell(query: 1, row: 1, name: "t", kind: "string", value: "a\"b\\c\nдé😀"),
            Cell(query: 1, row: 1, name: "z", kind: "null", value: nil),
            Cell(query: 1, row: 1, name: "b", kind: "boolean", value: "true"),
            Cell(query: 1, row: 1, name: "h", kind: "string", value: "\\x00ff"),
            Cell(query: 1, row: 1, name: "f", kind: "number", value: "-1.5e3"),
            Cell(query: 1, row: 0, name: nil, kind: "digest", value: "d1"),
            Cell(query: 2, row: 0, name: nil, kind: "digest", value: "d2"),
            Cell(query: 3, row: 1, name: "x", kind: "number", value: "1"),
            Cell(query: 3, row: 2, name: "x", kind: "number", value: "2"),
            Cell(query: 3, row: 0, name: nil, kind: "digest", value: "d3"),
        ])
        #expect(PostgresStore.cells(fromRowsJSON: "[]") == [])
        #expect(PostgresStore.cells(fromRowsJSON: " [ ] \n") == [])
    }

    @Test("text that is not the format, or a JSON column's value, gives no cells", arguments: [
        "", "[", "[]x", "{}", "[[]]", "[[1]]", "[[\"d\",]]", "[[\"d\"],]", "[[\"d\",{\"a\":1,}]]", "[[\"d\",{\"a\"}]]",
        "[[\"d\",{\"a\":{\"b\":1}}]]", "[[\"d\",{\"a\":[1]}]]", "[[\"d\",{\"a\":tru}]]", "[[\"d\",{\"a\":\"x\ny\"}]]",
        "[[\"d\",{\"a\":\"\\q\"}]]", "[[\"d\",{\"a\":\"\\ud83d\"}]]", "[[\"d\",{\"a\":\"\\udc00\"}]]", "[[\"d\",{\"a\":\"\\u12\"}]]",
        "[[\"d\",{\"a\":\"open}]]", "[[\"d\"]] [[\"d\"]]",
    ])
    func malformed(text: String) {
        #expect(PostgresStore.cells(fromRowsJSON: text) == nil, "\(text)")
    }
}
