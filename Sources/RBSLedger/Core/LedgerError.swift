import Foundation
import GRDB

/// Why the ledger could not do what was asked. Rejected payments are not errors: they are ``Outcome/rejected(_:)``.
public enum LedgerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The data directory could not be created or used.
    case dataDirectory(path: String, detail: String)
    /// The database file is not an SQLite database or is damaged.
    case corruptDatabase(path: String, detail: String)
    /// The database refused an operation.
    case database(path: String, detail: String)
    case keys(KeyStoreError)
    case code(OneTimeCodeError)
    case document(DocumentError)
    /// The signature does not verify with the given public key: nothing was journaled.
    case badSignature(documentId: String)
    /// The document names a different key than the one it is checked with.
    case wrongSigner(documentKeyId: String, keyId: String)
    /// Two different public keys with the same key id (practically impossible unless forged).
    case keyIdConflict(keyId: String)
    /// The core would refuse the document (``EmbeddedBank/validate(_:)``): it was not signed, journaled or posted, and
    /// no one-time code was looked at.
    case wouldBeRejected(Rejection)
    /// A stored journal row could not be read back.
    case unreadableEntry(sequence: Int64, detail: String)

    public var description: String {
        switch self {
        case .dataDirectory(let path, let detail):
            "the data directory \(path) cannot be used: \(detail)"
        case .corruptDatabase(let path, let detail):
            "the database \(path) is damaged or is not an rbs-host database (\(detail)); restore it from a backup — do not delete it, it holds the signed journal"
        case .database(let path, let detail):
            "the database \(path) refused the operation: \(detail)"
        case .keys(let error): error.description
        case .code(let error): error.description
        case .document(let error): error.description
        case .badSignature(let id):
            "the signature of document \(id) does not verify; it was not journaled or posted"
        case .wrongSigner(let documentKeyId, let keyId):
            "the document names signing key \(documentKeyId) but was checked with key \(keyId)"
        case .keyIdConflict(let keyId):
            "a different public key is already registered under key id \(keyId); the document was refused"
        case .wouldBeRejected(let rejection):
            "the bank would refuse this document: \(rejection.message) — nothing was signed and no one-time code was used"
        case .unreadableEntry(let sequence, let detail):
            "journal entry \(sequence) cannot be read: \(detail)"
        }
    }

    /// Maps a database-layer error to a ledger error naming the file.
    static func from(_ error: any Error, path: String) -> LedgerError {
        if let error = error as? LedgerError { return error }
        if let error = error as? DatabaseError {
            switch error.resultCode {
            case .SQLITE_NOTADB, .SQLITE_CORRUPT, .SQLITE_FORMAT:
                return .corruptDatabase(path: path, detail: error.message ?? "\(error.resultCode)")
            default:
                return .database(path: path, detail: error.message ?? "\(error)")
            }
        }
        return .database(path: path, detail: String(describing: error))
    }
}
