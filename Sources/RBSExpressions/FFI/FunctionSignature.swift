/// The C signature of a plugin function, written `RESULT(ARG, ...)`, e.g. `"bool()"` or `"int64(string, int64)"`.
public struct FunctionSignature: Sendable, Hashable, CustomStringConvertible {
    public var result: ForeignType
    public var parameters: [ForeignType]

    public init(result: ForeignType, parameters: [ForeignType]) {
        self.result = result
        self.parameters = parameters
    }

    public var description: String {
        "\(result)(\(parameters.map(\.rawValue).joined(separator: ", ")))"
    }

    /// Parses `RESULT(ARG, ...)`; whitespace is allowed between tokens.
    public static func parse(_ text: String) throws(FFIError) -> FunctionSignature {
        let chars = Array(text)
        var i = 0
        func skipSpace() { while i < chars.count, chars[i].isWhitespace { i += 1 } }
        func fail(_ reason: String) -> FFIError { .malformedSignature(text: text, column: i + 1, reason: reason) }
        func type(_ what: String) throws(FFIError) -> ForeignType {
            skipSpace()
            let start = i
            while i < chars.count, chars[i].isLetter || chars[i].isNumber || chars[i] == "_" { i += 1 }
            let word = String(chars[start..<i])
            guard let t = ForeignType(rawValue: word) else {
                i = start
                throw fail(word.isEmpty ? "expected \(what)" : "unknown type '\(word)' for \(what)")
            }
            return t
        }
        let result = try type("the result type")
        skipSpace()
        guard i < chars.count, chars[i] == "(" else { throw fail("expected '(' after the result type") }
        i += 1
        skipSpace()
        var parameters: [ForeignType] = []
        if i < chars.count, chars[i] == ")" {
            i += 1
        } else {
            while true {
                parameters.append(try type("parameter \(parameters.count + 1)"))
                skipSpace()
                guard i < chars.count else { throw fail("expected ',' or ')'") }
                if chars[i] == ")" { i += 1; break }
                guard chars[i] == "," else { throw fail("expected ',' or ')'") }
                i += 1
            }
        }
        skipSpace()
        guard i == chars.count else { throw fail("unexpected text after ')'") }
        return FunctionSignature(result: result, parameters: parameters)
    }
}
