import Foundation

/// The functions every expression can call. A null string argument counts as "".
enum Builtin: String, Sendable, CaseIterable {
    case len, trim, upper, lower, isInn, isKpp, isBic, accountKeyOk, isIban, luhn, isCard, isUin

    /// Parameter types (all strings).
    var parameters: [ValueType] {
        self == .accountKeyOk ? [.string, .string] : [.string]
    }

    var result: ValueType {
        switch self {
        case .len: .int
        case .trim, .upper, .lower: .string
        case .isInn, .isKpp, .isBic, .accountKeyOk, .isIban, .luhn, .isCard, .isUin: .bool
        }
    }

    /// Applies the function to already evaluated arguments.
    func apply(_ first: ExprValue, _ second: ExprValue) -> ExprValue {
        let s = Self.text(first)
        switch self {
        case .len: return .int(Int64(s.count))
        case .trim: return .string(s.trimmingCharacters(in: .whitespacesAndNewlines))
        case .upper: return .string(s.uppercased())
        case .lower: return .string(s.lowercased())
        case .isInn: return .bool(Validators.isInn(s))
        case .isKpp: return .bool(Validators.isKpp(s))
        case .isBic: return .bool(Validators.isBic(s))
        case .accountKeyOk: return .bool(Validators.accountKeyOk(account: s, bic: Self.text(second)))
        case .isIban: return .bool(Validators.isIban(s))
        case .luhn: return .bool(Validators.luhn(s))
        case .isCard: return .bool(Validators.isCard(s))
        case .isUin: return .bool(Validators.isUin(s))
        }
    }

    private static func text(_ value: ExprValue) -> String {
        if case .string(let s) = value { return s }
        return ""
    }
}
