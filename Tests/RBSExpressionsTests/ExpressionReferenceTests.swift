import Foundation
import Testing
@testable import RBSExpressions

/// docs/EXPRESSIONS.md cannot drift: every `EXPRESSION ⇒ RESULT` line of its `expression-examples` blocks is compiled
/// over the document's example form and must give RESULT (itself an expression) or the stated error.
@Suite("The expression reference (docs/EXPRESSIONS.md)")
struct ExpressionReferenceTests {
    static let document = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/EXPRESSIONS.md")

    /// `isDestInnCorrect`, "bool()": returns true.
    static let alwaysTrue: @convention(c) () -> Bool = { true }

    /// The example form of the document: fields, their domains, their values, and one plugin function.
    static func form() throws -> (scope: ExpressionScope, values: [ExprValue]) {
        let fields: [(String, ValueType, FieldDomain?, ExprValue)] = [
            ("kind", .int, .options(["1", "2", "3"]), .int(2)),
            ("operator", .string, .options(["MTS", "BEELINE"]), .string("MTS")),
            ("name", .string, nil, .string("ООО Ромашка")),
            ("inn", .string, .digits, .string("7707083893")),
            ("kpp", .string, nil, .string("770701001")),
            ("bic", .string, .digits, .string("044525225")),
            ("account", .string, .digits, .string("40702810938000000001")),
            ("amount", .decimal, nil, .decimal(Decimal(150_050) / 100)),
            ("date", .string, .date, .string("2026-11-22")),
            ("urgent", .bool, nil, .bool(true)),
            ("note", .string, nil, .null),
        ]
        var scope = ExpressionScope()
        for (slot, field) in fields.enumerated() { scope.declareField(field.0, slot: slot, type: field.1, domain: field.2) }
        let pointer = unsafeBitCast(alwaysTrue, to: UnsafeRawPointer.self)
        scope.declareFunction(try ForeignFunction(name: "isDestInnCorrect", pointer: pointer,
                                                  signature: try FunctionSignature.parse("bool()"), isInstanceBound: false))
        return (scope, fields.map(\.3))
    }

    /// Every example line: (line number, expression, expected result text).
    static func examples() throws -> [(line: Int, expression: String, result: String)] {
        let text = try String(contentsOf: document, encoding: .utf8)
        var inBlock = false
        var found: [(Int, String, String)] = []
        for (index, line) in text.components(separatedBy: "\n").enumerated() {
            if line.hasPrefix("```") {
                inBlock = !inBlock && line == "```expression-examples"
                continue
            }
            guard inBlock else { continue }
            let parts = line.components(separatedBy: " ⇒ ")
            guard parts.count == 2 else {
                Issue.record("docs/EXPRESSIONS.md:\(index + 1): not `EXPRESSION ⇒ RESULT`: \(line)")
                continue
            }
            found.append((index + 1, parts[0], parts[1]))
        }
        return found
    }

    @Test("every example in the reference compiles and gives the stated result or error")
    func examplesHold() throws {
        let (scope, values) = try Self.form()
        let examples = try Self.examples()
        #expect(examples.count >= 80, "the reference has \(examples.count) examples")
        for example in examples {
            let place = "docs/EXPRESSIONS.md:\(example.line): \(example.expression)"
            if example.result.hasPrefix("error: ") {
                let expected = String(example.result.dropFirst("error: ".count))
                do {
                    let compiled = try CompiledExpression.compile(example.expression, in: scope, expecting: nil)
                    Issue.record("\(place) compiled (giving \(compiled.evaluate(values))) but the document says: \(expected)")
                } catch {
                    #expect(error.description == expected, "\(place)")
                }
                continue
            }
            do {
                let got = try CompiledExpression.compile(example.expression, in: scope, expecting: nil).evaluate(values)
                let want = try CompiledExpression.compile(example.result, in: ExpressionScope(), expecting: nil).evaluate([])
                #expect(Evaluator.equal(got, want) && got.type == want.type, "\(place): gives \(got), the document says \(want)")
            } catch {
                Issue.record("\(place): \(error)")
            }
        }
    }

    @Test("a condition that is not a bool is refused as the reference says")
    func conditionMustBeBool() throws {
        let (scope, _) = try Self.form()
        let text = try String(contentsOf: Self.document, encoding: .utf8)
        do {
            _ = try CompiledExpression.compile("len($name)", in: scope, expecting: .bool)
            Issue.record("len($name) compiled as a condition")
        } catch {
            let message = error.description.replacingOccurrences(of: "column 1: ", with: "")
            #expect(text.contains("`\(message)`"), "\(message)")
        }
    }

    @Test("every built-in function and operator keyword appears in the reference")
    func everythingIsDocumented() throws {
        let text = try String(contentsOf: Self.document, encoding: .utf8)
        for builtin in Builtin.allCases { #expect(text.contains("`\(builtin.rawValue)("), "\(builtin.rawValue) is not documented") }
        for keyword in ["BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES", "IN {", "BETWEEN", "AND", "&&", "OR", "||",
                        "NOT", "NIL", "[cd]", "$"] {
            #expect(text.contains(keyword), "\(keyword) is not documented")
        }
    }
}
