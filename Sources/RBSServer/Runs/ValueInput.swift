import Foundation
import RBSCore
import RBSLedger

/// The server's one place where JSON values meet the form: what a client sends for an atom becomes the typed
/// ``AtomValue`` the form session commits (``FormSession/commit(_:value:)``) — the server reads JSON itself, it never
/// hands text to the REPL's parser — and an atom's state becomes JSON.
///
/// The wire types, by atom:
/// - amount input: a decimal string (`"1500.50"`), or `{"amount": "1500.50", "currency": "RUB"}`; never a JSON
///   number (a binary float). The currency must be the atom's; the amount may not have more decimals than it has.
/// - number input: a decimal string (`"12.5"`).
/// - date input: an ISO 8601 date string (`"2026-03-31"`).
/// - text and digits inputs: a string.
/// - enum: the option's value (not its title or list number).
/// - account picker: the account's 20-digit number.
/// - toggle: true or false.
/// - text and button atoms take no value. null clears any atom.
///
/// A value of the wrong JSON type is a 422 `wrong-type` problem naming the atom and what it takes.
enum ValueInput {
    /// The typed value for `value` sent to `atom`, or the problem naming the atom.
    static func value(for value: JSONValue, atom: AtomDescriptor) throws(Problem) -> AtomValue {
        func wrongType(_ wanted: String) -> Problem {
            Problem("wrong-type", "The value has the wrong type for this atom", status: 422,
                    detail: "\(atom.id) (\(atom.kind)) takes \(wanted), not \(value.typeName)", atom: atom.id)
        }
        func invalid(_ detail: String) -> Problem {
            Problem("invalid-value", "The value is not accepted", status: 422, detail: "\(atom.id): \(detail)", atom: atom.id)
        }
        if case .null = value { return .empty }
        switch atom.kind {
        case .text, .button:
            throw Problem("not-editable", "This atom takes no value", status: 422,
                          detail: "\(atom.id) is a \(atom.kind) atom: it shows text or is pressed, it holds no value", atom: atom.id)
        case .toggle:
            guard case .bool(let flag) = value else { throw wrongType("true or false") }
            return .toggle(flag)
        case .enumeration:
            guard case .string(let option) = value else { throw wrongType("a string: the option's value") }
            return option.isEmpty ? .empty : .option(value: option)
        case .account:
            guard case .string(let number) = value else { throw wrongType("a string: the account's number") }
            return number.isEmpty ? .empty : .account(number: number)
        case .input:
            switch atom.inputType {
            case .text:
                guard case .string(let text) = value else { throw wrongType("a string") }
                return text.isEmpty ? .empty : .text(text)
            case .digits:
                guard case .string(let text) = value else { throw wrongType("a string of digits") }
                return text.isEmpty ? .empty : .text(text)
            case .number:
                guard case .string(let text) = value else { throw wrongType("a string: a number as decimal text, e.g. \"12.5\"") }
                if text.isEmpty { return .empty }
                guard let number = decimal(text) else { throw invalid("'\(text)' is not a number: write decimal text, e.g. \"12.5\"") }
                return .number(number)
            case .date:
                guard case .string(let text) = value else { throw wrongType("a string: an ISO 8601 date, e.g. \"2026-03-31\"") }
                if text.isEmpty { return .empty }
                guard let date = isoDate(text) else { throw invalid("'\(text)' is not a date: write it as ISO 8601 YYYY-MM-DD, e.g. \"2026-03-31\"") }
                return date
            case .amount:
                let currency = atom.currency ?? "RUB"
                let wanted = "a string (an amount as decimal text, e.g. \"1500.50\") or {\"amount\": \"1500.50\", \"currency\": \"\(currency)\"}"
                switch value {
                case .string(let text):
                    if text.isEmpty { return .empty }
                    guard let amount = decimal(text) else {
                        throw invalid("'\(text)' is not an amount: write decimal text with a point, e.g. \"1500.50\"")
                    }
                    return .money(amount, currency: currency)
                case .object(let fields):
                    guard fields.count == 2, case .string(let text)? = fields["amount"], case .string(let code)? = fields["currency"] else {
                        throw wrongType(wanted)
                    }
                    guard let amount = decimal(text) else {
                        throw invalid("'\(text)' is not an amount: write decimal text with a point, e.g. \"1500.50\"")
                    }
                    return .money(amount, currency: code)
                default:
                    throw wrongType(wanted)
                }
            }
        }
    }

    /// Decimal text as JSON clients write it: optional minus, digits, optionally a point and digits. Nothing else
    /// (no grouping, no comma, no exponent): a client turns what a person typed into this.
    static func decimal(_ text: String) -> Decimal? {
        var digits = text.utf8[...]
        if digits.first == UInt8(ascii: "-") { digits = digits.dropFirst() }
        let parts = digits.split(separator: UInt8(ascii: "."), maxSplits: 1, omittingEmptySubsequences: false)
        guard !parts.isEmpty, parts.count <= 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { (48...57).contains($0) } }),
              text.utf8.count <= 40 else { return nil }
        return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
    }

    /// `YYYY-MM-DD` (whether the day exists is the form's check).
    static func isoDate(_ text: String) -> AtomValue? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]) else { return nil }
        return .date(year: year, month: month, day: day)
    }

    /// An atom as the protocol shows it.
    static func json(_ state: AtomState, accounts: [Account]) -> API.Atom {
        let atom = state.descriptor
        let value: API.Value = atom.kind == .toggle ? .flag(state.value == "yes") : .text(state.value)
        return API.Atom(
            id: atom.id, kind: atom.kind.description, caption: state.caption, hint: atom.hint,
            inputType: atom.kind == .input ? atom.inputType.description : nil,
            currency: atom.kind == .input && atom.inputType == .amount ? (atom.currency ?? "RUB") : nil,
            value: value, visible: state.visible, error: state.error, optional: atom.isOptional,
            secret: atom.flags.contains(.secret), submit: atom.flags.contains(.submit),
            maxLength: atom.maxLength > 0 ? atom.maxLength : nil,
            options: atom.kind == .enumeration ? atom.options.map { API.Option(value: $0.value, title: $0.title) } : nil,
            accounts: atom.kind == .account ? accounts.map {
                API.AccountChoice(number: $0.number, title: $0.title, currency: $0.currency, balance: Amount.text($0.balance, currency: $0.currency))
            } : nil)
    }
}
