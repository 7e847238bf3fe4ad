import Foundation

/// An OCRA challenge issued by `run … --challenge` and waiting for its response.
public struct PendingChallenge: Sendable, Hashable {
    /// The document the challenge was derived from (its nonce and time are reused when the response comes).
    public let document: Document
    public let challenge: String
    public let issuedAt: Date
}

extension Ledger {
    /// How long an issued challenge waits for its response, in seconds.
    public static let challengeLifetimeSeconds: Int64 = 300

    /// The enrolled method and its secret.
    public func authenticator() throws(LedgerError) -> Authenticator {
        try identity().authenticator
    }

    /// The OCRA challenge of `document` under the enrolled suite, or `nil` when the enrolled method is TOTP (whose
    /// code does not depend on the document).
    public func challenge(for document: Document) throws(LedgerError) -> String? {
        guard case .ocra(let suite, _) = try authenticator() else { return nil }
        return suite.challenge(forDocumentId: document.id)
    }

    /// Records `document` as waiting for the response to its challenge (for `run … --response` in another
    /// process) and returns the challenge. Challenges older than a day are forgotten on the way.
    public func issueChallenge(for document: Document) throws(LedgerError) -> String {
        guard let challenge = try challenge(for: document) else {
            throw .code(.wrongMethod(enrolled: .totp, detail: "there is no challenge; sign with the 6-digit code (`run … --code CODE`)"))
        }
        let now = Timestamp.milliseconds(clock())
        try database.write { db in
            try db.execute("DELETE FROM ocra_pending WHERE issued_ms < ?", now - 86_400_000)
            // A new challenge for the same document replaces the waiting one (issued again, now).
            try db.execute(
                """
                    INSERT INTO ocra_pending (document_id, document, challenge, operation, plugin, issued_ms)
                    VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (document_id) DO UPDATE SET document = excluded.document, challenge = excluded.challenge,
                        operation = excluded.operation, plugin = excluded.plugin, issued_ms = excluded.issued_ms
                    """,
                document.id, document.canonicalBytes, challenge, document.operation, document.plugin, now)
        }
        return challenge
    }

    /// The challenge waiting for document `documentId`, or (without an id) the latest one issued for this
    /// operation of this plugin. Refuses when there is none or it is older than ``challengeLifetimeSeconds``.
    public func pendingChallenge(documentId: String?, operation: String, plugin: String) throws(LedgerError) -> PendingChallenge {
        let (row, answered) = try database.read { db in
            if let documentId {
                return (try db.row("SELECT * FROM ocra_pending WHERE document_id = ?", documentId),
                        try db.value(Bool.self, "SELECT 1 FROM ocra_used WHERE document_id = ?", documentId) == true)
            }
            return (try db.row(
                "SELECT * FROM ocra_pending WHERE operation = ? AND plugin = ? ORDER BY issued_ms DESC, rowid DESC LIMIT 1",
                operation, plugin), false)
        }
        let what = documentId.map { "document \($0)" } ?? "operation \(operation)"
        if answered { throw .code(.challengeUsed) }
        guard let row else { throw .code(.noPendingChallenge(what)) }
        let pending: PendingChallenge
        do {
            let bytes = try row.decode(Data.self, forColumn: "document")
            let issued = try row.decode(Int64.self, forColumn: "issued_ms")
            pending = PendingChallenge(
                document: try CanonicalEncoding.decode(bytes), challenge: try row.decode(String.self, forColumn: "challenge"),
                issuedAt: Timestamp.date(milliseconds: issued))
        } catch let error as DocumentError {
            throw .corruptDatabase(path: database.place, detail: "a waiting challenge's document does not parse: \(error.description)")
        } catch {
            throw .corruptDatabase(path: database.place, detail: "a waiting challenge cannot be read: \(error)")
        }
        try checkLifetime(issuedAt: pending.issuedAt)
        return pending
    }

    /// Refuses a challenge issued more than ``challengeLifetimeSeconds`` ago.
    func checkLifetime(issuedAt: Date) throws(LedgerError) {
        let age = Timestamp.milliseconds(clock()) - Timestamp.milliseconds(issuedAt)
        guard age <= Self.challengeLifetimeSeconds * 1000 else {
            throw .code(.challengeExpired(issuedAt: issuedAt, lifetimeSeconds: Int(Self.challengeLifetimeSeconds)))
        }
    }

    /// A document for the enrolled key with these fields and the time and nonce of the document a waiting
    /// challenge was issued for, so the same fields give the same document (and any change another one).
    public func draft(
        operation: String, plugin: String, pluginVersion: String, fields: [DocumentField], answering pending: PendingChallenge
    ) throws(LedgerError) -> Document {
        try draft(operation: operation, plugin: plugin, pluginVersion: pluginVersion, fields: fields, like: pending.document)
    }
}
