/// A recursive-descent parser for the expression language.
///
/// Precedence, low to high: OR, AND, NOT, comparison / string operators / IN / BETWEEN, unary minus, primary.
struct Parser {
    /// Parentheses, NOT, unary minus, calls and sets nested deeper than this are refused.
    static let maximumDepth = 64
    /// More syntax nodes than this are refused.
    static let maximumNodes = 1_024
    /// Sources longer than this many UTF-8 bytes are refused.
    static let maximumBytes = 4_096

    private let tokens: [Token]
    private var position = 0
    private var depth = 0
    private var nodeCount = 0

    /// Parses a whole expression.
    static func parse(_ source: String) throws(ExpressionError) -> SyntaxNode {
        let bytes = source.utf8.count
        if bytes > maximumBytes {
            var used = 0
            var column = 1
            for scalar in source.unicodeScalars {
                used += UTF8.width(scalar)
                if used > maximumBytes { break }
                column += 1
            }
            throw .tooLong(column: column, bytes: bytes, limit: maximumBytes)
        }
        var lexer = Lexer(source)
        var parser = Parser(tokens: try lexer.tokenize())
        let node = try parser.parseOr()
        guard case .end = parser.current.kind else {
            throw .parse(column: parser.current.column, expected: "an operator or end of expression",
                         found: parser.current.quoted)
        }
        return node
    }

    private init(tokens: [Token]) {
        self.tokens = tokens
    }

    private var current: Token { tokens[min(position, tokens.count - 1)] }

    private mutating func advance() -> Token {
        let token = current
        if position < tokens.count - 1 { position += 1 }
        return token
    }

    private mutating func make(_ kind: SyntaxNode.Kind, at column: Int) throws(ExpressionError) -> SyntaxNode {
        nodeCount += 1
        if nodeCount > Self.maximumNodes { throw .tooManyNodes(column: column, limit: Self.maximumNodes) }
        return SyntaxNode(kind: kind, column: column)
    }

    private mutating func descend(at column: Int) throws(ExpressionError) {
        depth += 1
        if depth > Self.maximumDepth { throw .tooDeep(column: column, limit: Self.maximumDepth) }
    }

    private mutating func expect(_ kind: Token.Kind, _ what: String) throws(ExpressionError) {
        guard current.kind == kind else { throw .parse(column: current.column, expected: what, found: current.quoted) }
        _ = advance()
    }

    private var isOr: Bool {
        switch current.kind {
        case .or, .keyword(.or): true
        default: false
        }
    }

    private var isAnd: Bool {
        switch current.kind {
        case .and, .keyword(.and): true
        default: false
        }
    }

    private mutating func parseOr() throws(ExpressionError) -> SyntaxNode {
        let first = try parseAnd()
        guard isOr else { return first }
        let column = current.column
        var operands = [first]
        while isOr {
            _ = advance()
            operands.append(try parseAnd())
        }
        return try make(.or(operands), at: column)
    }

    private mutating func parseAnd() throws(ExpressionError) -> SyntaxNode {
        let first = try parseNot()
        guard isAnd else { return first }
        let column = current.column
        var operands = [first]
        while isAnd {
            _ = advance()
            operands.append(try parseNot())
        }
        return try make(.and(operands), at: column)
    }

    private mutating func parseNot() throws(ExpressionError) -> SyntaxNode {
        switch current.kind {
        case .not, .keyword(.not):
            let column = advance().column
            try descend(at: column)
            let operand = try parseNot()
            depth -= 1
            return try make(.not(operand), at: column)
        default:
            return try parseComparison()
        }
    }

    private mutating func parseComparison() throws(ExpressionError) -> SyntaxNode {
        let left = try parseUnary()
        let token = current
        switch token.kind {
        case .comparison(let op):
            _ = advance()
            return try make(.comparison(op, left, try parseUnary()), at: token.column)
        case .keyword(let keyword):
            let op: StringOperator
            switch keyword {
            case .beginswith: op = .beginsWith
            case .endswith: op = .endsWith
            case .contains: op = .contains
            case .like: op = .like
            case .matches: op = .matches
            case .in:
                _ = advance()
                let elements = try parseSet()
                return try make(.in(left, elements), at: token.column)
            case .between:
                _ = advance()
                let braceColumn = current.column
                let bounds = try parseSet()
                guard bounds.count == 2 else {
                    throw .parse(column: braceColumn, expected: "BETWEEN {low, high} with exactly two bounds",
                                 found: "\(bounds.count) element\(bounds.count == 1 ? "" : "s")")
                }
                return try make(.between(left, bounds[0], bounds[1]), at: token.column)
            default:
                return left
            }
            _ = advance()
            var options: StringOptions = []
            if case .modifier(let o) = current.kind {
                options = o
                _ = advance()
            }
            return try make(.string(op, options, left, try parseUnary()), at: token.column)
        default:
            return left
        }
    }

    private mutating func parseSet() throws(ExpressionError) -> [SyntaxNode] {
        let column = current.column
        try expect(.leftBrace, "'{' starting a set")
        try descend(at: column)
        var elements = [try parseOr()]
        while current.kind == .comma {
            _ = advance()
            elements.append(try parseOr())
        }
        try expect(.rightBrace, "',' or '}'")
        depth -= 1
        return elements
    }

    private mutating func parseUnary() throws(ExpressionError) -> SyntaxNode {
        guard current.kind == .minus else { return try parsePrimary() }
        let column = advance().column
        try descend(at: column)
        let operand = try parseUnary()
        depth -= 1
        // Fold the minus into a numeric literal, so that `$x > -1` keeps the field-versus-integer fast path.
        if case .literal(.int(let v)) = operand.kind { return try make(.literal(.int(-v)), at: column) }
        if case .literal(.decimal(let v)) = operand.kind { return try make(.literal(.decimal(-v)), at: column) }
        return try make(.negate(operand), at: column)
    }

    private mutating func parsePrimary() throws(ExpressionError) -> SyntaxNode {
        let token = advance()
        switch token.kind {
        case .integer(let v): return try make(.literal(.int(v)), at: token.column)
        case .decimal(let v): return try make(.literal(.decimal(v)), at: token.column)
        case .string(let s): return try make(.literal(.string(s)), at: token.column)
        case .keyword(.yes), .keyword(.true): return try make(.literal(.bool(true)), at: token.column)
        case .keyword(.no), .keyword(.false): return try make(.literal(.bool(false)), at: token.column)
        case .keyword(.nil), .keyword(.null): return try make(.literal(.null), at: token.column)
        case .field(let name): return try make(.name(name, explicitField: true), at: token.column)
        case .identifier(let name):
            guard current.kind == .leftParen else {
                return try make(.name(name, explicitField: false), at: token.column)
            }
            _ = advance()
            try descend(at: token.column)
            var arguments: [SyntaxNode] = []
            if current.kind != .rightParen {
                arguments.append(try parseOr())
                while current.kind == .comma {
                    _ = advance()
                    arguments.append(try parseOr())
                }
            }
            try expect(.rightParen, "',' or ')' closing the arguments of \(name)()")
            depth -= 1
            return try make(.call(name, arguments), at: token.column)
        case .leftParen:
            try descend(at: token.column)
            let inner = try parseOr()
            try expect(.rightParen, "')'")
            depth -= 1
            return inner
        default:
            throw .parse(column: token.column, expected: "a value, field, function call or '('", found: token.quoted)
        }
    }
}
