import RBSLedger

/// Why a run could not start or finish. Each description says what to do next.
public enum RunError: Error, CustomStringConvertible {
    case unknownOperation(String, suggestion: String?)
    case form(FormSessionError)
    case ledger(LedgerError)

    public var description: String { described(listing: "rbs-host list") }

    /// The description, pointing to `listing` for the operations there are (`list` inside the REPL).
    public func described(listing: String) -> String {
        switch self {
        case .unknownOperation(let id, let suggestion):
            "unknown operation '\(id)'" + (suggestion.map { " — did you mean '\($0)'? (see `\(listing)`)" } ?? " — see `\(listing)`")
        case .form(let error): error.description
        case .ledger(let error): error.description
        }
    }
}

