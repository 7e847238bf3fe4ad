import GRDB

/// The tables of `rbs-host serve`'s customers, added to `rbs.sqlite` by a schema step of their own (after the
/// ledger's `v1`), so a database made before customers existed gains them on first open and loses nothing.
///
/// - `customers`: one row per customer who can log in: the name, the password record (a password KDF's output
///   with its parameters and salt, never a bare hash), the TOTP secret and the Ed25519 signing key the host keeps
///   for the customer (the data folder is 0700, the file 0600) and its key id.
/// - `customer_accounts`: which core accounts belong to which customer (an account belongs to at most one).
/// - `customer_code_state`: per customer, the last accepted TOTP step, wrong codes in a row (codes and passkey
///   assertions alike) and the lock's end, as `code_state` holds them for the host's own key.
/// - `customer_passkeys` (its own later step): each passkey a customer registered — credential id, algorithm
///   (`WEBAUTHN-ES256` or `WEBAUTHN-EdDSA`), public key, its key id and the last signature counter. The newest one
///   signs; the host keeps no private key for it.
enum CustomerSchema {
    static let migration = "customers-v1"

    static func create(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE customers (
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL UNIQUE,
                password TEXT NOT NULL,
                totp_secret BLOB NOT NULL,
                signing_key BLOB NOT NULL,
                key_id TEXT NOT NULL,
                created_ms INTEGER NOT NULL
            );
            CREATE TABLE customer_accounts (
                number TEXT PRIMARY KEY NOT NULL REFERENCES accounts(number),
                customer_id INTEGER NOT NULL
            );
            CREATE INDEX customer_accounts_customer ON customer_accounts (customer_id);
            CREATE TABLE customer_code_state (
                customer_id INTEGER PRIMARY KEY NOT NULL,
                last_step INTEGER,
                failures INTEGER NOT NULL,
                locked_until_ms INTEGER
            );
            """)
    }

    static let passkeysMigration = "customers-v2-passkeys"

    static func createPasskeys(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE customer_passkeys (
                credential_id BLOB PRIMARY KEY NOT NULL,
                customer_id INTEGER NOT NULL,
                suite TEXT NOT NULL,
                public_key BLOB NOT NULL,
                key_id TEXT NOT NULL,
                sign_count INTEGER NOT NULL,
                created_ms INTEGER NOT NULL
            );
            CREATE INDEX customer_passkeys_customer ON customer_passkeys (customer_id, created_ms);
            """)
    }
}
