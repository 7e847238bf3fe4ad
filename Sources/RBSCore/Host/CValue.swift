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

    /// What a plugin handed in (`set_value`), converted directly to a typed value for `atom` — never through the
    /// parser of what a person types: an INTEGER is never a list number, TEXT is never an amount to be read by
    /// locale. The form engine then checks the value against the atom's kind, type and currency.
    static func typed(_ raw: rbs_value_t, for atom: AtomDescriptor) -> Result<AtomValue, FormSessionError> {
        func text() -> Result<String, FormSessionError> {
            guard let data = raw.as.text.data else { return .failure(.badPluginValue("text is NULL")) }
            let length = Int(clamping: raw.as.text.length)
            guard length <= DescriptorReader.maxText * 16 else {
                return .failure(.badPluginValue("text of \(raw.as.text.length) bytes is too long"))
            }
            let bytes = UnsafeRawBufferPointer(start: data, count: length)
            guard let string = String(validating: bytes.bindMemory(to: UInt8.self), as: UTF8.self) else {
                return .failure(.badPluginValue("text is not valid UTF-8"))
            }
            return .success(string)
        }
        switch Int(raw.type) {
        case RBS_VALUE_NONE: return .success(.empty)
        case RBS_VALUE_TEXT:
            return text().map { string in
                switch atom.kind {
                case .enumeration: .option(value: string)
                case .account: .account(number: string)
                default: .text(string)
                }
            }
        case RBS_VALUE_DATE:
            return text().flatMap { string in
                guard let fields = CalendarDay.fields(of: string, .iso) else {
                    return .failure(.badPluginValue("DATE \"\(string)\" is not YYYY-MM-DD"))
                }
                return .success(.date(year: fields.year, month: fields.month, day: fields.day))
            }
        case RBS_VALUE_DECIMAL:
            return text().flatMap { string in
                guard let number = DecimalText.parse(string) else {
                    return .failure(.badPluginValue("DECIMAL \"\(string)\" is not plain decimal text (-?digits[.digits], no leading zeros, at most 30 digits)"))
                }
                return .success(.number(number))
            }
        case RBS_VALUE_INTEGER:
            // An enum whose options are numbers takes the option with that value (never the list position).
            if atom.kind == .enumeration { return .success(.option(value: String(raw.as.integer))) }
            return .success(.number(Decimal(raw.as.integer)))
        case RBS_VALUE_BOOL: return .success(.toggle(raw.as.boolean))
        case RBS_VALUE_MONEY:
            guard let amountPointer = raw.as.money.amount, let currencyPointer = raw.as.money.currency else {
                return .failure(.badPluginValue("money amount or currency is NULL"))
            }
            let amount = String(cString: amountPointer), currency = String(cString: currencyPointer)
            guard let number = DecimalText.parse(amount) else {
                return .failure(.badPluginValue("MONEY amount \"\(amount)\" is not plain decimal text (-?digits[.digits], no leading zeros, at most 30 digits)"))
            }
            return .success(.money(number, currency: currency))
        default: return .failure(.badPluginValue("unknown value type \(raw.type)"))
        }
    }
}

/// Amounts as plain text with the currency's minor units ("1500.50"), through ``Money``: exact, never rounded.
public enum Amount {
    /// For people: the currency's minor units and thousands grouped by a space ("1 500 000.50").
    public static func grouped(_ value: Decimal, currency: String) -> String {
        AmountText.grouped(plain: text(value, currency: currency), groupSeparator: " ", decimalSeparator: ".")
    }

    /// An amount for people: grouped as readers of `language` write it, with all the currency's minor units and its
    /// code ("1 500,00 RUB" with a no-break space between groups in Russian, "1,500.00 RUB" in English); as written
    /// when it is not a decimal in a known currency (the core refuses such a document before this is shown).
    /// Without `code`, the number alone (for a table with a currency column).
    public static func shown(_ value: String, currency: String, _ language: HostLanguage, code: Bool = true) -> String {
        // Only plain decimal text is shown as an amount: Foundation's reader would show "1.5abc" as 1.50, not as
        // the text that is signed.
        guard let decimal = DecimalText.parse(value),
              let known = Currency(code: currency), let money = try? Money(decimal, currency: known) else {
            return currency.isEmpty || !code ? value : "\(value) \(currency)"
        }
        let number = AmountText.format(money, locale: language.amountLocale)
        return code ? "\(number) \(currency)" : number
    }

    /// ``shown(_:currency:_:)`` for money.
    public static func shown(_ money: Money, _ language: HostLanguage, code: Bool = true) -> String {
        let number = AmountText.format(money, locale: language.amountLocale)
        return code ? "\(number) \(money.currency.code)" : number
    }

    /// ``shown(_:currency:_:)`` for a decimal value (a balance).
    public static func shown(_ value: Decimal, currency: String, _ language: HostLanguage, code: Bool = true) -> String {
        shown(text(value, currency: currency), currency: currency, language, code: code)
    }

    /// `value` with exactly the minor units of `currency`; a value that does not fit them (it cannot come from a
    /// form: amounts with extra digits are refused when typed) is written in full rather than rounded.
    public static func text(_ value: Decimal, currency: String) -> String {
        guard let currency = Currency(code: currency), let money = try? Money(value, currency: currency) else {
            return value.description
        }
        return money.plain
    }
}
