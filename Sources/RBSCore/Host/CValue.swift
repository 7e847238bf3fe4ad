import CRBSPlugin
import Foundation
import RBSExpressions
import RBSMoney

/// Converts between an atom's value in the host (`ExprValue`) and `rbs_value_t` at the boundary.
enum CValue {
    /// Calls `body` with `value` as the `rbs_value_t` the ABI defines for `atom`'s kind; strings live for the call.
    static func with<R>(_ value: ExprValue, for atom: AtomDescriptor, _ body: (UnsafePointer<rbs_value_t>) -> R) -> R {
        // Built with value.h's constructors, as every C plugin builds them.
        func pass(_ raw: rbs_value_t) -> R {
            var raw = raw
            return body(&raw)
        }
        func text(_ type: Int, _ string: String) -> R {
            string.withCString { pass(rbs_value_of_text_type(UInt32(type), $0, UInt64(strlen($0)))) }
        }
        switch value {
        case .null:
            return pass(rbs_value_none())
        case .bool(let flag):
            return pass(rbs_value_bool(flag))
        case .int(let number):
            // Enum values cross as the option's text; other integers as integers.
            if atom.kind == .enumeration { return text(RBS_VALUE_TEXT, String(number)) }
            return pass(rbs_value_integer(number))
        case .decimal(let decimal):
            if atom.kind == .input, atom.inputType == .amount, let currency = atom.currency {
                let amount = Amount.text(decimal, currency: currency)
                return amount.withCString { amountPointer in
                    currency.withCString { currencyPointer in pass(rbs_value_money(amountPointer, currencyPointer)) }
                }
            }
            return text(RBS_VALUE_DECIMAL, decimal.description)
        case .string(let string):
            return text(atom.kind == .input && atom.inputType == .date ? RBS_VALUE_DATE : RBS_VALUE_TEXT, string)
        }
    }

    /// `value` as an `rbs_value_t` whose strings live in `arena`.
    static func make(_ value: ExprValue, for atom: AtomDescriptor, arena: CStringArena) -> rbs_value_t {
        with(value, for: atom) { raw in
            var copy = raw.pointee
            switch Int(copy.type) {
            case RBS_VALUE_TEXT, RBS_VALUE_DATE, RBS_VALUE_DECIMAL:
                copy.as.text.data = arena.keep(String(cString: raw.pointee.as.text.data))
            case RBS_VALUE_MONEY:
                copy.as.money.amount = arena.keep(String(cString: raw.pointee.as.money.amount))
                copy.as.money.currency = arena.keep(String(cString: raw.pointee.as.money.currency))
            default: break
            }
            return copy
        }
    }

    /// What a plugin handed in, as text a person could have typed (nil for NONE), or the error.
    static func text(of raw: rbs_value_t) -> Result<String?, FormSessionError> {
        switch Int(raw.type) {
        case RBS_VALUE_NONE: return .success(nil)
        case RBS_VALUE_TEXT, RBS_VALUE_DATE, RBS_VALUE_DECIMAL:
            guard let data = raw.as.text.data else { return .failure(.badPluginValue("text is NULL")) }
            let bytes = UnsafeRawBufferPointer(start: data, count: Int(raw.as.text.length))
            guard let string = String(validating: bytes.bindMemory(to: UInt8.self), as: UTF8.self) else {
                return .failure(.badPluginValue("text is not valid UTF-8"))
            }
            return .success(string)
        case RBS_VALUE_INTEGER: return .success(String(raw.as.integer))
        case RBS_VALUE_BOOL: return .success(raw.as.boolean ? "yes" : "no")
        case RBS_VALUE_MONEY:
            guard let amount = raw.as.money.amount else { return .failure(.badPluginValue("money amount is NULL")) }
            return .success(String(cString: amount))
        default: return .failure(.badPluginValue("unknown value type \(raw.type)"))
        }
    }
}

/// Amounts as plain text with the currency's minor units ("1500.50"), through ``Money``: exact, never rounded.
public enum Amount {
    /// `value` with exactly the minor units of `currency`; a value that does not fit them (it cannot come from a
    /// form: amounts with extra digits are refused when typed) is written in full rather than rounded.
    public static func text(_ value: Decimal, currency: String) -> String {
        guard let currency = Currency(code: currency), let money = try? Money(value, currency: currency) else {
            return value.description
        }
        return money.plain
    }
}
