/// Why journal entry N cannot be repeated (`repeat N`).
public enum EntryFormError: Error, Sendable, Hashable, CustomStringConvertible {
    /// There is no such entry; `last` is the journal's last entry (0: the journal is empty).
    case noEntry(Int64, last: Int64)
    /// The entry exists but no form values were recorded with it.
    case noForm(Int64)
    /// The recorded form is of another operation or plugin version than the entry signed: `entry_forms` was altered.
    case altered(Int64, recorded: String, signed: String)
    case storage(LedgerError)

    public var description: String {
        switch self {
        case .noEntry(let sequence, let last):
            last == 0 ? "there is no journal entry \(sequence): the journal is empty"
                : "there is no journal entry \(sequence): the journal's entries are 1–\(last) (see journal)"
        case .noForm(let sequence):
            "journal entry \(sequence) has no recorded form values to repeat: it was signed before rbs-host kept them, "
                + "or not from a form — fill the operation with run instead"
        case .altered(let sequence, let recorded, let signed):
            "the recorded form of journal entry \(sequence) is of \(recorded), but the entry signed \(signed): the recorded "
                + "values were changed after it was journaled (run `rbs-host verify`) — fill the operation with run instead"
        case .storage(let error): error.description
        }
    }
}
