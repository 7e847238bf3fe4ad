import Crypto
import Foundation
import GRDB

/// The append-only, hash-chained record of every signed document and its outcome.
///
/// Entries are only ever inserted, in the same transaction as the posting they record; SQLite triggers refuse
/// UPDATE and DELETE. Each entry's hash covers its content and the previous entry's hash (see ``JournalEntry``),
/// and the public keys that signed are kept by key id in the `keys` table, so ``verify()`` can re-check every
/// signature without the signer's files.
public struct Journal: Sendable {
    let database: LedgerDatabase

    /// All entries in sequence order.
    public func entries() throws(LedgerError) -> [JournalEntry] {
        let rows = try database.read { db in try Row.fetchAll(db, sql: "SELECT * FROM journal ORDER BY seq") }
        var entries: [JournalEntry] = []
        entries.reserveCapacity(rows.count)
        for row in rows { entries.append(try JournalEntry(row: row)) }
        return entries
    }

    /// All entries as a JSON array (see ``JournalEntry``'s `encode(to:)` for the form), for `rbs-host journal --json`.
    public func json() throws(LedgerError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(try entries())
        } catch let error as LedgerError {
            throw error
        } catch {
            throw .database(path: database.path, detail: "journal JSON: \(error)")
        }
    }

    /// Recomputes every hash and chain link, re-checks every signature with the stored public key, and names the
    /// first bad entry: a missing sequence number, a broken link, an altered document, a bad signature or a hash
    /// that does not match the content.
    ///
    /// Entries removed from the end cannot be told from a shorter journal by the journal alone; compare the
    /// count or the last hash with one kept elsewhere for that.
    public func verify() throws(LedgerError) -> VerifyResult {
        let (rows, keyRows) = try database.read { db in
            (try Row.fetchAll(db, sql: "SELECT * FROM journal ORDER BY seq"),
             try Row.fetchAll(db, sql: "SELECT key_id, public_key FROM keys"))
        }
        var keys: [String: Data] = [:]
        for row in keyRows {
            if let id = try? row.decode(String.self, forColumn: "key_id"), let key = try? row.decode(Data.self, forColumn: "public_key") {
                keys[id] = key
            }
        }
        var expected: Int64 = 1
        var previousHash = JournalEntry.genesisHash
        for row in rows {
            let entry: JournalEntry
            do {
                entry = try JournalEntry(row: row)
            } catch {
                return .bad(sequence: expected, reason: "the entry cannot be read: \(error.description)")
            }
            if entry.sequence != expected {
                return .bad(sequence: expected, reason: entry.sequence > expected
                    ? "entry \(expected) is missing (the next entry is \(entry.sequence))"
                    : "sequence number \(entry.sequence) is out of order")
            }
            if let reason = Self.problem(with: entry, previousHash: previousHash, keys: keys) {
                return .bad(sequence: entry.sequence, reason: reason)
            }
            // The lookup key is not part of the hash: a wrong one would hide the entry from the idempotency check.
            if (try? row.decode(Int64.self, forColumn: "document_key")) != JournalEntry.documentKey(of: entry.documentId) {
                return .bad(sequence: entry.sequence, reason: "the entry's document key does not match its document id (the lookup column was altered)")
            }
            previousHash = entry.hash
            expected += 1
        }
        return .ok(rows.count)
    }

    /// What is wrong with one entry, or `nil`.
    static func problem(with entry: JournalEntry, previousHash: Data, keys: [String: Data]) -> String? {
        if entry.previousHash != previousHash {
            return "the chain is broken: its previous-hash is not the hash of entry \(entry.sequence - 1)"
        }
        if Document.id(ofCanonical: entry.document) != entry.documentId {
            return "the document bytes were altered: they no longer hash to document id \(entry.documentId)"
        }
        let document: Document
        do {
            document = try CanonicalEncoding.decode(entry.document)
        } catch {
            return "the stored document does not parse: \(error.description)"
        }
        if document.keyId != entry.keyId {
            return "the document names key \(document.keyId) but the entry says \(entry.keyId)"
        }
        guard let raw = keys[entry.keyId], SigningIdentity.keyId(ofRaw: raw) == entry.keyId,
              let publicKey = try? Curve25519.Signing.PublicKey(rawRepresentation: raw)
        else {
            return "the public key \(entry.keyId) is not registered (or altered), so the signature cannot be checked"
        }
        if !publicKey.isValidSignature(entry.signature, for: entry.document) {
            return "the signature does not verify with key \(entry.keyId)"
        }
        if entry.computedHash != entry.hash {
            return "the entry's content does not match its hash (an outcome field was altered)"
        }
        return nil
    }

    /// The last entry's sequence number and hash (0 and the genesis hash for an empty journal).
    static func tip(_ db: Database) throws -> (sequence: Int64, hash: Data) {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT seq, hash FROM journal ORDER BY seq DESC LIMIT 1")) else {
            return (0, JournalEntry.genesisHash)
        }
        return (try row.decode(Int64.self, forColumn: "seq"), try row.decode(Data.self, forColumn: "hash"))
    }
}
