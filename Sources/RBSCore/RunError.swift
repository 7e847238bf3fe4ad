import RBSLedger

/// Why a run could not start or finish. Each description says what to do next.
public enum RunError: Error, CustomStringConvertible {
    case unknownOperation(String, suggestion: String?)
    case form(FormSessionError)
    case ledger(LedgerError)

    public var description: String {
        switch self {
        case .unknownOperation(let id, let suggestion):
            "unknown operation '\(id)'" + (suggestion.map { " — did you mean '\($0)'? (see `rbs-host list`)" } ?? " — see `rbs-host list`")
        case .form(let error): error.description
        case .ledger(let error): error.description
        }
    }
}

