import Foundation
import RBSCore
import RBSLedger

/// The server's one place where JSON values meet the form: what a client sends for an atom becomes the typed
/// ``AtomValue`` the form session commits (``FormSession/commit(_:value:)``) — typed text of amounts, numbers and
/// dates through the front ends' one reader (``FormInput``), so the same text means the same value in the REPL, the
/// CLI and here — and an atom's state becomes JSON.
///
/// The wire types, by atom:
/// - amount input: the text as the person typed it (`"1500.50"`, `"1 500,50"`, `"1,500.50"`), read by the same
///   parser as the REPL and `run --set` (``FormInput``, `RBSMoney.AmountText`): `"1,500"` is refused as ambiguous,
///   never guessed; or `{"amount": "1500.50", "currency": "RUB"}` (plain decimal text, for programs). Never a JSON
///   number (a binary float). The currency must be the atom's; the amount may not have more decimals than it has.
/// - number input: the typed text (`"12.5"`, `"12,5"`), read by the same parser.
/// - date input: the typed text, `ДД.ММ.ГГГГ` (`"31.03.2026"`) or ISO 8601 (`"2026-03-31"`).
/// - text and digits inputs: a string.
/// - enum: the option's value (not its title or list number).
/// - account picker: the account's 20-digit number.
/// - toggle: true or false.
/// - text and button atoms take no value. null clears any atom.
///
/// A value of the wrong JSON type is a 422 `wrong-type` problem naming the atom and what it takes.
enum ValueInput {
    /// The typed value for `value` sent to `atom`, or the problem naming the atom.
    static func value(for value: JSONValue, atom: AtomDescriptor, in session: FormSession) throws(Problem) -> AtomValue {
        func wrongType(_ wanted: String) -> Problem {
            Problem("wrong-type", "The value has the wrong type for this atom", status: 422,
                    detail: "\(atom.id) (\(atom.kind)) takes \(wanted), not \(value.typeName)", atom: atom.id)
        }
        func invalid(_ detail: String) -> Problem {
            Problem("invalid-value", "The value is not accepted", status: 422, detail: "\(atom.id): \(detail)", atom: atom.id)
        }
        /// Text a person typed, read as the REPL reads it; the refusal in the session's language, naming no key.
        func typed(_ text: String) throws(Problem) -> AtomValue {
            do throws(FormSessionError) {
                return try FormInput.value(text, for: atom, in: session, reader: .script)
            } catch {
                let message: String
                switch error {
                case .invalid(_, let refusal): message = refusal
                default: message = error.description
                }
                throw Problem("invalid-value", "The value is not accepted", status: 422, detail: message, atom: atom.id)
            }
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
                guard case .string(let text) = value else { throw wrongType("a string: a number as typed, e.g. \"12.5\"") }
                return try typed(text)
            case .date:
                guard case .string(let text) = value else { throw wrongType("a string: a date as typed, 31.03.2026 or 2026-03-31") }
                return try typed(text)
            case .amount:
                let currency = atom.currency ?? "RUB"
                let wanted = "a string (the amount as typed, e.g. \"1 500,50\") or {\"amount\": \"1500.50\", \"currency\": \"\(currency)\"}"
                switch value {
                case .string(let text):
                    return try typed(text)
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

    /// Plain decimal text as programs write it in `{"amount": …}`: optional minus, digits, optionally a point and
    /// digits. Nothing else (no grouping, no comma, no exponent).
    static func decimal(_ text: String) -> Decimal? {
        var digits = text.utf8[...]
        if digits.first == UInt8(ascii: "-") { digits = digits.dropFirst() }
        let parts = digits.split(separator: UInt8(ascii: "."), maxSplits: 1, omittingEmptySubsequences: false)
        guard !parts.isEmpty, parts.count <= 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { (48...57).contains($0) } }),
              text.utf8.count <= 40 else { return nil }
        return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
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
                API.AccountChoice(number: $0.number, title: $0.title, currency: $0.currency, balance: $0.balance.plain)
            } : nil)
    }
}
