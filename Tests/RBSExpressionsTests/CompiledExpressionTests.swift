import Foundation
import Testing
@testable import RBSExpressions

@Suite("CompiledExpression")
struct CompiledExpressionTests {
    /// type (int) = slot 0, name (string) = slot 1, amount (decimal) = slot 2, flag (bool) = slot 3.
    static let scope = ExpressionScope(fields: [
        (name: "type", type: .int), (name: "name", type: .string),
        (name: "amount", type: .decimal), (name: "flag", type: .bool),
    ])

    func holds(_ source: String, _ values: [ExprValue]) throws -> Bool {
        try CompiledExpression.compile(source, in: Self.scope).test(values)
    }

    func error(_ source: String, expecting: ValueType? = .bool) -> ExpressionError? {
        do {
            _ = try CompiledExpression.compile(source, in: Self.scope, expecting: expecting)
            return nil
        } catch {
            return error
        }
    }

    @Test func seedTypeConditionWorksVerbatim() throws {
        let e = try CompiledExpression.compile("($type == 1) || ($type == 2)", in: Self.scope)
        #expect(e.test([.int(1)]))
        #expect(e.test([.int(2)]))
        #expect(!e.test([.int(3)]))
        #expect(!e.test([.null]))
        #expect(e.reads == [0])
        #expect(!e.isVolatile)
    }

    @Test func loweredConditionsAgreeWithTheEvaluatorOnNullDecimalAndMissingFields() throws {
        let sources = ["$type == 1 OR $type == 2", "$type == 1 OR $type == 2 OR $type == 7", "$type != 3", "$type < 3",
                       "$type >= 2", "$amount == 1 OR $amount == 2", "$type == 1 OR $amount == 2", "NOT ($type == 2)"]
        let rows: [[ExprValue]] = [
            [.int(1)], [.int(2)], [.int(3)], [.int(7)], [.null], [],
            [.null, .null, .decimal(2)], [.int(1), .null, .decimal(Decimal(string: "1.5")!)], [.int(9), .null, .decimal(1)],
        ]
        for source in sources {
            let compiled = try CompiledExpression.compile(source, in: Self.scope)
            for row in rows {
                #expect(compiled.test(row) == compiled.evaluate(row).isTrue, "\(source) over \(row)")
            }
        }
        #expect(try holds("$type != 3", [.null]), "a null field is unequal to every number")
        #expect(try !holds("$type < 3", [.null]), "an ordering with null is false")
        #expect(try holds("$amount == 1 OR $amount == 2", [.null, .null, .decimal(2)]), "a decimal field compares numerically")
    }

    @Test func literalsAndKeywordsAreCaseInsensitive() throws {
        #expect(try holds("yes", []))
        #expect(try holds("TRUE and not False", []))
        #expect(try !holds("no OR NO", []))
        #expect(try holds("nil == NULL", []))
        #expect(try holds("'a\\'b' == \"a'b\"", []))
        #expect(try holds("'a\\\\b' == \"a\\\\b\"", []))
        #expect(try holds("12.5 > 12", []))
        #expect(try holds("-3 < -2.5", []))
    }

    @Test func bareNamesAndDollarNamesReadFields() throws {
        #expect(try holds("type == 1 AND $type = 1", [.int(1)]))
        #expect(try holds("$type <> 2 && $type != 3", [.int(1)]))
    }

    @Test func intAndDecimalCompareNumerically() throws {
        #expect(try holds("$amount == 100", [.null, .null, .decimal(Decimal(100))]))
        #expect(try holds("$amount > 99.99 AND $amount <= 100", [.null, .null, .decimal(Decimal(100))]))
        #expect(try holds("$type == 1.0", [.int(1)]))
        #expect(try holds("1 < $type", [.int(2)]))
        #expect(try !holds("5 <= $type", [.int(2)]))
    }

    @Test func nullSemanticsFollowTheDocumentation() throws {
        let nulls: [ExprValue] = [.null, .null, .null, .null]
        #expect(try holds("$type == NIL", nulls))
        #expect(try holds("NIL == $name", nulls))
        #expect(try !holds("$type != nil", nulls))
        #expect(try holds("$type != 1", nulls))
        #expect(try !holds("$type == 1", nulls))
        #expect(try !holds("$type < 1 OR $type >= 1", nulls))
        #expect(try !holds("$name BEGINSWITH ''", nulls))
        #expect(try !holds("$type BETWEEN {0, 10}", nulls))
        #expect(try holds("$type IN {1, NIL}", nulls))
        #expect(try holds("len($name) == 0", nulls))
        #expect(try !holds("$flag", nulls))
        #expect(try holds("NOT $flag", nulls))
        #expect(try holds("$type == $amount", nulls))
        #expect(try holds("$type == NIL", []), "a slot beyond the values reads null")
    }

    @Test func stringOperatorsHonourModifiers() throws {
        let v: [ExprValue] = [.null, .string("Café Crème")]
        #expect(try holds("$name BEGINSWITH 'Café'", v))
        #expect(try !holds("$name BEGINSWITH 'café'", v))
        #expect(try holds("$name BEGINSWITH[c] 'café'", v))
        #expect(try holds("$name ENDSWITH[cd] 'CREME'", v))
        #expect(try !holds("$name ENDSWITH[c] 'CREME'", v))
        #expect(try holds("$name CONTAINS[d] 'e C'", v))
        #expect(try holds("$name contains ''", v))
    }

    @Test func likeSupportsStarAndQuestionWildcards() throws {
        let v: [ExprValue] = [.null, .string("40702810")]
        #expect(try holds("$name LIKE '407*'", v))
        #expect(try holds("$name LIKE '4?7*10'", v))
        #expect(try !holds("$name LIKE '407'", v))
        #expect(try holds("$name LIKE '*'", v))
        #expect(try holds("'ABC' LIKE[c] 'a*c'", []))
        #expect(try holds("$name LIKE $name", v), "a non-literal pattern compiles at evaluation")
    }

    @Test func matchesNeedsTheWholeString() throws {
        #expect(try holds("'12345' MATCHES '[0-9]+'", []))
        #expect(try !holds("'12345x' MATCHES '[0-9]+'", []))
        #expect(try holds("'ab' MATCHES 'a|ab'", []))
        #expect(try holds("'ABC' MATCHES[c] 'abc'", []))
    }

    @Test func inAndBetween() throws {
        #expect(try holds("$type IN {1, 2, 3}", [.int(2)]))
        #expect(try !holds("$type in {1, 3}", [.int(2)]))
        #expect(try holds("$name IN {'a', 'b'}", [.null, .string("b")]))
        #expect(try holds("$type BETWEEN {1, 3}", [.int(3)]))
        #expect(try !holds("$type BETWEEN {1, 3}", [.int(4)]))
        #expect(try holds("$amount BETWEEN {0.5, 1}", [.null, .null, .decimal(Decimal(string: "0.75")!)]))
    }

    @Test func precedenceIsOrAndNotComparison() throws {
        #expect(try holds("YES OR YES AND NO", []))
        #expect(try !holds("(YES OR YES) AND NO", []))
        #expect(try holds("NOT 1 == 2", []))
        #expect(try holds("NOT NOT YES", []))
        #expect(try holds("-$type == -2", [.int(2)]))
    }

    @Test func builtinsWork() throws {
        #expect(try holds("len('абв') == 3", []))
        #expect(try holds("trim('  x ') == 'x'", []))
        #expect(try holds("upper('ab') == 'AB' AND lower('AB') == 'ab'", []))
        #expect(try holds("isInn('1234567894') AND NOT isInn('1234567895')", []))
        #expect(try holds("isKpp('7707AB001') AND isBic('049805746')", []))
        #expect(try holds("accountKeyOk('40602810700000000025', '049805746')", []))
        #expect(try holds("isIban('GB82 WEST 1234 5698 7654 32') AND luhn('4111111111111111')", []))
        let e = try CompiledExpression.compile("trim($name)", in: Self.scope, expecting: .string)
        #expect(e.evaluate([.null, .string(" a ")]) == .string("a"))
        #expect(e.evaluate([]) == .string(""))
    }

    @Test func evaluateReturnsTypedValues() throws {
        let e = try CompiledExpression.compile("-$amount", in: Self.scope, expecting: .decimal)
        #expect(e.evaluate([.null, .null, .decimal(Decimal(5))]) == .decimal(Decimal(-5)))
        #expect(e.resultType == .decimal)
        let i = try CompiledExpression.compile("len($name)", in: Self.scope, expecting: .decimal)
        #expect(i.evaluate([.null, .string("abc")]) == .int(3))
    }

    @Test func readsListsEverySlotOnce() throws {
        let e = try CompiledExpression.compile("$flag AND ($type == 1 OR len(name) > $type)", in: Self.scope)
        #expect(e.reads == [0, 1, 3])
    }

    @Test func parseErrorsSayWhatWasExpectedAndWhere() {
        #expect(error("$type == ") == .parse(column: 10, expected: "a value, field, function call or '('", found: "end of expression"))
        #expect(error("($type == 1") == .parse(column: 12, expected: "')'", found: "end of expression"))
        #expect(error("$type == 1 2")?.column == 12)
        #expect(error("$type & 1")?.column == 7)
        #expect(error("'abc")?.column == 1)
        #expect(error("1e3 > 1")?.column == 1)
        #expect(error("99999999999999999999 > 1")?.column == 1)
        #expect(error("$name LIKE[x] 'a'")?.column == 12)
        #expect(error("$type BETWEEN {1}")?.column == 15)
        #expect(error("$type IN 1")?.column == 10)
        #expect(error("$ == 1")?.column == 2)
        #expect(error("# == 1")?.column == 1)
        #expect(error("$type == 1 == 2")?.column == 12)
    }

    @Test func unknownNamesAreReportedWithColumns() {
        #expect(error("$nope == 1") == .unknownField(column: 1, name: "nope"))
        #expect(error("1 == nope") == .unknownField(column: 6, name: "nope"))
        #expect(error("frob(1)") == .unknownFunction(column: 1, name: "frob"))
        #expect(error("$len == 1") == .unknownField(column: 1, name: "len"))
    }

    @Test func typeErrorsAreCaughtAtCompileTime() {
        #expect(error("$name == 1")?.column == 7)
        if case .typeMismatch = error("$name == 1") {} else { Issue.record("expected a type mismatch") }
        #expect(error("NOT $name")?.column == 1)
        #expect(error("$type AND YES")?.column == 1)
        #expect(error("$flag < YES") != nil)
        #expect(error("$type < NIL") != nil)
        #expect(error("$type BEGINSWITH 'a'") != nil)
        #expect(error("-$name == 1") != nil)
        #expect(error("$type IN {1, 'a'}")?.column == 14)
        #expect(error("len(1) == 1")?.column == 5)
        #expect(error("len('a', 'b') == 1") == .argumentCount(column: 1, function: "len", expected: 1, found: 2))
        #expect(error("len") == .argumentCount(column: 1, function: "len", expected: 1, found: 0))
        #expect(error("$type") != nil, "an int where bool is expected")
        #expect(error("$type", expecting: .int) == nil)
        #expect(error("$name", expecting: .decimal) != nil)
    }

    @Test func badRegexIsACompileErrorAtThePattern() {
        guard case .regex(let column, let pattern, _)? = error("$name MATCHES '[a-'") else {
            Issue.record("expected a regex error")
            return
        }
        #expect(column == 15)
        #expect(pattern == "[a-")
    }

    @Test func limitsAreEnforced() {
        let deep = String(repeating: "(", count: 65) + "YES" + String(repeating: ")", count: 65)
        #expect(error(deep) == .tooDeep(column: 65, limit: 64))
        let fine = String(repeating: "(", count: 60) + "YES" + String(repeating: ")", count: 60)
        #expect(error(fine) == nil)
        let wide = Array(repeating: "1 == 1", count: 400).joined(separator: " OR ")
        if case .tooManyNodes = error(wide) {} else { Issue.record("expected too many nodes") }
        let long = "YES" + String(repeating: " ", count: 4_100)
        #expect(error(long) == .tooLong(column: 4_097, bytes: 4_103, limit: 4_096))
        let nots = String(repeating: "NOT ", count: 70) + "YES"
        if case .tooDeep = error(nots) {} else { Issue.record("expected too deep") }
    }

    @Test func errorDescriptionsNameTheColumnAndProblem() {
        let text = error("$type == 'a'")?.description ?? ""
        #expect(text.contains("column 7"))
        #expect(text.contains("int"))
        #expect(text.contains("string"))
    }

    @Test func fieldsShadowZeroArgumentFunctionsOnlyForBareNames() throws {
        var scope = Self.scope
        scope.declareField("isInn", slot: 4, type: .bool)
        let e = try CompiledExpression.compile("isInn == YES", in: scope)
        #expect(e.test([.null, .null, .null, .null, .bool(true)]))
    }

    @Test func mismatchedRuntimeValuesNeverCrash() throws {
        let e = try CompiledExpression.compile(
            "$type == 1 OR $type > 2 OR $name BEGINSWITH 'a' OR $amount BETWEEN {1, 2} OR -$type == 1", in: Self.scope)
        #expect(!e.test([.string("x"), .int(3), .bool(true), .string("z")]))
        let neg = try CompiledExpression.compile("-$type", in: Self.scope, expecting: .int)
        #expect(neg.evaluate([.int(.min)]) == .null)
    }

    @Test("a comparison that can never be true is refused: enum non-options, letters against digits-only fields")
    func neverTrueComparisons() throws {
        var scope = ExpressionScope()
        scope.declareField("operator", slot: 0, type: .string, domain: .options(["MTS", "BEELINE"]))
        scope.declareField("kind", slot: 1, type: .int, domain: .options(["1", "2"]))
        scope.declareField("inn", slot: 2, type: .string, domain: .digits)
        func refusal(_ source: String) -> String? {
            do { _ = try CompiledExpression.compile(source, in: scope); return nil } catch { return error.description }
        }
        #expect(refusal("operator == 'OTHER'") == "column 13: operator can never be 'OTHER': its options are 'MTS', 'BEELINE'")
        #expect(refusal("'OTHER' != $operator") == "column 1: operator can never be 'OTHER': its options are 'MTS', 'BEELINE'")
        #expect(refusal("operator IN {'MTS', 'TELE2'}")?.contains("operator can never be 'TELE2'") == true)
        #expect(refusal("$kind == 3") == "column 10: kind can never be 3: its options are '1', '2'")
        #expect(refusal("$inn == '77O7083893'")?.contains("inn can never be '77O7083893': it holds digits only") == true)
        #expect(refusal("$inn CONTAINS 'x'")?.contains("inn can never contain 'x': it holds digits only") == true)
        #expect(refusal("operator BEGINSWITH 'T'")?.contains("operator can never begin with 'T'") == true)
        // What can be true compiles: options, NIL, digits, ordering, other fields.
        for source in ["operator == 'MTS'", "operator IN {'MTS', 'BEELINE'}", "$kind == 2 OR $kind == NIL",
                       "$inn == '7707083893'", "$inn == ''", "len($inn) == 10", "$operator == $inn", "$kind > 5",
                       "$inn BEGINSWITH '77'", "operator ENDSWITH 'LINE'", "operator CONTAINS[c] 'mts'", "$inn CONTAINS ''"] {
            #expect(refusal(source) == nil, "\(source)")
        }
    }
}
