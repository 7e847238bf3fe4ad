import CRBSPlugin

/// A value as it crosses the C ABI (`rbs_value_t`), in Swift.
public enum AtomValue: Equatable, Sendable {
    case none
    case text(String)
    case integer(Int64)
    case bool(Bool)
    /// A decimal amount ("1500.50", '.' separator) and its ISO 4217 currency.
    case money(amount: String, currency: String)
    /// "YYYY-MM-DD".
    case date(String)
    /// A decimal number as text.
    case decimal(String)

    /// The value as text: what a person typed or picked; "" for none.
    public var string: String {
        switch self {
        case .none: ""
        case .text(let text), .date(let text), .decimal(let text): text
        case .integer(let value): String(value)
        case .bool(let value): value ? "true" : "false"
        case .money(let amount, _): amount
        }
    }

    public var isEmpty: Bool { string.isEmpty }

    init(_ raw: rbs_value_t) {
        func text() -> String {
            guard let data = raw.as.text.data else { return "" }
            let bytes = UnsafeRawBufferPointer(start: data, count: Int(raw.as.text.length))
            return String(decoding: bytes, as: UTF8.self)
        }
        switch Int(raw.type) {
        case Int(RBS_VALUE_TEXT): self = .text(text())
        case Int(RBS_VALUE_INTEGER): self = .integer(raw.as.integer)
        case Int(RBS_VALUE_BOOL): self = .bool(raw.as.boolean)
        case Int(RBS_VALUE_MONEY):
            self = .money(amount: raw.as.money.amount.map { String(cString: $0) } ?? "",
                          currency: raw.as.money.currency.map { String(cString: $0) } ?? "")
        case Int(RBS_VALUE_DATE): self = .date(text())
        case Int(RBS_VALUE_DECIMAL): self = .decimal(text())
        default: self = .none
        }
    }

    /// Calls `body` with this value as an `rbs_value_t` whose strings live for the call.
    func withRaw<R>(_ body: (UnsafePointer<rbs_value_t>) -> R) -> R {
        // Built with value.h's constructors, as the host and every C plugin build them.
        func pass(_ raw: rbs_value_t) -> R {
            var raw = raw
            return body(&raw)
        }
        func withText(_ type: Int, _ text: String) -> R {
            text.withCString { pass(rbs_value_of_text_type(UInt32(type), $0, UInt64(strlen($0)))) }
        }
        switch self {
        case .none: return pass(rbs_value_none())
        case .text(let text): return withText(Int(RBS_VALUE_TEXT), text)
        case .date(let text): return withText(Int(RBS_VALUE_DATE), text)
        case .decimal(let text): return withText(Int(RBS_VALUE_DECIMAL), text)
        case .integer(let value): return pass(rbs_value_integer(value))
        case .bool(let value): return pass(rbs_value_bool(value))
        case .money(let amount, let currency):
            return amount.withCString { amountPointer in
                currency.withCString { currencyPointer in pass(rbs_value_money(amountPointer, currencyPointer)) }
            }
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
