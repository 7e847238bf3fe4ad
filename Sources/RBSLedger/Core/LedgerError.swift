import Foundation

/// Why the ledger could not do what was asked. Rejected payments are not errors: they are ``Outcome/rejected(_:)``.
public enum LedgerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The data directory could not be created or used.
    case dataDirectory(path: String, detail: String)
    /// The database file is not an SQLite database or is damaged.
    case corruptDatabase(path: String, detail: String)
    /// The database refused an operation.
    case database(path: String, detail: String)
    /// The PostgreSQL server could not be reached, refused the login, or broke off (`--database postgres://…`).
    case server(PostgresFailure)
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
    /// The data folder holds nothing yet (no database, no `ledger-tip`, no signing key): only an explicit first
    /// start (`rbs-host init` or `rbs-host keys init`) creates a ledger.
    case firstStart(directory: String)
    /// History existed here (`known`: the tip record or a signing key) but the database does not hold it (`found`).
    case historyMissing(directory: String, found: String, known: String)
    /// A shared database without the ledger's tables, asked for what they hold (the trusted keys) before any host
    /// gave it a ledger.
    case noLedgerTables(place: String)
    /// A file of the ledger belongs to another user or others may read it.
    case notPrivate(SecureFile.Exposure)
    /// The data folder or the ledger's file was deleted, replaced or opened to others while the ledger was open
    /// (``DataFolderWatch``): nothing is read, signed or posted any more until the host is started again.
    case dataFolderChanged(DataFolderChange)
    /// The tip record `ledger-tip` cannot be read.
    case tipDamaged(path: String, detail: String)
    /// `rbs-host init` (without `--force`) where a ledger already exists.
    case alreadyInitialized(directory: String, detail: String)
    /// A request id that is empty, too long or holds control characters.
    case invalidRequestId(String)
    /// A basket's request id that was first used for one document (`run --request-id`), not for a basket.
    case requestNamesDocument(String)
    /// The basket cannot be made (empty, too large, a document twice, mixed keys).
    case basket(BasketError)
    /// A second signature (maker–checker) that cannot be given.
    case secondSignature(SecondSignatureError)
    /// A payment that repeats another (a posted one of the last 24 hours, or an earlier document of the same basket)
    /// was to be signed without the person confirming it: nothing was signed and no code was looked at.
    case unconfirmedDuplicate(Duplicate)
    /// The person authorised a review of another document than the one now to be signed (the form was changed and
    /// reviewed again since, in another window): nothing was signed and no code was looked at.
    case reviewChanged(reviewed: String, current: String)
    /// An operator's text to be kept and shown on one line (a rollback's reason) holds a character that would not show
    /// as itself there: a line break or another control, a bidirectional control or another invisible character.
    case unshowableText(what: String, character: String)
    /// `repeat N` with nothing changed built another payment than entry N signed: its recorded form was altered.
    case repeatAltered(sequence: Int64, field: String, signed: String, now: String)

    public var description: String {
        switch self {
        case .dataDirectory(let path, let detail):
            "the data directory \(path) cannot be used: \(detail)"
        case .corruptDatabase(let path, let detail):
            "the database \(path) is damaged or is not an rbs-host database (\(detail)); restore it from a backup — do not delete it, it holds the signed journal"
        case .database(let path, let detail):
            "the database \(path) refused the operation: \(detail)"
        case .server(let failure): failure.description
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
        case .firstStart(let directory):
            "there is no ledger in \(directory) yet. This is a first start: run `rbs-host keys init --name NAME` "
                + "(creates the signing key and the ledger) or `rbs-host init` (the ledger only). "
                + "If this folder held a ledger before, restore it from a backup instead"
        case .historyMissing(let directory, let found, let known):
            "the ledger's history is missing: \(found), but \(known). rbs-host refuses to start a new ledger over it "
                + "(its journal, balances, used one-time codes and lock-out would silently start again). "
                + "Restore the data folder \(directory) from a backup: copy the whole folder back (rbs.sqlite, "
                + "rbs.sqlite-wal if present, ledger-tip and the key files, mode 600, folder 700). To give up the "
                + "missing history deliberately, run `rbs-host init --force` (see README, \"Data folder\")"
        case .noLedgerTables(let place):
            "\(place) holds no ledger tables yet — give it the ledger's tables first with `rbs-host db migrate --database URL` (or `rbs-host init --database URL`)"
        case .notPrivate(let exposure):
            "the ledger's file \(exposure.description)"
        case .dataFolderChanged(.exposed(let exposure)):
            // Its own sentence: the exposure says what is wrong and its fix, which is the first thing to do.
            "the ledger stopped: while rbs-host was running, \(exposure.path) \(exposure.problem), so nothing is signed or "
                + "posted any more — run `\(exposure.fix)`, find out who changed it, then start rbs-host again (a payment "
                + "that was not acknowledged is then found by its request id or in the journal)"
        case .dataFolderChanged(let change):
            "the ledger stopped: \(change) while rbs-host was running, so nothing is signed or posted any more — put "
                + "the data folder back as it was (from a backup if its files are gone), find out who changed it, then "
                + "start rbs-host again (a payment that was not acknowledged is then found by its request id or in the journal)"
        case .tipDamaged(let path, let detail):
            "the ledger's tip record \(path) is damaged (\(detail)); restore it with the rest of the data folder from "
                + "a backup, or run `rbs-host init --force` to record the database's tip again"
        case .secondSignature(let error): error.description
        case .invalidRequestId(let id):
            "the request id \"\(id.prefix(40))\" cannot be used: give 1 to \(LedgerRequest.maximumLength) bytes without control characters"
        case .requestNamesDocument(let id):
            "request id \"\(id.prefix(40))\" was used for one document, not for a basket; give the basket a request id of its own"
        case .basket(let error): error.description
        case .unconfirmedDuplicate(let duplicate): duplicate.description + "; nothing was signed — confirm the repeat to send it anyway"
        case .reviewChanged(let reviewed, let current):
            "the document was changed after the review being signed (reviewed \(reviewed.prefix(12))…, now "
                + "\(current.prefix(12))…, reviewed again elsewhere): check the new review and sign that — nothing was "
                + "signed and no one-time code was used"
        case .repeatAltered(let sequence, let field, let signed, let now):
            "the recorded form of journal entry \(sequence) gives another payment than the one it signed (\(field): \(now), "
                + "where entry \(sequence) signed \(signed)): the recorded values were changed after it was journaled — "
                + "nothing was signed; run `rbs-host verify`, restore the data folder from a backup, and fill the form anew"
        case .unshowableText(let what, let character):
            "\(what) holds \(character), which would not show as itself on its one line: write it as one line of "
                + "visible text; nothing was changed"
        case .alreadyInitialized(let directory, let detail):
            "\(directory) already holds a ledger (\(detail)); nothing was changed. `rbs-host init --force` adopts "
                + "the database as it is, or starts a new ledger when there is none (see README, \"Data folder\")"
        }
    }
}
