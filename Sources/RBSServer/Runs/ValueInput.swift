import Foundation
import RBSCore
import RBSLedger

/// The server's one place where JSON values meet the form: what a client sends for an atom becomes the text the
/// form session parses today (the forms issue turns this into a typed `commit(atom, value)`; only this file changes
/// then), and an atom's state becomes JSON.
///
/// The wire types: an input, enum or account atom takes a string (amounts as decimal text — never a JSON number,
/// which would be a binary float); a toggle takes true or false; text and button atoms take no value; null clears.
enum ValueInput {
    /// The text to commit for `value` sent to `atom`, or the problem naming the atom.
    static func text(for value: JSONValue, atom: AtomDescriptor) throws(Problem) -> String {
        func wrongType(_ wanted: String) -> Problem {
            Problem("wrong-type", "The value has the wrong type for this atom", status: 422,
                    detail: "\(atom.id) (\(atom.kind)) takes \(wanted), not \(value.typeName)", atom: atom.id)
        }
        switch atom.kind {
        case .text, .button:
            throw Problem("not-editable", "This atom takes no value", status: 422,
                          detail: "\(atom.id) is a \(atom.kind) atom: it shows text or is pressed, it holds no value", atom: atom.id)
        case .toggle:
            switch value {
            case .bool(let flag): return flag ? "yes" : "no"
            case .null: return "no"
            default: throw wrongType("true or false")
            }
        case .input, .enumeration, .account:
            switch value {
            case .string(let text): return text
            case .null: return ""
            default:
                throw wrongType(atom.kind == .input && atom.inputType == .amount
                                ? "a string (an amount as decimal text, e.g. \"1500.50\")" : "a string")
            }
        }
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
