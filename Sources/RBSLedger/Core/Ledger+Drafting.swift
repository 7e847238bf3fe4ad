import Foundation
import RBSMoney

/// Drafting a document for the customer to review: its fields (with the bank's conversion quoted), its time, nonce and
/// signer's key id; and the verifier of the customer's one-time codes.
extension Ledger {
    /// The one-time code verifier for the enrolled method and secret.
    public func codeVerifier() throws(LedgerError) -> CodeVerifier {
        CodeVerifier(database: database, authenticator: try identity().authenticator, clock: clock)
    }

    /// A new document for the enrolled key: now (from the clock), a fresh nonce, the key id filled in.
    public func draft(
        operation: String, plugin: String, pluginVersion: String, fields: [DocumentField]
    ) throws(LedgerError) -> Document {
        try draft(operation: operation, plugin: plugin, pluginVersion: pluginVersion, fields: fields, keyId: try identity().keyId)
    }

    /// A new document for the key `keyId` (a customer's): now, a fresh nonce.
    public func draft(
        operation: String, plugin: String, pluginVersion: String, fields: [DocumentField], keyId: String
    ) throws(LedgerError) -> Document {
        // A transfer between own accounts in two currencies carries the bank's conversion (``Conversion``): drafted
        // here, so every front end reviews and signs the same rate.
        let fields = try bank.quoted(fields)
        do {
            return try Document(
                operation: operation, plugin: plugin, pluginVersion: pluginVersion, fields: fields,
                createdAt: clock(), nonce: Document.randomNonce(), keyId: keyId)
        } catch {
            throw .document(error)
        }
    }
}
