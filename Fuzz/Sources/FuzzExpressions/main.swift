import Foundation
import FuzzSupport
import RBSExpressions
import RBSMoney

/// The expression language (show_if, valid_if, filter) and the input parser: any text compiles or is refused with an
/// `ExpressionError` (with its column); what compiles evaluates without trapping, over nulls and over values.
private let scope: ExpressionScope = {
    var scope = ExpressionScope(fields: [
        ("name", .string), ("count", .int), ("amount", .decimal), ("agree", .bool), ("inn", .string), ("kind", .int),
    ])
    scope.declareField("mode", slot: 6, type: .string, domain: .options(["a", "b"]))
    scope.declareField("account", slot: 7, type: .string, domain: .digits)
    scope.declareField("day", slot: 8, type: .string, domain: .date)
    return scope
}()

private let values: [ExprValue] = [
    .string("Иван Петров"), .int(42), .decimal(Decimal(string: "1500.50")!), .bool(true), .string("7707083893"),
    .int(-1), .string("a"), .string("40702810900000000001"), .string("2026-11-26"),
]

private let nulls = [ExprValue](repeating: .null, count: 9)

private let inputTypes: [InputType] = [.text, .digits, .number, .amount(currency: "RUB"), .amount(currency: "JPY"), .date]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzExpressions(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    guard let first = bytes.first else { return 0 }
    let text = String(decoding: bytes.dropFirst(), as: UTF8.self)
    if first & 0x80 == 0 {
        for expecting in [ValueType.bool, nil] {
            guard let compiled = try? CompiledExpression.compile(text, in: scope, expecting: expecting) else { continue }
            _ = compiled.evaluate(values)
            _ = compiled.evaluate(nulls)
            _ = compiled.test(values)
            _ = compiled.test(nulls)
        }
    } else {
        let type = inputTypes[Int(first & 0x7F) % inputTypes.count]
        let limits = first & 0x40 != 0
        _ = try? InputParser.parse(text, as: type, minLength: limits ? 2 : nil, maxLength: limits ? 40 : nil,
                                   locale: first & 0x20 != 0 ? .ru : .en)
    }
    return 0
}

runFuzzer(fuzzExpressions)
