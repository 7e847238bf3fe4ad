import Foundation
import RBSLedger

/// Why a journal entry could not be shown or a receipt not written.
public enum ReceiptError: Error, Sendable, Hashable, CustomStringConvertible {
    case noEntry(Int64, count: Int)
    case notPosted(Int64, kind: String, reason: String?)
    case unreadable(Int64, detail: String)
    /// The TrueType font the PDF embeds is missing or not a font this writer reads.
    case font(path: String, detail: String)
    case storage(LedgerError)

    public var description: String {
        switch self {
        case .noEntry(let sequence, let count):
            count == 0 ? "there is no journal entry \(sequence): the journal is empty"
                : "there is no journal entry \(sequence): the journal has entries 1–\(count)"
        case .notPosted(let sequence, let kind, let reason):
            "journal entry \(sequence) was \(kind)" + (reason.map { " (\($0))" } ?? "")
                + ", not posted: only a posted (or accepted) entry has a receipt (see `journal show \(sequence)`)"
        case .unreadable(let sequence, let detail):
            "journal entry \(sequence)'s document cannot be read: \(detail) (run `verify`)"
        case .font(let path, let detail):
            "the PDF font \(path) cannot be used: \(detail) — install it (Debian: apt-get install fonts-dejavu-core) or use --format html|text"
        case .storage(let error): error.description
        }
    }
}
