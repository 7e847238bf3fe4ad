/// One lexical token with the 1-based column (in Unicode scalars) where it starts.
struct Token: Sendable {
    /// What the token is.
    enum Kind: Sendable, Equatable {
        case integer(Int64)
        case decimal(Decimal)
        case string(String)
        /// A bare identifier: a field or a function name.
        case identifier(String)
        /// `$name`: always a field.
        case field(String)
        case keyword(Keyword)
        /// `[c]`, `[d]`, `[cd]`.
        case modifier(StringOptions)
        case leftParen, rightParen, leftBrace, rightBrace, comma, minus
        case comparison(ComparisonOperator)
        /// `&&`, `||`, `!`
        case and, or, not
        case end
    }

    /// Reserved words, matched case-insensitively.
    enum Keyword: String, Sendable, CaseIterable {
        case and, or, not, `in`, between, beginswith, endswith, contains, like, matches
        case yes, no, `true`, `false`, `nil`, null
    }

    var kind: Kind
    var column: Int

    /// The token as a person would quote it in an error message.
    var quoted: String {
        switch kind {
        case .integer(let v): "'\(v)'"
        case .decimal(let v): "'\(v)'"
        case .string(let s): "string '\(s)'"
        case .identifier(let s): "'\(s)'"
        case .field(let s): "'$\(s)'"
        case .keyword(let k): "'\(k.rawValue.uppercased())'"
        case .modifier(let o): o == [.caseInsensitive] ? "'[c]'" : o == [.diacriticInsensitive] ? "'[d]'" : "'[cd]'"
        case .leftParen: "'('"
        case .rightParen: "')'"
        case .leftBrace: "'{'"
        case .rightBrace: "'}'"
        case .comma: "','"
        case .minus: "'-'"
        case .comparison(let op): "'\(op)'"
        case .and: "'&&'"
        case .or: "'||'"
        case .not: "'!'"
        case .end: "end of expression"
        }
    }
}

import Foundation
