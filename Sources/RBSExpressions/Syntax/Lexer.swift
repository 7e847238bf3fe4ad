import Foundation

/// Splits an expression's source into tokens.
struct Lexer {
    private let scalars: [Unicode.Scalar]
    private var index = 0

    init(_ source: String) {
        scalars = Array(source.unicodeScalars)
    }

    /// All tokens, ending with `.end`.
    mutating func tokenize() throws(ExpressionError) -> [Token] {
        var tokens: [Token] = []
        while true {
            let token = try next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    private func peek(_ offset: Int = 0) -> Unicode.Scalar? {
        let i = index + offset
        return i < scalars.count ? scalars[i] : nil
    }

    private static func isIdentifierStart(_ s: Unicode.Scalar) -> Bool {
        s == "_" || s.properties.isAlphabetic
    }

    private static func isIdentifierPart(_ s: Unicode.Scalar) -> Bool {
        s == "_" || s == "." || s.properties.isAlphabetic || ("0"..."9").contains(s)
    }

    private static func isDigit(_ s: Unicode.Scalar) -> Bool { ("0"..."9").contains(s) }

    private mutating func next() throws(ExpressionError) -> Token {
        while let s = peek(), s.properties.isWhitespace { index += 1 }
        let column = index + 1
        guard let s = peek() else { return Token(kind: .end, column: column) }
        func single(_ kind: Token.Kind, length: Int = 1) -> Token {
            index += length
            return Token(kind: kind, column: column)
        }
        switch s {
        case "(": return single(.leftParen)
        case ")": return single(.rightParen)
        case "{": return single(.leftBrace)
        case "}": return single(.rightBrace)
        case ",": return single(.comma)
        case "-": return single(.minus)
        case "=": return peek(1) == "=" ? single(.comparison(.equal), length: 2) : single(.comparison(.equal))
        case "!": return peek(1) == "=" ? single(.comparison(.notEqual), length: 2) : single(.not)
        case "<":
            if peek(1) == "=" { return single(.comparison(.lessOrEqual), length: 2) }
            if peek(1) == ">" { return single(.comparison(.notEqual), length: 2) }
            return single(.comparison(.less))
        case ">": return peek(1) == "=" ? single(.comparison(.greaterOrEqual), length: 2) : single(.comparison(.greater))
        case "&":
            if peek(1) == "&" { return single(.and, length: 2) }
            throw .parse(column: column, expected: "'&&'", found: "'&'")
        case "|":
            if peek(1) == "|" { return single(.or, length: 2) }
            throw .parse(column: column, expected: "'||'", found: "'|'")
        case "[": return try modifier(column: column)
        case "'", "\"": return try string(quote: s, column: column)
        case "$":
            index += 1
            guard let first = peek(), Self.isIdentifierStart(first) else {
                throw .parse(column: column + 1, expected: "a field name after '$'", found: describe(peek()))
            }
            return Token(kind: .field(identifier()), column: column)
        default:
            if Self.isDigit(s) { return try number(column: column) }
            if Self.isIdentifierStart(s) {
                let name = identifier()
                if let keyword = Token.Keyword(rawValue: name.lowercased()) {
                    return Token(kind: .keyword(keyword), column: column)
                }
                return Token(kind: .identifier(name), column: column)
            }
            throw .parse(column: column, expected: "an operand or operator", found: describe(s))
        }
    }

    private func describe(_ s: Unicode.Scalar?) -> String {
        guard let s else { return "end of expression" }
        return "'\(Character(s))'"
    }

    private mutating func identifier() -> String {
        var text = String.UnicodeScalarView()
        while let s = peek(), Self.isIdentifierPart(s) {
            // A trailing dot is not part of a key path.
            if s == ".", !(peek(1).map(Self.isIdentifierStart) ?? false) { break }
            text.append(s)
            index += 1
        }
        return String(text)
    }

    private mutating func number(column: Int) throws(ExpressionError) -> Token {
        var text = ""
        while let s = peek(), Self.isDigit(s) { text.unicodeScalars.append(s); index += 1 }
        var isDecimal = false
        if peek() == ".", let after = peek(1), Self.isDigit(after) {
            isDecimal = true
            text.append(".")
            index += 1
            while let s = peek(), Self.isDigit(s) { text.unicodeScalars.append(s); index += 1 }
        }
        if let s = peek(), Self.isIdentifierStart(s) {
            throw .badLiteral(column: column, text: text + String(Character(s)),
                              reason: "a number may contain only digits and one '.'; exponents are not supported")
        }
        if isDecimal {
            guard text.count <= 38, let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
                throw .badLiteral(column: column, text: text, reason: "too many digits for a decimal (38 at most)")
            }
            return Token(kind: .decimal(value), column: column)
        }
        guard let value = Int64(text) else {
            throw .badLiteral(column: column, text: text, reason: "integer out of range (at most \(Int64.max))")
        }
        return Token(kind: .integer(value), column: column)
    }

    private mutating func string(quote: Unicode.Scalar, column: Int) throws(ExpressionError) -> Token {
        index += 1
        var text = String.UnicodeScalarView()
        while let s = peek() {
            index += 1
            if s == quote { return Token(kind: .string(String(text)), column: column) }
            if s == "\\" {
                guard let escaped = peek() else { break }
                index += 1
                switch escaped {
                case "\\", "'", "\"": text.append(escaped)
                case "n": text.append("\n")
                case "t": text.append("\t")
                default:
                    throw .badLiteral(column: index - 1, text: "\\" + String(Character(escaped)),
                                      reason: "unknown escape; use \\\\, \\', \\\", \\n or \\t")
                }
                continue
            }
            text.append(s)
        }
        throw .badLiteral(column: column, text: String(quote) + String(text),
                          reason: "unterminated string; close it with \(quote)")
    }

    private mutating func modifier(column: Int) throws(ExpressionError) -> Token {
        index += 1
        var options: StringOptions = []
        while let s = peek(), s != "]" {
            switch s {
            case "c", "C": options.insert(.caseInsensitive)
            case "d", "D": options.insert(.diacriticInsensitive)
            default: throw .parse(column: index + 1, expected: "modifier 'c' or 'd'", found: describe(s))
            }
            index += 1
        }
        guard peek() == "]", !options.isEmpty else {
            throw .parse(column: index + 1, expected: "a modifier [c], [d] or [cd]", found: describe(peek()))
        }
        index += 1
        return Token(kind: .modifier(options), column: column)
    }
}
