import Foundation
import RBSMoney

/// The ledger's schema as versioned steps, the same steps for every engine: a database has applied a prefix of
/// ``steps`` and is brought up to date by applying the rest in order, each in its own transaction. A step's
/// name is its version; names never change once released (SQLite records them in `grdb_migrations`,
/// PostgreSQL in `rbs_schema_steps`). A step writes its DDL per dialect and its data changes once, in the
/// common SQL.
enum LedgerSchema {
    struct Step: Sendable {
        let name: String
        let apply: @Sendable (any SQLTransaction) throws -> Void
    }

    static let steps: [Step] = [
        Step(name: "v1", apply: v1),
        // `rbs-host serve`'s customers: a step of its own, so existing databases gain the tables on first open.
        Step(name: "customers-v1", apply: customers),
        // The ledger's identity (what `ledger-tip` names, so a replaced database is told from this one) and the
        // callers' request ids (`run --request-id`), each written in the transaction of what it records.
        Step(name: "v2", apply: identityAndRequests),
        // Dynamic linking (issue #21): how each entry was authorised, OCRA challenges waiting for their response,
        // and the challenges answered once.
        Step(name: "v2-signing-method", apply: signingMethod),
        // Every account's opening balance, kept beside its balance so `verify` reconciles the seed's accounts and
        // those `customers add` opens alike.
        Step(name: "v3-opening-balances", apply: openingBalances),
        // Customers' passkeys (issue #21): the public key of each registered WebAuthn credential and its counter.
        Step(name: "customers-v2-passkeys", apply: passkeys),
        // `repeat N` (issue #18): the values the person entered in the form of each signed entry (never secrets,
        // codes or card numbers), written in the transaction that journals the entry.
        Step(name: "v4-entry-forms", apply: entryForms),
        // Signing baskets (issue #18, #21): each basket's canonical list and the host's signature over it, stored
        // once; each journal entry names the basket it was signed in; OCRA challenges of baskets waiting for
        // their response.
        Step(name: "v4-baskets", apply: baskets),
        // Two signers (issue #18): users of a customer beyond the first, a customer's second-signer threshold, and
        // the journal entry a second signature completes (the document is journaled twice: awaiting, then final).
        Step(name: "v5-second-signer", apply: secondSigner),
        // Plugin trust shared by every host of one database (issue #17): the publisher keys trusted to sign plugins.
        // A host on the data folder's SQLite keeps its `trusted-keys` file (one host, and the start-up listing reads
        // no database); the table is made in both engines so their schemas stay one list of steps.
        Step(name: "v6-trusted-keys", apply: trustedKeys),
        // The duplicate-payment check before each signing (issue #20): posted entries by payee account, amount and
        // currency, newest first, so the check reads the few earlier payments that could repeat a new one instead of
        // scanning the journal (it had no index on any of these) — a popular payee's day of payments on every
        // signing, decoded one by one.
        Step(name: "v7-duplicate-lookup", apply: duplicateLookup),
        // Who may debit what: an account is its customer's (customer_accounts) or, with no customer, the host's own
        // signer's; a mandate lets one more key debit one account (an operator acting for a customer).
        Step(name: "v8-mandates", apply: mandates),
        // Login and one-time-code attempt limits of `serve` (issue #31): a count per key (a customer, a client
        // address) and when its window began, raised by one atomic statement per attempt, so parallel attempts cannot
        // all pass the check and a restart does not forget a lock-out.
        Step(name: "v9-login-attempts", apply: loginAttempts),
        // The bank's exchange rates (issue #34): each import of the Bank of Russia's daily rates with the bank's
        // margin, never changed (a new import adds rows), so a conversion can name the rate it used by its time.
        Step(name: "v11-rates", apply: exchangeRates),
        // Cards as the bank's products (issue #29): each card is on one account and belongs to that account's party
        // (a customer, or with no customer the host's own signer: the seed's demo customer gets two), kept masked
        // (never the full number), with its state; the core blocks and unblocks a card only for a document its own
        // party signed, and names the journal entry that last changed it.
        Step(name: "v12-cards", apply: cards),
        // Exchange between own accounts (issue #34): the bank's position in each currency a conversion passes through
        // (so each currency's postings balance) and each conversion's two legs, rate and rate time, by journal entry.
        Step(name: "v13-exchange", apply: exchanges),
        // Publisher keys with a scope and a term (issue #32 item 2, as The Update Framework delegates): the plugin ids
        // a key may sign, the last day it is trusted, and its revocation (a revoked key stays, never trusted again).
        Step(name: "v16-trust-scope", apply: trustScope),
        // Group commit at the storage floor (issue #33 item 4): the journal's document key leads with the document's
        // own `created_at` (``JournalEntry/documentKey(of:createdAtMilliseconds:)``), so a batch's keys land on the
        // index's last pages instead of one random page each; every existing entry's key is recomputed. A basket
        // keeps its documents' times, which find the entry of a document journaled before it by that key.
        Step(name: "v15-ordered-document-key", apply: orderedDocumentKey),
        // Fees (issue #32 item 4): the bank's fee income account in each currency a fee was taken in (opened by the
        // core, as its exchange positions are) and each posted fee by journal entry, so `verify` reconciles the fee
        // leg of a payment with its document and the income accounts with their postings.
        Step(name: "v17-fees", apply: fees),
        // A rejection's facts beside its journaled English message (issue #28 item 7): `journal show`, receipts and
        // a retried request say the core's reason in the reader's language from them. Presentation only: the hashed
        // message stays what the chain proves, and `verify` checks every fact against it.
        Step(name: "v18-rejection-facts", apply: rejectionFacts),
        // PostgreSQL's one-call writes (issue #30): the functions a host reads a transaction's rows through in one
        // round trip and commits its writes through in one more, checking under the ledger's lock, inside the
        // server, that what it read is unchanged (SQLite, one writer in the host's own process, needs neither).
        Step(name: "v19-one-call-writes", apply: oneCallWrites),
        // Staged rollouts (issue #32 item 3): each published plugin package with the share of customers who get it
        // and its state, and per plugin version what the hosts' runs did (runs, posts, refusals, worker faults) and
        // which parties opened them — shared by every host of one database, so a rollback is the fleet's.
        Step(name: "v20-plugin-releases", apply: pluginReleases),
        // The journal's numbers and chain hashes bound inside the server at commit (issue #30 item 2): a PostgreSQL
        // write no longer reads the tip, so payments on unrelated rows no longer conflict. Functions only.
        Step(name: "v21-chain-in-server", apply: chainInServer),
        // What a commit's queries give after its writes, answered by the commit itself: a next payment on the same
        // rows commits in one round trip on them, checked as always (issue #30). Functions only.
        Step(name: "v22-answers-after-commit", apply: answersAfterCommit),
        // Group commit's journal insert (issue #33 item 4): SQLite's once-only rule for a document's entries told by
        // a unique index on (document key, id, whether it is a second signature), PostgreSQL's rule since v5, which
        // also serves the lookups by document key, instead of a trigger's lookup (and statement journal) on every
        // insert and an index of the key alone; the basket index holds only the entries signed in a basket.
        Step(name: "v23-journal-unique-index", apply: journalUniqueIndex),
        // The same answers as each query's rows in their JSON text, not split into cells in the server: a third of
        // the server's work for them (issue #30). Functions only.
        Step(name: "v24-answers-as-rows", apply: answersAsRows),
        // The ledger's lock no longer held across the WAL's flush (issue #30 items 1–3): a commit's check and writes
        // commit without waiting for the disk, which releases the lock, and the host is answered only after a second
        // commit has flushed the WAL up to it — so the next host's check runs during this one's fsync, and the
        // flushes of several hosts' commits are one. Functions only.
        Step(name: "v25-flush-outside-lock", apply: flushOutsideLock),
        // The commit's statements as plans each server session keeps, shared by every customer, run with the values
        // the host sends beside them: no statement parsed and planned again for each payment (issue #30).
        // Functions only.
        Step(name: "v26-kept-plans", apply: keptPlans),
        // The same commit and answers, a kept plan's name made where the statement runs instead of by two function
        // calls for each statement: ~12 µs of the server's CPU a statement, ~15 statements a payment (issue #30).
        // Functions only.
        Step(name: "v27-kept-plans-inline", apply: keptPlansInline),
        // A customer's id is never given again (``customerIds(_:)``): SQLite handed a removed customer's id — the
        // highest — to the next customer added, who then had the removed one's accounts, cards, statements, request
        // ids and templates, all kept by that id.
        Step(name: "v28-customer-ids-never-reused", apply: customerIds),
        // The journal's hash chain integrated apart from the commit that stores and numbers an entry (issue #30 item
        // 2, ``integrationApart(_:)``): a commit stores the entry with the parts of its hash; whichever session
        // integrates next chains it, after the ledger's lock is released. PostgreSQL only.
        Step(name: "v29-chain-integrated-apart", apply: integrationApart),
        // No ledger-wide lock in a payment's commit (issue #30 items 1 and 2, ``sequencedApart(_:)``): an entry's id
        // from a sequence, its place in the chain (`position`) given by integration; the commit's checks hold by the
        // rows they read (SERIALIZABLE). PostgreSQL only.
        Step(name: "v30-sequenced-apart", apply: sequencedApart),
    ]

    /// The newest step's name: the schema version a current host expects.
    static var version: String { steps[steps.count - 1].name }

    // MARK: - Append-only tables

    /// DDL refusing every UPDATE (and DELETE) of `table` with `message`: a trigger in SQLite, a trigger calling
    /// `rbs_refuse` (made by `v1`) in PostgreSQL, which also refuses TRUNCATE.
    static func refuse(_ verb: String, on table: String, named name: String, _ message: String, in dialect: SQLDialect) -> String {
        switch dialect {
        case .sqlite:
            "CREATE TRIGGER \(name) BEFORE \(verb) ON \(table) BEGIN SELECT RAISE(ABORT, '\(message)'); END;"
        case .postgres:
            "CREATE TRIGGER \(name) BEFORE \(verb) ON \(table) FOR EACH \(verb == "TRUNCATE" ? "STATEMENT" : "ROW") EXECUTE FUNCTION rbs_refuse('\(message)');"
        }
    }

    /// UPDATE and DELETE refused on `table` (and TRUNCATE in PostgreSQL), with the ledger's usual names.
    static func appendOnly(_ table: String, prefix: String? = nil, changed: String, deleted: String, in dialect: SQLDialect) -> String {
        let prefix = prefix ?? table
        var ddl = [
            refuse("UPDATE", on: table, named: "\(prefix)_no_update", changed, in: dialect),
            refuse("DELETE", on: table, named: "\(prefix)_no_delete", deleted, in: dialect),
        ]
        if dialect == .postgres { ddl.append(refuse("TRUNCATE", on: table, named: "\(prefix)_no_truncate", deleted, in: dialect)) }
        return ddl.joined(separator: "\n")
    }

    /// Column types: SQLite's integer is 64-bit and its BLOB holds bytes; PostgreSQL names them BIGINT and BYTEA.
    private static func types(_ ddl: String, _ dialect: SQLDialect) -> String {
        guard dialect == .postgres else { return ddl }
        return ddl.replacingOccurrences(of: " INTEGER", with: " BIGINT").replacingOccurrences(of: " BLOB", with: " BYTEA")
    }

    /// An integer key the database numbers itself: SQLite's rowid alias, PostgreSQL's identity column.
    private static func serialKey(_ dialect: SQLDialect) -> String {
        dialect == .postgres ? "id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY" : "id INTEGER PRIMARY KEY"
    }

    // MARK: - Steps

    private static func v1(_ db: any SQLTransaction) throws {
        let d = db.dialect
        if d == .postgres {
            try db.executeScript("""
                CREATE FUNCTION rbs_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN RAISE EXCEPTION '%', TG_ARGV[0] USING ERRCODE = 'restrict_violation'; END $$;
                """)
        }
        try db.executeScript(types("""
            CREATE TABLE accounts (
                number TEXT PRIMARY KEY NOT NULL,
                currency TEXT NOT NULL,
                balance TEXT NOT NULL,
                owner TEXT NOT NULL,
                title TEXT NOT NULL,
                blocked INTEGER NOT NULL,
                position INTEGER NOT NULL
            );
            CREATE TABLE postings (
                \(serialKey(d)),
                document_id TEXT NOT NULL,
                debit TEXT NOT NULL,
                credit TEXT NOT NULL,
                amount TEXT NOT NULL,
                currency TEXT NOT NULL,
                time_ms INTEGER NOT NULL,
                journal_seq INTEGER NOT NULL
            );
            CREATE TABLE keys (
                key_id TEXT PRIMARY KEY NOT NULL,
                public_key BLOB NOT NULL,
                first_used_ms INTEGER NOT NULL
            );
            CREATE TABLE journal (
                seq INTEGER PRIMARY KEY,
                kind TEXT NOT NULL,
                document_id TEXT NOT NULL,
                document BLOB NOT NULL,
                signature BLOB NOT NULL,
                key_id TEXT NOT NULL,
                reason_code TEXT,
                reason TEXT,
                debit TEXT,
                credit TEXT,
                amount TEXT,
                currency TEXT,
                balance_after TEXT,
                recorded_ms INTEGER NOT NULL,
                prev_hash BLOB NOT NULL,
                hash BLOB NOT NULL,
                document_key INTEGER NOT NULL
            );
            CREATE TABLE code_state (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                last_step INTEGER,
                failures INTEGER NOT NULL,
                locked_until_ms INTEGER
            );
            INSERT INTO code_state (id, last_step, failures, locked_until_ms) VALUES (1, NULL, 0, NULL);
            """, d))
        switch d {
        case .sqlite:
            // SQLite: a small integer key (a hash of the id) indexed, the uniqueness of the id enforced by a trigger.
            try db.executeScript("""
                CREATE INDEX journal_document_key ON journal (document_key);
                CREATE TRIGGER journal_unique_document BEFORE INSERT ON journal
                    WHEN EXISTS (SELECT 1 FROM journal WHERE document_key = NEW.document_key AND document_id = NEW.document_id)
                    BEGIN SELECT RAISE(ABORT, 'the document is already journaled'); END;
                """)
        case .postgres:
            // PostgreSQL: the unique key on the document id itself (the lookup by document_key stays indexed).
            try db.executeScript("""
                CREATE INDEX journal_document_key ON journal (document_key);
                CREATE UNIQUE INDEX journal_unique_document ON journal (document_id);
                CREATE INDEX postings_debit ON postings (debit);
                CREATE INDEX postings_credit ON postings (credit);
                """)
        }
        try db.executeScript([
            appendOnly("journal", changed: "the journal is append-only: entries cannot be changed",
                       deleted: "the journal is append-only: entries cannot be deleted", in: d),
            appendOnly("postings", changed: "postings are append-only: they cannot be changed",
                       deleted: "postings are append-only: they cannot be deleted", in: d),
            appendOnly("keys", changed: "registered keys cannot be changed", deleted: "registered keys cannot be deleted", in: d),
        ].joined(separator: "\n"))
        for (position, account) in DemoBank.seedAccounts.enumerated() {
            let balance = account.balance.plain
            try db.execute(
                "INSERT INTO accounts (number, currency, balance, owner, title, blocked, position) VALUES (?, ?, ?, ?, ?, ?, ?)",
                account.number, account.currency, balance, account.owner, account.title, account.blocked, position)
        }
    }

    private static func customers(_ db: any SQLTransaction) throws {
        let id = serialKey(db.dialect)
        try db.executeScript(types("""
            CREATE TABLE customers (
                \(id),
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
            """, db.dialect))
    }

    private static func identityAndRequests(_ db: any SQLTransaction) throws {
        let d = db.dialect
        try db.executeScript(types("""
            CREATE TABLE ledger_identity (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                ledger_id TEXT NOT NULL,
                created_ms INTEGER NOT NULL
            );
            CREATE TABLE requests (
                customer TEXT NOT NULL,
                request_id TEXT NOT NULL,
                document_id TEXT NOT NULL,
                journal_seq INTEGER NOT NULL,
                PRIMARY KEY (customer, request_id)
            )\(d == .sqlite ? " WITHOUT ROWID" : "");
            """, d) + "\n" + [
            appendOnly("ledger_identity", changed: "the ledger id cannot be changed", deleted: "the ledger id cannot be deleted", in: d),
            appendOnly("requests", changed: "request ids are append-only: they cannot be changed",
                       deleted: "request ids are append-only: they cannot be deleted", in: d),
        ].joined(separator: "\n"))
        var generator = SystemRandomNumberGenerator()
        let ledgerId = Hex.encode((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
        try db.execute("INSERT INTO ledger_identity (id, ledger_id, created_ms) VALUES (1, ?, ?)", ledgerId, Timestamp.milliseconds(Date()))
    }

    private static func signingMethod(_ db: any SQLTransaction) throws {
        let d = db.dialect
        // `rowid` orders waiting challenges issued in the same millisecond; PostgreSQL has no implicit one.
        let rowid = d == .postgres ? "rowid BIGINT GENERATED ALWAYS AS IDENTITY," : ""
        try db.executeScript(types("""
            ALTER TABLE journal ADD COLUMN auth_method TEXT;
            ALTER TABLE journal ADD COLUMN auth_suite TEXT;
            ALTER TABLE journal ADD COLUMN auth_challenge TEXT;
            ALTER TABLE journal ADD COLUMN auth_response TEXT;
            ALTER TABLE journal ADD COLUMN auth_secret_id TEXT;
            CREATE TABLE ocra_pending (
                \(rowid)
                document_id TEXT PRIMARY KEY NOT NULL,
                document BLOB NOT NULL,
                challenge TEXT NOT NULL,
                operation TEXT NOT NULL,
                plugin TEXT NOT NULL,
                issued_ms INTEGER NOT NULL
            );
            CREATE TABLE ocra_used (
                challenge TEXT PRIMARY KEY NOT NULL,
                document_id TEXT NOT NULL,
                used_ms INTEGER NOT NULL
            );
            """, d) + "\n" + appendOnly("ocra_used", changed: "answered challenges cannot be changed",
                                       deleted: "answered challenges cannot be deleted", in: d))
    }

    /// An existing account's opening is its balance less its postings' movement (what the postings cannot
    /// explain was there from the start); it never changes afterwards.
    private static func openingBalances(_ db: any SQLTransaction) throws {
        try db.execute("ALTER TABLE accounts ADD COLUMN opening TEXT")
        var movement: [String: Decimal] = [:]
        for row in try db.rows("SELECT debit, credit, amount FROM postings") {
            guard let amount = DecimalText.parse(try row["amount"]) else { continue }
            movement[try row["debit"], default: 0] -= amount
            movement[try row["credit"], default: 0] += amount
        }
        for row in try db.rows("SELECT number, currency, balance FROM accounts") {
            let number: String = try row["number"], currency: String = try row["currency"], text: String = try row["balance"]
            guard let balance = DecimalText.parse(text) else { continue }
            let scale = Currency(code: currency)?.minorUnits ?? 2
            let opening = DecimalText.format(balance - (movement[number] ?? 0), scale: scale) ?? text
            try db.execute("UPDATE accounts SET opening = ? WHERE number = ?", opening, number)
        }
        switch db.dialect {
        case .sqlite:
            try db.executeScript("""
                CREATE TRIGGER accounts_opening_fixed BEFORE UPDATE OF opening ON accounts WHEN OLD.opening IS NOT NULL
                    BEGIN SELECT RAISE(ABORT, 'an opening balance cannot be changed'); END;
                """)
        case .postgres:
            try db.executeScript("""
                CREATE TRIGGER accounts_opening_fixed BEFORE UPDATE OF opening ON accounts FOR EACH ROW
                    WHEN (OLD.opening IS NOT NULL AND NEW.opening IS DISTINCT FROM OLD.opening)
                    EXECUTE FUNCTION rbs_refuse('an opening balance cannot be changed');
                """)
        }
    }

    private static func baskets(_ db: any SQLTransaction) throws {
        let d = db.dialect
        try db.executeScript(types("""
            CREATE TABLE baskets (
                basket_id TEXT PRIMARY KEY NOT NULL,
                list BLOB NOT NULL,
                signature BLOB NOT NULL,
                key_id TEXT NOT NULL,
                customer TEXT NOT NULL,
                recorded_ms INTEGER NOT NULL
            );
            ALTER TABLE journal ADD COLUMN basket_id TEXT;
            CREATE INDEX journal_basket ON journal (basket_id);
            CREATE TABLE basket_pending (
                basket_id TEXT PRIMARY KEY NOT NULL,
                documents BLOB NOT NULL,
                challenge TEXT NOT NULL,
                issued_ms INTEGER NOT NULL
            );
            """, d) + "\n" + appendOnly("baskets", changed: "signed baskets cannot be changed",
                                       deleted: "signed baskets cannot be deleted", in: d))
    }

    private static func passkeys(_ db: any SQLTransaction) throws {
        let rowid = db.dialect == .postgres ? "rowid BIGINT GENERATED ALWAYS AS IDENTITY," : ""
        try db.executeScript(types("""
            CREATE TABLE customer_passkeys (
                \(rowid)
                credential_id BLOB PRIMARY KEY NOT NULL,
                customer_id INTEGER NOT NULL,
                suite TEXT NOT NULL,
                public_key BLOB NOT NULL,
                key_id TEXT NOT NULL,
                sign_count INTEGER NOT NULL,
                created_ms INTEGER NOT NULL
            );
            CREATE INDEX customer_passkeys_customer ON customer_passkeys (customer_id, created_ms);
            """, db.dialect))
    }

    private static func entryForms(_ db: any SQLTransaction) throws {
        let d = db.dialect
        try db.executeScript(types("""
            CREATE TABLE entry_forms (
                journal_seq INTEGER PRIMARY KEY NOT NULL,
                operation TEXT NOT NULL,
                plugin_version TEXT NOT NULL,
                form_values TEXT NOT NULL
            );
            """, d) + "\n" + appendOnly("entry_forms", changed: "form values of journal entries cannot be changed",
                                       deleted: "form values of journal entries cannot be deleted", in: d))
    }

    private static func secondSigner(_ db: any SQLTransaction) throws {
        let d = db.dialect
        try db.executeScript(types("""
            ALTER TABLE customers ADD COLUMN member_of INTEGER;
            ALTER TABLE journal ADD COLUMN second_of INTEGER;
            CREATE TABLE customer_policies (
                customer_id INTEGER NOT NULL,
                currency TEXT NOT NULL,
                above TEXT NOT NULL,
                PRIMARY KEY (customer_id, currency)
            );
            """, d))
        // A document is journaled once, except the entry that completes its `awaiting` entry (once).
        switch d {
        case .sqlite:
            try db.executeScript("""
                DROP TRIGGER journal_unique_document;
                CREATE TRIGGER journal_unique_document BEFORE INSERT ON journal
                    WHEN EXISTS (SELECT 1 FROM journal WHERE document_key = NEW.document_key AND document_id = NEW.document_id
                                 AND (NEW.second_of IS NULL OR seq != NEW.second_of OR kind != 'awaiting-second-signature'))
                    BEGIN SELECT RAISE(ABORT, 'the document is already journaled'); END;
                """)
        case .postgres:
            try db.executeScript("""
                DROP INDEX journal_unique_document;
                CREATE UNIQUE INDEX journal_unique_document ON journal (document_id, (second_of IS NULL));
                """)
        }
    }

    /// A document is journaled once, and once more by the second signature that completes its `awaiting` entry:
    /// in SQLite by a unique index on (document key, id, whether the entry is a second signature) instead of
    /// `v5-second-signer`'s trigger, the rule PostgreSQL's `journal_unique_document` has kept since `v5` — so both
    /// engines now refuse the same inserts. The trigger looked the document up before every insert and, as any
    /// trigger that can abort, made SQLite keep a statement journal for each one; the index refuses the same
    /// duplicates (a second entry of a document, a second completion) as part of the insert. What the trigger
    /// refused beyond it — a completion naming no `awaiting` entry of its own document — no write of the ledger can
    /// make (``EmbeddedBank/complete(_:signature:keyId:publicKey:authorization:decline:in:)`` names the entry it read
    /// in the same transaction), and ``Journal/verify(authenticator:)`` proves it of every entry, with the once-only rule.
    /// The index leads with the time-ordered document key (`v15-ordered-document-key`), so a batch's new keys still
    /// land on its last pages, and it serves the lookups by key in place of `journal_document_key`.
    /// The basket index keeps only the entries signed in a basket (it is asked by basket id alone).
    private static func journalUniqueIndex(_ db: any SQLTransaction) throws {
        if db.dialect == .sqlite {
            // Built from rows the trigger kept unique, so it cannot fail on a journal the ledger wrote.
            try db.executeScript("""
                DROP TRIGGER journal_unique_document;
                DROP INDEX journal_document_key;
                CREATE UNIQUE INDEX journal_unique_document ON journal (document_key, document_id, second_of IS NULL);
                """)
        }
        try db.executeScript("""
            DROP INDEX journal_basket;
            CREATE INDEX journal_basket ON journal (basket_id) WHERE basket_id IS NOT NULL;
            """)
    }

    private static func trustedKeys(_ db: any SQLTransaction) throws {
        try db.executeScript(types("""
            CREATE TABLE trusted_keys (
                key TEXT PRIMARY KEY NOT NULL,
                name TEXT,
                added_ms INTEGER NOT NULL
            );
            """, db.dialect))
    }

    private static func trustScope(_ db: any SQLTransaction) throws {
        try db.executeScript(types("""
            ALTER TABLE trusted_keys ADD COLUMN ids TEXT NOT NULL DEFAULT '';
            ALTER TABLE trusted_keys ADD COLUMN expires TEXT;
            ALTER TABLE trusted_keys ADD COLUMN revoked_ms INTEGER;
            ALTER TABLE trusted_keys ADD COLUMN revoked_reason TEXT;
            """, db.dialect))
    }

    private static func orderedDocumentKey(_ db: any SQLTransaction) throws {
        let d = db.dialect
        try db.execute("ALTER TABLE baskets ADD COLUMN document_times TEXT")
        // Both tables are append-only: their refusal of UPDATE is lifted for this step's transaction only and made
        // again, word for word, before it commits (a failure rolls all of it back).
        let journalChanged = "the journal is append-only: entries cannot be changed", basketChanged = "signed baskets cannot be changed"
        let lift = d == .sqlite ? "DROP TRIGGER journal_no_update; DROP TRIGGER baskets_no_update;"
            : "DROP TRIGGER journal_no_update ON journal; DROP TRIGGER baskets_no_update ON baskets;"
        try db.executeScript(lift)

        // Each basket's documents' times, read from their entries while the old keys (the id's first 8 bytes) still
        // find them.
        for basket in try db.rows("SELECT basket_id, list FROM baskets") {
            let basketId: String = try basket["basket_id"]
            let list: Data = try basket["list"]
            guard let ids = try? BasketList.decode(list).documentIds else { continue }  // verify names a damaged list
            var times: [Int64] = []
            for id in ids {
                let document = try db.value(Data.self, "SELECT document FROM journal WHERE document_key = ? AND document_id = ? ORDER BY seq",
                                            legacyDocumentKey(of: id), id)
                times.append(document.flatMap(JournalEntry.createdAtMilliseconds(ofCanonical:)) ?? 0)
            }
            try db.execute("UPDATE baskets SET document_times = ? WHERE basket_id = ?", Ledger.documentTimes(times), basketId)
        }

        // Every entry's key, from its own document, a page of entries at a time (a journal can be large).
        var after: Int64 = 0
        while true {
            let page = try db.rows("SELECT seq, document_id, document FROM journal WHERE seq > ? ORDER BY seq LIMIT 5000", after)
            guard !page.isEmpty else { break }
            for row in page {
                let sequence: Int64 = try row["seq"]
                let id: String = try row["document_id"]
                let document: Data = try row["document"]
                try db.execute("UPDATE journal SET document_key = ? WHERE seq = ?",
                               JournalEntry.documentKey(of: id, canonical: document), sequence)
                after = sequence
            }
        }
        if d == .sqlite { try db.execute("REINDEX journal_document_key") }
        try db.executeScript([
            refuse("UPDATE", on: "journal", named: "journal_no_update", journalChanged, in: d),
            refuse("UPDATE", on: "baskets", named: "baskets_no_update", basketChanged, in: d),
        ].joined(separator: "\n"))
    }

    /// The document key before `v15-ordered-document-key`: the id's first 16 hex digits as a big-endian signed
    /// integer (0 for an id that is not hex) — what finds an entry in a journal that step has not rewritten yet.
    static func legacyDocumentKey(of documentId: String) -> Int64 {
        var key: UInt64 = 0
        for byte in documentId.utf8.prefix(16) {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): key = key << 4 | UInt64(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): key = key << 4 | UInt64(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): key = key << 4 | UInt64(byte - UInt8(ascii: "A") + 10)
            default: return 0
            }
        }
        return documentId.utf8.count >= 16 ? Int64(bitPattern: key) : 0
    }

    private static func duplicateLookup(_ db: any SQLTransaction) throws {
        try db.executeScript(
            "CREATE INDEX journal_posted_to ON journal (credit, amount, currency, recorded_ms) WHERE kind = 'posted';")
    }

    /// Schema step `v28-customer-ids-never-reused`: the highest customer id ever given (`customer_ids`, one row),
    /// from which ``Customers/insertLogin(name:passwordRecord:memberOf:now:in:)`` takes the next. `customers remove`
    /// deletes the login's row but keeps what the ledger keeps by its id (its accounts, blocked; cards, policies,
    /// request ids, baskets; the host keeps its templates by it), so an id used once is used by no one else. SQLite's
    /// `INTEGER PRIMARY KEY` gave the highest id again once its row was gone (PostgreSQL's identity never does). The
    /// row starts at the highest id anything still names: a database where that already happened cannot tell more.
    private static func customerIds(_ db: any SQLTransaction) throws {
        let postgres = db.dialect == .postgres
        let numeric = postgres ? "customer ~ '^[0-9]{1,18}$'"
            : "customer <> '' AND customer NOT GLOB '*[^0-9]*' AND length(customer) <= 18"
        let identity = postgres
            ? ", coalesce(pg_sequence_last_value(pg_get_serial_sequence('customers', 'id')::regclass), 0)" : ""
        try db.executeScript("""
            CREATE TABLE customer_ids (last BIGINT NOT NULL);
            INSERT INTO customer_ids (last) SELECT \(postgres ? "GREATEST" : "max")(
                coalesce((SELECT max(id) FROM customers), 0),
                coalesce((SELECT max(member_of) FROM customers), 0),
                coalesce((SELECT max(customer_id) FROM customer_accounts), 0),
                coalesce((SELECT max(customer_id) FROM cards), 0),
                coalesce((SELECT max(customer_id) FROM customer_policies), 0),
                coalesce((SELECT max(CAST(customer AS BIGINT)) FROM requests WHERE \(numeric)), 0),
                coalesce((SELECT max(CAST(customer AS BIGINT)) FROM baskets WHERE \(numeric)), 0)\(identity));
            """)
    }

    private static func mandates(_ db: any SQLTransaction) throws {
        try db.executeScript(types("""
            CREATE TABLE mandates (
                number TEXT NOT NULL REFERENCES accounts(number),
                key_id TEXT NOT NULL,
                key_name TEXT NOT NULL,
                granted_ms INTEGER NOT NULL,
                revoked_ms INTEGER,
                PRIMARY KEY (number, key_id)
            );
            """, db.dialect))
    }

    private static func exchangeRates(_ db: any SQLTransaction) throws {
        try db.executeScript(types("""
            CREATE TABLE exchange_rates (
                currency TEXT NOT NULL,
                name TEXT NOT NULL,
                rate_date TEXT NOT NULL,
                official TEXT NOT NULL,
                buy TEXT NOT NULL,
                sell TEXT NOT NULL,
                margin TEXT NOT NULL,
                imported_ms INTEGER NOT NULL,
                source TEXT NOT NULL,
                PRIMARY KEY (currency, imported_ms)
            );
            """, db.dialect) + "\n" + appendOnly("exchange_rates", changed: "exchange rates are never changed: import new ones",
                                                  deleted: "exchange rates are never deleted", in: db.dialect))
    }

    private static func exchanges(_ db: any SQLTransaction) throws {
        try db.executeScript(types("""
            CREATE TABLE exchange_positions (
                currency TEXT PRIMARY KEY NOT NULL,
                number TEXT NOT NULL UNIQUE,
                balance TEXT NOT NULL
            );
            CREATE TABLE exchanges (
                journal_seq INTEGER PRIMARY KEY NOT NULL,
                document_id TEXT NOT NULL,
                debit_amount TEXT NOT NULL,
                debit_currency TEXT NOT NULL,
                credit_amount TEXT NOT NULL,
                credit_currency TEXT NOT NULL,
                rate TEXT NOT NULL,
                pair TEXT NOT NULL,
                rate_ms INTEGER NOT NULL
            );
            """, db.dialect) + "\n" + appendOnly("exchanges", changed: "conversions are append-only: they cannot be changed",
                                                  deleted: "conversions are append-only: they cannot be deleted", in: db.dialect))
    }

    private static func pluginReleases(_ db: any SQLTransaction) throws {
        try db.executeScript(types("""
            CREATE TABLE plugin_releases (
                plugin_id TEXT NOT NULL,
                version TEXT NOT NULL,
                package BLOB NOT NULL,
                package_sha256 TEXT NOT NULL,
                percent INTEGER NOT NULL,
                state TEXT NOT NULL,
                reason TEXT,
                fault_threshold INTEGER NOT NULL,
                minimum_runs INTEGER NOT NULL,
                published_ms INTEGER NOT NULL,
                published_by TEXT NOT NULL,
                changed_ms INTEGER NOT NULL,
                PRIMARY KEY (plugin_id, version)
            );
            CREATE TABLE plugin_version_counts (
                plugin_id TEXT NOT NULL,
                version TEXT NOT NULL,
                runs INTEGER NOT NULL,
                posts INTEGER NOT NULL,
                refusals INTEGER NOT NULL,
                faults INTEGER NOT NULL,
                PRIMARY KEY (plugin_id, version)
            );
            CREATE TABLE plugin_version_parties (
                plugin_id TEXT NOT NULL,
                version TEXT NOT NULL,
                party TEXT NOT NULL,
                PRIMARY KEY (plugin_id, version, party)
            );
            """, db.dialect))
    }

    private static func rejectionFacts(_ db: any SQLTransaction) throws {
        try db.executeScript("ALTER TABLE journal ADD COLUMN reason_facts TEXT;")
    }

    private static func fees(_ db: any SQLTransaction) throws {
        try db.executeScript(types("""
            CREATE TABLE fee_income (
                currency TEXT PRIMARY KEY NOT NULL,
                number TEXT NOT NULL UNIQUE,
                balance TEXT NOT NULL
            );
            CREATE TABLE fees (
                journal_seq INTEGER PRIMARY KEY NOT NULL,
                document_id TEXT NOT NULL,
                amount TEXT NOT NULL,
                currency TEXT NOT NULL,
                account TEXT NOT NULL
            );
            """, db.dialect) + "\n" + appendOnly("fees", changed: "fees are append-only: they cannot be changed",
                                                  deleted: "fees are append-only: they cannot be deleted", in: db.dialect))
    }

    private static func loginAttempts(_ db: any SQLTransaction) throws {
        try db.executeScript(types("""
            CREATE TABLE login_attempts (
                key TEXT PRIMARY KEY NOT NULL,
                attempts INTEGER NOT NULL,
                window_start_ms INTEGER NOT NULL
            );
            CREATE INDEX login_attempts_window ON login_attempts (window_start_ms);
            """, db.dialect))
    }

    /// `rbs_v19_digest(query)`: an MD5 over the rows of a query (each as JSON, in the query's order).
    /// `rbs_v19_read(writes, queries, writes_before)`: the rows of each query as cells in column order (JSON type and
    /// text) and its digest, each query run after the first `writes_before` of the transaction's writes — which are
    /// then undone (a subtransaction rolled back): a host reads what its transaction would see, and writes nothing.
    /// `rbs_v19_commit(statements, digests)`: under the ledger's advisory lock (taken inside the server and held
    /// only while this one statement runs, never across a round trip), each statement in order: a query whose
    /// digest is not the one given refuses the whole as a serialisation failure (40001: it is run again on fresh
    /// rows), a write (digest '') runs; then the ledger's tip. `rbs_v19_commit_durably(statements, digests)`: a
    /// procedure that runs it and COMMITs before it answers, which is what a host calls (an answer only once the
    /// commit is durable, on a synchronous standby too). Nothing on SQLite.
    /// The arguments and rows of `rbs_v19_read` and of `rbs_v21_read`, which answers the same rows.
    private static let readSignature = """
        (writes TEXT[], queries TEXT[], writes_before BIGINT[])
            RETURNS TABLE (query_index INT, row_index BIGINT, column_index BIGINT, column_name TEXT, kind TEXT, value_text TEXT)
            LANGUAGE plpgsql AS $fn$
        """

    /// What `rbs_v19_commit` and `rbs_v21_commit` answer after their writes: the ledger's tip and the bank's code state.
    private static let tipAnswer = """
                (SELECT l.ledger_id FROM ledger_identity l WHERE l.id = 1),
                coalesce((SELECT j.seq FROM journal j ORDER BY j.seq DESC LIMIT 1), 0::BIGINT),
                (SELECT j.hash FROM journal j ORDER BY j.seq DESC LIMIT 1),
                (SELECT c.last_step FROM code_state c WHERE c.id = 1),
                coalesce((SELECT c.failures FROM code_state c WHERE c.id = 1), 0::BIGINT),
                (SELECT c.locked_until_ms FROM code_state c WHERE c.id = 1);
        """

    /// The digest of a query's rows: an MD5 of each row's JSON, joined by newlines. `to_json(t.*)`, the whole row even
    /// when the query has a column named `t` (`to_json(t)` took that column alone: before step `v24-answers-as-rows`,
    /// such a query's digest covered one column, and its answers could not be split).
    private static let digestFunction = """
            CREATE OR REPLACE FUNCTION rbs_v19_digest(query TEXT) RETURNS TEXT LANGUAGE plpgsql AS $fn$
            DECLARE digest TEXT;
            BEGIN
                EXECUTE 'SELECT md5(coalesce(string_agg(to_json(t.*)::text, chr(10)), '''')) FROM (' || query || ') AS t' INTO digest;
                RETURN digest;
            END $fn$;
            """
    /// The rows of one query as their JSON texts, from a plan the session keeps (`rbs_v21_lines`) once the query is
    /// seen a second time, whole rows as in ``digestFunction``.
    private static let linesFunction = """
            CREATE OR REPLACE FUNCTION rbs_v21_lines(query TEXT) RETURNS TEXT[] LANGUAGE plpgsql AS $fn$
            DECLARE
                statement_name TEXT := 'rbs_v21_' || substr(encode(sha256(convert_to(query, 'UTF8')), 'hex'), 1, 55);
                lines TEXT[];
                kept RECORD;
                seen TEXT := coalesce(current_setting('rbs.seen_queries', true), '');
            BEGIN
                -- A query first seen in this session runs as it is and is only remembered (the last 64 names): a
                -- one-off (a document id's lookup, one a payment) costs its plan once instead of a PREPARE, and no
                -- longer fills the 32 kept statements, whose sweep made every other query plan again.
                IF position(statement_name IN seen) = 0 THEN
                    IF length(seen) >= 64 * 64 THEN
                        seen := '';
                    END IF;
                    PERFORM set_config('rbs.seen_queries', seen || statement_name || ' ', false);
                    EXECUTE 'SELECT array_agg(to_json(t.*)::text) FROM (' || query || ') AS t' INTO lines;
                    RETURN lines;
                END IF;
                BEGIN
                    EXECUTE 'EXECUTE ' || statement_name INTO lines;
                    RETURN lines;
                EXCEPTION WHEN invalid_sql_statement_name THEN
                    NULL;
                END;
                IF (SELECT count(*) FROM pg_prepared_statements p WHERE p.name LIKE 'rbs\\_v21\\_%') >= 32 THEN
                    FOR kept IN SELECT p.name FROM pg_prepared_statements p WHERE p.name LIKE 'rbs\\_v21\\_%' LOOP
                        EXECUTE 'DEALLOCATE ' || quote_ident(kept.name);
                    END LOOP;
                END IF;
                EXECUTE 'PREPARE ' || statement_name || ' AS SELECT array_agg(to_json(t.*)::text) FROM (' || query || ') AS t';
                EXECUTE 'EXECUTE ' || statement_name INTO lines;
                RETURN lines;
            END $fn$;
            """

    private static func oneCallWrites(_ db: any SQLTransaction) throws {
        guard db.dialect == .postgres else { return }
        try db.executeScript("""
            \(digestFunction)
            CREATE OR REPLACE FUNCTION rbs_v19_read\(readSignature)
            DECLARE
                i INT;
                done BIGINT := 0;
                r RECORD;
                cell RECORD;
                n BIGINT;
                a_query INT[] := '{}';
                a_row BIGINT[] := '{}';
                a_column BIGINT[] := '{}';
                a_name TEXT[] := '{}';
                a_kind TEXT[] := '{}';
                a_value TEXT[] := '{}';
            BEGIN
                -- A write run only to read after it never waits for another transaction's row: it is skipped instead
                -- (waiting could deadlock with a commit that waits for this one, and costs a second to detect).
                PERFORM set_config('lock_timeout', '5ms', true);
                BEGIN
                    FOR i IN 1 .. coalesce(array_length(queries, 1), 0) LOOP
                        WHILE done < writes_before[i] LOOP
                            done := done + 1;
                            -- A write the host made on a guess may fail (a key registered since): the queries after it
                            -- then see the state without it, and the host, deciding on these rows, asks again.
                            BEGIN
                                EXECUTE writes[done];
                            EXCEPTION WHEN OTHERS THEN
                                NULL;
                            END;
                        END LOOP;
                        n := 0;
                        FOR r IN EXECUTE queries[i] LOOP
                            n := n + 1;
                            FOR cell IN SELECT e.key AS name, e.value AS json, e.position FROM json_each(to_json(r)) WITH ORDINALITY AS e (key, value, position) LOOP
                                a_query := a_query || i;
                                a_row := a_row || n;
                                a_column := a_column || cell.position;
                                a_name := a_name || cell.name;
                                a_kind := a_kind || json_typeof(cell.json);
                                a_value := a_value || (cell.json #>> '{}');
                            END LOOP;
                        END LOOP;
                        a_query := a_query || i;
                        a_row := a_row || 0::BIGINT;
                        a_column := a_column || 0::BIGINT;
                        a_name := a_name || NULL::TEXT;
                        a_kind := a_kind || 'digest'::TEXT;
                        a_value := a_value || rbs_v19_digest(queries[i]);
                    END LOOP;
                    RAISE EXCEPTION 'the writes were run only to read after them' USING ERRCODE = 'RBS01';
                EXCEPTION WHEN SQLSTATE 'RBS01' THEN
                    NULL;
                END;
                RETURN QUERY SELECT * FROM unnest(a_query, a_row, a_column, a_name, a_kind, a_value);
            END $fn$;
            CREATE OR REPLACE FUNCTION rbs_v19_commit(statements TEXT[], digests TEXT[])
                RETURNS TABLE (tip_ledger_id TEXT, tip_seq BIGINT, tip_hash BYTEA, code_step BIGINT, code_failures BIGINT, code_locked_until BIGINT)
                LANGUAGE plpgsql AS $fn$
            DECLARE i INT;
            BEGIN
                PERFORM pg_advisory_xact_lock(\(PostgresStore.ledgerLock));
                FOR i IN 1 .. coalesce(array_length(statements, 1), 0) LOOP
                    IF digests[i] = '' THEN
                        EXECUTE statements[i];
                    ELSIF rbs_v19_digest(statements[i]) IS DISTINCT FROM digests[i] THEN
                        RAISE EXCEPTION 'rows this transaction read changed before it committed (statement %)', i
                            USING ERRCODE = '40001';
                    END IF;
                END LOOP;
                RETURN QUERY SELECT
            \(tipAnswer)
            END $fn$;
            CREATE OR REPLACE PROCEDURE rbs_v19_commit_durably(statements TEXT[], digests TEXT[],
                INOUT tip_ledger_id TEXT DEFAULT NULL, INOUT tip_seq BIGINT DEFAULT NULL, INOUT tip_hash BYTEA DEFAULT NULL,
                INOUT code_step BIGINT DEFAULT NULL, INOUT code_failures BIGINT DEFAULT NULL, INOUT code_locked_until BIGINT DEFAULT NULL)
                LANGUAGE plpgsql AS $fn$
            BEGIN
                SELECT c.tip_ledger_id, c.tip_seq, c.tip_hash, c.code_step, c.code_failures, c.code_locked_until
                    INTO tip_ledger_id, tip_seq, tip_hash, code_step, code_failures, code_locked_until
                    FROM rbs_v19_commit(statements, digests) AS c;
                -- Committed here, before the answer row is sent: a client library may take the row (and the command's
                -- completion) as the answer before the implicit transaction's own commit, which comes after them.
                COMMIT;
            END $fn$;
            """)
    }

    /// The journal's number and chain hash bound inside the server at commit, under the ledger's lock (PostgreSQL's
    /// one-call writes, ``SpeculativeTransaction``'s provisional numbers): `rbs_v21_commit` reads the tip once under the
    /// lock and keeps it as the transaction's `rbs.journal_base`; `rbs_v21_seq(k)` is `base+k`; `rbs_v21_prev(k)` the
    /// hash of the entry before `base+k` (written earlier in the same transaction, or the tip; 32 zero bytes before
    /// the first); `rbs_v21_hash(k, before, between)` the SHA-256 that ``JournalEntry/computedHash`` is — the host's
    /// bytes before the number, the number as a part (a 4-byte big-endian length and its decimal text), the host's
    /// bytes between, the predecessor's hash as a part — so the stored hashes are the very bytes `verify` checks.
    /// `rbs_v21_read` answers what `rbs_v19_read` does, with the base set to the current tip (a query read after an
    /// entry's insert), running each query once (its digest made from the rows read) and cells split in one statement;
    /// `rbs_v21_commit_durably` also answers the base (`journal_base`), from which the host maps its numbers. Nothing
    /// on SQLite, whose one writer numbers entries in its transaction as before.
    private static func chainInServer(_ db: any SQLTransaction) throws {
        guard db.dialect == .postgres else { return }
        try db.executeScript("""
            CREATE OR REPLACE FUNCTION rbs_v21_seq(k BIGINT) RETURNS BIGINT LANGUAGE sql VOLATILE AS $fn$
                SELECT current_setting('rbs.journal_base')::BIGINT + k
            $fn$;
            -- plpgsql, not sql: a sql function that is not inlined (these read the journal) is planned again on
            -- every call of the statement that calls it; plpgsql keeps its plans for the session.
            CREATE OR REPLACE FUNCTION rbs_v21_prev(k BIGINT) RETURNS BYTEA LANGUAGE plpgsql VOLATILE AS $fn$
            DECLARE number BIGINT := rbs_v21_seq(k);
            BEGIN
                IF number = 1 THEN
                    RETURN decode(repeat('00', 32), 'hex');
                END IF;
                RETURN (SELECT j.hash FROM journal j WHERE j.seq = number - 1);
            END $fn$;
            CREATE OR REPLACE FUNCTION rbs_v21_hash(k BIGINT, part_before BYTEA, part_between BYTEA) RETURNS BYTEA LANGUAGE plpgsql VOLATILE AS $fn$
            DECLARE
                number TEXT := rbs_v21_seq(k)::TEXT;
                previous BYTEA := rbs_v21_prev(k);
            BEGIN
                RETURN sha256(part_before || int4send(octet_length(number)) || convert_to(number, 'UTF8')
                              || part_between || int4send(length(previous)) || previous);
            END $fn$;
            -- The rows of one query, each as its JSON text, in the query's order (the bytes rbs_v19_digest joins and
            -- hashes), from a prepared statement the session keeps under a name made of the query's SHA-256: the
            -- same query asked again (a host's account, key, code state, policy: every payment; the read round's
            -- queries again at commit) runs its plan instead of being parsed and planned anew, which was most of
            -- their cost. The name is 220 bits of the SHA-256 of the exact text, so a different text never runs
            -- under it; at 32 kept statements the session drops them all and starts again (one-off queries such
            -- as a document id's do not accumulate). A statement stays valid across schema changes (PostgreSQL
            -- re-plans it), and PREPARE is not undone by a rollback, so a refused commit keeps its plans too.
            \(linesFunction)
            CREATE OR REPLACE FUNCTION rbs_v21_base() RETURNS BIGINT LANGUAGE plpgsql VOLATILE AS $fn$
            DECLARE base BIGINT;
            BEGIN
                base := coalesce((SELECT j.seq FROM journal j ORDER BY j.seq DESC LIMIT 1), 0::BIGINT);
                PERFORM set_config('rbs.journal_base', base::TEXT, true);
                RETURN base;
            END $fn$;
            CREATE OR REPLACE FUNCTION rbs_v21_read\(readSignature)
            DECLARE
                i INT;
                done BIGINT := 0;
                n INT;
                \(linesVariables)
            BEGIN
                PERFORM rbs_v21_base();
                -- As rbs_v19_read (the writes run only to read after them, then undone; a write that would wait is
                -- skipped), but each query runs once, from its kept plan (rbs_v21_lines): its digest is made from
                -- the rows as they are read (the bytes rbs_v19_digest makes: each row's JSON, joined by newlines),
                -- and the rows are split into cells in one statement at the end.
                PERFORM set_config('lock_timeout', '5ms', true);
                BEGIN
                    FOR i IN 1 .. coalesce(array_length(queries, 1), 0) LOOP
                        WHILE done < writes_before[i] LOOP
                            done := done + 1;
                            BEGIN
                                EXECUTE writes[done];
                            EXCEPTION WHEN OTHERS THEN
                                NULL;
                            END;
                        END LOOP;
                        \(collectLines)
                    END LOOP;
                    RAISE EXCEPTION 'the writes were run only to read after them' USING ERRCODE = 'RBS01';
                EXCEPTION WHEN SQLSTATE 'RBS01' THEN
                    NULL;
                END;
                RETURN QUERY SELECT c.qi, c.rn, c.ci, c.cn, c.ck, c.cv FROM (
                    \(cellsOfLines)
                ) AS c ORDER BY c.qi, c.rn = 0, c.rn, c.ci;
            END $fn$;
            CREATE OR REPLACE FUNCTION rbs_v21_commit(statements TEXT[], digests TEXT[])
                \(commitResult)
            BEGIN
                -- rbs_v19_commit's check and writes, under the same lock, with the tip read once for the numbers;
                -- each query's rows come from its kept plan (rbs_v21_lines) and are compared by the digest
                -- rbs_v19_digest makes of them (an MD5 of each row's JSON, joined by newlines): a difference
                -- refuses the whole as a serialisation failure, as there.
                PERFORM pg_advisory_xact_lock(\(PostgresStore.ledgerLock));
                base := rbs_v21_base();
                FOR i IN 1 .. coalesce(array_length(statements, 1), 0) LOOP
                    IF digests[i] = '' THEN
                        EXECUTE statements[i];
                    ELSIF md5(array_to_string(coalesce(rbs_v21_lines(statements[i]), '{}'), chr(10))) IS DISTINCT FROM digests[i] THEN
                        RAISE EXCEPTION 'rows this transaction read changed before it committed (statement %)', i
                            USING ERRCODE = '40001';
                    END IF;
                END LOOP;
                RETURN QUERY SELECT base,
            \(tipAnswer)
            END $fn$;
            CREATE OR REPLACE PROCEDURE rbs_v21_commit_durably(statements TEXT[], digests TEXT[],
                \(durableCommitParameters))
                LANGUAGE plpgsql AS $fn$
            BEGIN
                \(durableCommitCall())
                -- Committed before the answer row is sent (as rbs_v19_commit_durably): an answer means a durable commit.
                COMMIT;
            END $fn$;
            """)
    }

    /// The row `rbs_v21_commit` and `rbs_v26_commit` answer (the tip before the commit's entries, the ledger's tip
    /// and code state after them), and the variables both declare first.
    private static let commitResult = """
        RETURNS TABLE (journal_base BIGINT, tip_ledger_id TEXT, tip_seq BIGINT, tip_hash BYTEA, code_step BIGINT,
                               code_failures BIGINT, code_locked_until BIGINT)
                LANGUAGE plpgsql AS $fn$
            DECLARE
                base BIGINT;
                i INT;
        """
    /// What `rbs_v21_commit_durably` and `rbs_v22_commit_durably` answer of the commit (`rbs_v21_commit`'s row)...
    private static let durableCommitParameters = """
        INOUT journal_base BIGINT DEFAULT NULL,
                        INOUT tip_ledger_id TEXT DEFAULT NULL, INOUT tip_seq BIGINT DEFAULT NULL, INOUT tip_hash BYTEA DEFAULT NULL,
                        INOUT code_step BIGINT DEFAULT NULL, INOUT code_failures BIGINT DEFAULT NULL, INOUT code_locked_until BIGINT DEFAULT NULL
        """
    /// ...and how they run the commit (`rbs_v21_commit`, or with `kept` `rbs_v26_commit`) into those parameters.
    private static func durableCommitCall(kept: Bool = false) -> String {
        """
        SELECT c.journal_base, c.tip_ledger_id, c.tip_seq, c.tip_hash, c.code_step, c.code_failures, c.code_locked_until
                            INTO journal_base, tip_ledger_id, tip_seq, tip_hash, code_step, code_failures, code_locked_until
                            FROM \(kept ? "rbs_v26_commit(templates, arguments, types, digests)" : "rbs_v21_commit(statements, digests)") AS c;
        """
    }
    /// The variables `collectLines` and `cellsOfLines` use (rbs_v21_read, rbs_v22_answers).
    private static let linesVariables = """
        lines TEXT[];
                a_query INT[] := '{}';
                a_row BIGINT[] := '{}';
                a_json TEXT[] := '{}';
                d_query INT[] := '{}';
                d_digest TEXT[] := '{}';
        """
    /// Query `i`'s rows from its kept plan (rbs_v21_lines), gathered for `cellsOfLines`, and its digest (the bytes
    /// rbs_v19_digest makes: each row's JSON, joined by newlines).
    private static let collectLines = """
        lines := coalesce(rbs_v21_lines(queries[i]), '{}');
                        n := coalesce(array_length(lines, 1), 0);
                        a_query := a_query || array_fill(i, ARRAY[n]);
                        a_row := a_row || ARRAY(SELECT generate_series(1::BIGINT, n::BIGINT));
                        a_json := a_json || lines;
                        d_query := d_query || i;
                        d_digest := d_digest || md5(array_to_string(lines, chr(10)));
        """
    /// The gathered rows split into cells (query, row, column, name, JSON kind, value), then a digest row per query.
    private static let cellsOfLines = """
        SELECT q.qi, q.rn, e.position AS ci, e.key AS cn, json_typeof(e.value) AS ck, e.value #>> '{}' AS cv
                                FROM unnest(a_query, a_row, a_json) AS q (qi, rn, j)
                                CROSS JOIN LATERAL json_each(q.j::json) WITH ORDINALITY AS e (key, value, position)
                            UNION ALL
                            SELECT d.qi, 0::BIGINT, 0::BIGINT, NULL::TEXT, 'digest'::TEXT, d.dg
                                FROM unnest(d_query, d_digest) AS d (qi, dg)
        """

    /// Schema step `v22-answers-after-commit` (issue #30): the commit also answers, once its writes are committed
    /// (and the ledger's lock released), the rows and digests of the queries the host names (`after_queries`): what
    /// those queries give now.
    /// The host keeps them, and a next payment whose queries are all among them (or are once-only id lookups, which
    /// are presumed empty) commits in ONE round trip on them: the commit checks every query's digest under the
    /// ledger's lock as always, so a row changed meanwhile refuses it as a serialisation failure, and the host then
    /// reads and commits as before. Functions only; nothing on SQLite.
    private static func answersAfterCommit(_ db: any SQLTransaction) throws {
        guard db.dialect == .postgres else { return }
        try db.executeScript("""
            -- Each query's rows as cells, then one digest row per query: JSON text of [query, row, column, name,
            -- kind, value] arrays, in the order and with the kinds and digests rbs_v21_read answers.
            CREATE OR REPLACE FUNCTION rbs_v22_answers(queries TEXT[]) RETURNS TEXT LANGUAGE plpgsql AS $fn$
            DECLARE
                i INT;
                n INT;
                \(linesVariables)
            BEGIN
                FOR i IN 1 .. coalesce(array_length(queries, 1), 0) LOOP
                    \(collectLines)
                END LOOP;
                RETURN (SELECT coalesce(json_agg(json_build_array(c.qi, c.rn, c.ci, c.cn, c.ck, c.cv)
                                                 ORDER BY c.qi, c.rn = 0, c.rn, c.ci), '[]')::text FROM (
                    \(cellsOfLines)
                ) AS c);
            END $fn$;
            \(answeringCommit("rbs_v22_commit_durably", answers: "rbs_v22_answers"))
            """)
    }

    /// A procedure that commits `statements` as `rbs_v21_commit_durably` does, then answers `after_queries` through
    /// the function `answers` (`rbs_v22_commit_durably`, `rbs_v24_commit_durably`).
    ///
    /// With `flushApart` (schema step `v25-flush-outside-lock`), the check and writes commit with
    /// `synchronous_commit` off: the commit record is in the WAL's buffers, the rows visible and the ledger's lock
    /// released, but nothing waited for the disk. A second transaction then writes a transactional WAL message
    /// (`pg_logical_emit_message`) and commits with the session's own `synchronous_commit`, which flushes the WAL —
    /// the payment's commit record comes before the message's, so it is flushed too — and waits for a synchronous
    /// standby as any commit does; the row answering the CALL is sent only after that. So an answer still means a
    /// durable commit, while the next host's check and writes run during this one's flush, and PostgreSQL flushes
    /// the commits of all waiting hosts at once. What another transaction reads of this payment before the flush is
    /// not yet durable; anything it writes comes after it in the WAL, so is durable only if this payment is. Where
    /// the role may not write WAL messages (a server that revoked the function from PUBLIC), the procedure commits
    /// synchronously, holding the lock across the flush, as before.
    private static func answeringCommit(_ procedure: String, answers: String, flushApart: Bool = false, kept: Bool = false,
                                        integrating: Bool = false) -> String {
        let declare = flushApart ? """
            DECLARE
                apart BOOLEAN := has_function_privilege('pg_logical_emit_message(boolean,text,text)', 'EXECUTE');
            """ : ""
        let beforeCommit = flushApart ? """
            IF apart THEN
                -- This transaction only: its commit does not wait for the disk (or a standby).
                PERFORM set_config('synchronous_commit', 'off', true);
            END IF;
            """ : ""
        // With `integrating` (schema step `v29-chain-integrated-apart`): the entries stored are chained here, after
        // the ledger's lock is released, unless another session is integrating (it, or the next commit, chains
        // them); the tip answered is the last entry integrated, so a host records only tips with a hash. Nothing
        // here may fail the payment, which is committed.
        let integrate = integrating ? """
            BEGIN
                    SELECT t.tip_seq, t.tip_hash INTO tip_seq, tip_hash FROM rbs_v29_integrate(false) AS t;
                    tip_seq := coalesce(tip_seq, 0);
                EXCEPTION WHEN OTHERS THEN
                    NULL;
                END;
            """ : ""
        let afterAnswers = flushApart ? """
            IF apart THEN
                -- The payment made durable before the answer row is sent: this commit, with the session's
                -- synchronous_commit, flushes the WAL through its message, which comes after the payment's
                -- commit record (and waits for a synchronous standby to have it).
                PERFORM pg_logical_emit_message(true, 'rbs-durable', '');
                COMMIT;
            END IF;
            """ : ""
        // With `kept` (schema step `v26-kept-plans`), each statement as its kept plan's text, values and types.
        let statements = kept ? "templates TEXT[], arguments TEXT[], types TEXT[], digests TEXT[], after_templates TEXT[], after_arguments TEXT[], after_types TEXT[]"
            : "statements TEXT[], digests TEXT[], after_queries TEXT[]"
        let answering = kept ? "\(answers)(after_templates, after_arguments, after_types)" : "\(answers)(after_queries)"
        return """
            CREATE OR REPLACE PROCEDURE \(procedure)(\(statements),
                \(durableCommitParameters),
                INOUT answers TEXT DEFAULT NULL)
                LANGUAGE plpgsql AS $fn$
            \(declare)
            BEGIN
                \(beforeCommit)
                \(durableCommitCall(kept: kept))
                -- Committed before the answer row is sent (as rbs_v21_commit_durably): an answer means a durable commit
                -- (with flushApart, once the second COMMIT below has flushed it). The COMMIT also ends the ledger's
                -- lock, so the answers below are read outside it (in the next transaction: the committed rows, this
                -- payment's writes among them) and never hold up another host.
                COMMIT;
                -- The payment is committed: nothing here may fail it. Its entries chained first (v29), so the answers
                -- read them as they will stay; answers that cannot be read are simply none.
                \(integrate)
                BEGIN
                    answers := \(answering);
                EXCEPTION WHEN OTHERS THEN
                    answers := NULL;
                END;
                \(afterAnswers)
            END $fn$;
        """
    }

    /// Schema step `v25-flush-outside-lock` (issue #30): `rbs_v24_commit_durably` commits its check and writes
    /// without waiting for the WAL's flush, then flushes in a second commit before it answers
    /// (``answeringCommit(_:answers:flushApart:)``). Functions only; nothing on SQLite.
    private static func flushOutsideLock(_ db: any SQLTransaction) throws {
        guard db.dialect == .postgres else { return }
        try db.executeScript(answeringCommit("rbs_v24_commit_durably", answers: "rbs_v24_answers", flushApart: true))
    }

    /// `rbs_v24_answers` and `rbs_v26_answers`: a function `name(parameters)` answering the queries of the array
    /// `queries` (one of the parameters), each read by `read` (which sets `lines` to query `i`'s rows as their JSON
    /// texts), as one JSON array with a part per query: its digest — each row's JSON, joined by newlines, as
    /// rbs_v21_read and rbs_v22_answers give it — then its rows as they are (JSON objects already).
    private static func answersFunction(_ name: String, _ parameters: String, queries: String, read: String,
                                        declaring variables: String = "") -> String {
        """
        CREATE OR REPLACE FUNCTION \(name)(\(parameters)) RETURNS TEXT LANGUAGE plpgsql AS $fn$
                    DECLARE
                        i INT;
                        lines TEXT[];
                        parts TEXT[] := '{}';
                        \(variables)
                    BEGIN
                        FOR i IN 1 .. coalesce(array_length(\(queries), 1), 0) LOOP
                            \(read)
                            lines := coalesce(lines, '{}');
                            parts := parts || ('["' || md5(array_to_string(lines, chr(10))) || '"'
                                               || CASE WHEN cardinality(lines) > 0 THEN ',' || array_to_string(lines, ',') ELSE '' END
                                               || ']');
                        END LOOP;
                        RETURN '[' || array_to_string(parts, ',') || ']';
                    END $fn$;
        """
    }

    /// Schema step `v24-answers-as-rows` (issue #30): `rbs_v22_answers`' rows and digests, each query's rows in the
    /// JSON text `rbs_v21_lines` already made of them rather than split into cells (json_each, json_typeof and a
    /// json_agg of six-member arrays, which cost the server about three times the reading of the rows): JSON text
    /// of one array per query, its digest and then its rows, `[["digest", {row}, …], …]`. The host splits the rows
    /// (``PostgresStore/cells(fromRowsJSON:)``). `rbs_v24_commit_durably` is `rbs_v22_commit_durably` answering
    /// these. Functions only; nothing on SQLite.
    /// The step also makes `rbs_v19_digest` and `rbs_v21_lines` read whole rows whatever their columns' names
    /// (``digestFunction``; every digest of a query without a column named `t` is the same as before), and
    /// `rbs_v21_lines` keep a plan only for a query it has seen before in the session (``linesFunction``).
    private static func answersAsRows(_ db: any SQLTransaction) throws {
        guard db.dialect == .postgres else { return }
        try db.executeScript("""
            \(digestFunction)
            \(linesFunction)
            \(answersFunction("rbs_v24_answers", "queries TEXT[]", queries: "queries", read: "lines := rbs_v21_lines(queries[i]);"))
            \(answeringCommit("rbs_v24_commit_durably", answers: "rbs_v24_answers"))
            """)
    }

    /// The check of a kept query's rows (`lines`) against the digest the host read them with (`digests[i]`): a
    /// changed row refuses the commit with 40001 before any write of it runs.
    private static let refusedWhenChanged = """
        IF md5(array_to_string(coalesce(lines, '{}'), chr(10))) IS DISTINCT FROM digests[i] THEN
                                    RAISE EXCEPTION 'rows this transaction read changed before it committed (statement %)', i
                                        USING ERRCODE = '40001';
                                END IF;
        """

    /// `rbs_v26_commit` as schema steps `v26-kept-plans` and `v27-kept-plans-inline` make it: `rbs_v21_commit`'s lock,
    /// numbers and answer around a loop whose body (`running`) checks or runs statement `i` from its kept plan, with
    /// the variables it needs besides `lines` (`declaring`).
    private static func keptCommit(declaring variables: String = "", running body: String) -> String {
        """
        CREATE OR REPLACE FUNCTION rbs_v26_commit(templates TEXT[], arguments TEXT[], types TEXT[], digests TEXT[])
                        \(commitResult)
                        lines TEXT[];
                        \(variables)
                    BEGIN
                        -- rbs_v21_commit's lock, numbers, check and writes, each statement from its kept plan.
                        PERFORM pg_advisory_xact_lock(\(PostgresStore.ledgerLock));
                        base := rbs_v21_base();
                        FOR i IN 1 .. coalesce(array_length(templates, 1), 0) LOOP
                            \(body)
                        END LOOP;
                        RETURN QUERY SELECT base,
                    \(tipAnswer)
                    END $fn$;
        """
    }

    /// Schema step `v26-kept-plans` (issue #30): the commit's statements run from plans the server session keeps.
    /// Until this step the host sent each statement with its values written in (a document's id, an account number),
    /// so the server parsed and planned every write and every once-only lookup again for each payment, and kept a
    /// plan of a query per customer (`rbs_v21_lines`, by the exact text). Now the host sends each statement as its
    /// text with `$1…$n` (``PostgresSQL/parametrized(_:_:expression:)``), the values as typed literals or server
    /// expressions (a journal number bound at commit), and their types; `rbs_v26_kept` names the plan after an MD5
    /// of its kind, types and text and PREPAREs it the first time a session sees it (the names a session holds are
    /// kept in its setting `rbs.kept_plans`: no exception block, so no subtransaction, on the way of a statement
    /// already kept), and the statement runs as `EXECUTE name(values)`, whose parsing is of the values alone. The
    /// texts are the ledger's own — a value a customer typed is always among the values, never in the text — so a
    /// session holds about as many plans as the ledger has statements, whoever pays. `rbs_v26_commit` is
    /// `rbs_v21_commit` with that (the same lock, numbers, digests and answer), `rbs_v26_answers` is
    /// `rbs_v24_answers`, and `rbs_v26_commit_durably` is `rbs_v24_commit_durably` calling both, its flush apart.
    /// Functions only; nothing on SQLite.
    private static func keptPlans(_ db: any SQLTransaction) throws {
        guard db.dialect == .postgres else { return }
        try db.executeScript("""
            -- The name of the session's plan of a query (kind 'q': its rows as their JSON texts, as rbs_v21_lines
            -- makes them, gathered by ARRAY() rather than array_agg, whose aggregate costs more to start for one
            -- row) or a write (kind 'w'), PREPAREd the first time. A statement PREPAREd in a transaction that
            -- was then rolled back stays (PREPARE is not transactional) while the setting naming it is undone: the
            -- next PREPARE of it finds it there. Past 512 names (a host's ad-hoc statements), the session's plans
            -- are dropped and made again as they come.
            CREATE OR REPLACE FUNCTION rbs_v26_kept(kind TEXT, template TEXT, types TEXT) RETURNS TEXT LANGUAGE plpgsql AS $fn$
            DECLARE
                name TEXT := 'rbs_v26_' || md5(kind || types || chr(10) || template);
                known TEXT := coalesce(current_setting('rbs.kept_plans', true), '');
                old TEXT;
            BEGIN
                IF position(name IN known) = 0 THEN
                    IF length(known) >= 512 * 41 THEN
                        FOREACH old IN ARRAY string_to_array(rtrim(known), ' ') LOOP
                            BEGIN
                                EXECUTE 'DEALLOCATE ' || old;
                            EXCEPTION WHEN invalid_sql_statement_name THEN
                                NULL;
                            END;
                        END LOOP;
                        known := '';
                    END IF;
                    BEGIN
                        EXECUTE 'PREPARE ' || name || CASE WHEN types = '' THEN '' ELSE '(' || types || ')' END || ' AS '
                            || CASE WHEN kind = 'q' THEN 'SELECT ARRAY(SELECT to_json(t.*)::text FROM (' || template || ') AS t)'
                                    ELSE template END;
                    EXCEPTION WHEN duplicate_prepared_statement THEN
                        NULL;
                    END;
                    PERFORM set_config('rbs.kept_plans', known || name || ' ', false);
                END IF;
                RETURN name;
            END $fn$;
            -- The statement that runs a kept plan with its values.
            CREATE OR REPLACE FUNCTION rbs_v26_run(kind TEXT, template TEXT, arguments TEXT, types TEXT) RETURNS TEXT LANGUAGE plpgsql AS $fn$
            BEGIN
                RETURN 'EXECUTE ' || rbs_v26_kept(kind, template, types) || CASE WHEN types = '' THEN '' ELSE '(' || arguments || ')' END;
            END $fn$;
            \(keptCommit(running: """
                IF digests[i] = '' THEN
                                        EXECUTE rbs_v26_run('w', templates[i], arguments[i], types[i]);
                                    ELSE
                                        EXECUTE rbs_v26_run('q', templates[i], arguments[i], types[i]) INTO lines;
                                        \(refusedWhenChanged)
                                    END IF;
                """))
            -- rbs_v24_answers, each query from its kept plan.
            \(answersFunction("rbs_v26_answers", "templates TEXT[], arguments TEXT[], types TEXT[]", queries: "templates",
                              read: "EXECUTE rbs_v26_run('q', templates[i], arguments[i], types[i]) INTO lines;"))
            \(answeringCommit("rbs_v26_commit_durably", answers: "rbs_v26_answers", flushApart: true, kept: true))
            """)
    }

    /// Schema step `v27-kept-plans-inline` (issue #30): `rbs_v26_commit` and `rbs_v26_answers` again, the same
    /// statements, checks and answers, but each statement's kept plan named in the loop that runs it — the MD5 name
    /// `rbs_v26_kept` gives, looked up in the session's `rbs.kept_plans` read once a call — and `rbs_v26_kept`
    /// called only for a plan the session does not have yet. Before, every statement made two PL/pgSQL calls
    /// (`rbs_v26_run`, then `rbs_v26_kept`) for the text it EXECUTEs: measured in one session on this machine,
    /// 23.6 µs a kept query through them, 11.4 µs with its name made in place, 4.5 µs as a static statement. A host
    /// without the step runs the functions as they were: same signatures, same results.
    private static func keptPlansInline(_ db: any SQLTransaction) throws {
        guard db.dialect == .postgres else { return }
        // The kept plan's `EXECUTE` of statement i, into `run`, `kind` ('q' or 'w') given.
        let statement = keptRun(kind: "kind")
        try db.executeScript("""
            \(keptCommit(declaring: """
                known TEXT := coalesce(current_setting('rbs.kept_plans', true), '');
                                kind TEXT;
                                name TEXT;
                                run TEXT;
                """, running: keptCheckOrWrite))
            \(answersFunction("rbs_v26_answers", "templates TEXT[], arguments TEXT[], types TEXT[]", queries: "templates",
                              read: statement + "\n                EXECUTE run INTO lines;",
                              declaring: "known TEXT := coalesce(current_setting('rbs.kept_plans', true), ''); kind TEXT := 'q'; name TEXT; run TEXT;"))
            """)
    }

    /// Schema step `v29-chain-integrated-apart` (issue #30 item 2: the journal's order and hash chain as an append-only
    /// transparency log keeps them — entries stored and numbered first, integrated into the chain apart).
    ///
    /// Until this step the commit that stored an entry also chained it: under the ledger's lock it read the
    /// predecessor's hash and computed the entry's (`rbs_v21_prev`, `rbs_v21_hash`). Now the commit stores the entry
    /// with empty hashes and its hashed parts in `journal_unintegrated` (`rbs_v29_apart`, the value the host sends for
    /// the hash), numbered as before — in commit order, gapless, by the server under the lock, a host's group of
    /// payments at a time. `rbs_v29_integrate` then chains every stored entry in number order: the predecessor's
    /// hash, the entry's own (the same bytes `rbs_v21_hash` hashed, so `verify` checks them unchanged), and the
    /// parts' row removed, in one transaction. It is idempotent (an entry integrated is no longer listed) and runs
    /// under its own advisory lock, never the ledger's: `rbs_v29_commit_durably` calls it after the commit has
    /// released the ledger's lock, in the transaction whose commit flushes the payment, and skips it when another
    /// session is integrating (that one, or the next commit, chains this entry). What reads the chain whole —
    /// `verify`, the classic write that numbers from the tip, a host's start — integrates first, waiting for its
    /// lock. The journal's UPDATE trigger allows this one change: an entry's empty hashes filled, nothing else.
    private static func integrationApart(_ db: any SQLTransaction) throws {
        guard db.dialect == .postgres else { return }
        try db.executeScript("""
            CREATE TABLE IF NOT EXISTS journal_unintegrated (
                seq BIGINT PRIMARY KEY,
                part_before BYTEA NOT NULL,
                part_between BYTEA NOT NULL
            );
            -- An entry's hashes filled once by integration; any other change of a journal row is refused as before.
            -- (The new row with the old hashes put back must be the old row, column for column, whatever columns
            -- later steps add: a record comparison, no JSON made of the document's bytes.)
            \(journalUpdate(positioned: false))
            DROP TRIGGER journal_no_update ON journal;
            CREATE TRIGGER journal_no_update BEFORE UPDATE ON journal FOR EACH ROW EXECUTE FUNCTION rbs_v29_journal_update();
            -- The hash a commit stores for entry k of its transaction: none yet; its parts kept for integration.
            CREATE OR REPLACE FUNCTION rbs_v29_apart(k BIGINT, part_before BYTEA, part_between BYTEA) RETURNS BYTEA
                LANGUAGE plpgsql VOLATILE AS $fn$
            BEGIN
                INSERT INTO journal_unintegrated (seq, part_before, part_between) VALUES (rbs_v21_seq(k), part_before, part_between);
                RETURN ''::BYTEA;
            END $fn$;
            -- The last entry integrated: the one before the first waiting, else the journal's last.
            CREATE OR REPLACE FUNCTION rbs_v29_integrated_tip() RETURNS TABLE (tip_seq BIGINT, tip_hash BYTEA)
                LANGUAGE sql STABLE AS $fn$
                SELECT j.seq, j.hash FROM journal j
                    WHERE j.seq < coalesce((SELECT min(u.seq) FROM journal_unintegrated u), 9223372036854775807)
                    ORDER BY j.seq DESC LIMIT 1
            $fn$;
            -- Chains every stored entry not integrated yet, in number order; with wait false, does nothing when another
            -- session is integrating. Answers the last entry integrated.
            CREATE OR REPLACE FUNCTION rbs_v29_integrate(wait BOOLEAN) RETURNS TABLE (tip_seq BIGINT, tip_hash BYTEA)
                LANGUAGE plpgsql AS $fn$
            DECLARE
                r RECORD;
                previous BYTEA;
                computed BYTEA;
                number TEXT;
                last BIGINT;
            BEGIN
                IF wait THEN
                    PERFORM pg_advisory_xact_lock(\(PostgresStore.integrationLock));
                ELSIF NOT pg_try_advisory_xact_lock(\(PostgresStore.integrationLock)) THEN
                    RETURN QUERY SELECT * FROM rbs_v29_integrated_tip();
                    RETURN;
                END IF;
                FOR r IN SELECT u.seq, u.part_before, u.part_between FROM journal_unintegrated u ORDER BY u.seq LOOP
                    -- The predecessor's hash: the one this loop just computed, else the stored one.
                    IF last IS NULL OR last <> r.seq - 1 THEN
                        IF r.seq = 1 THEN
                            previous := decode(repeat('00', 32), 'hex');
                        ELSE
                            previous := (SELECT j.hash FROM journal j WHERE j.seq = r.seq - 1);
                        END IF;
                    END IF;
                    -- Numbers are given in commit order under the ledger's lock, so a stored entry's predecessor is
                    -- stored (and integrated by now, this loop going in order); should it not be, stop here.
                    EXIT WHEN previous IS NULL OR octet_length(previous) = 0;
                    number := r.seq::TEXT;
                    computed := \(chainHash);
                    UPDATE journal SET prev_hash = previous, hash = computed WHERE seq = r.seq;
                    previous := computed;
                    last := r.seq;
                END LOOP;
                IF last IS NOT NULL THEN
                    DELETE FROM journal_unintegrated u WHERE u.seq <= last;
                    RETURN QUERY SELECT last, previous;
                    RETURN;
                END IF;
                RETURN QUERY SELECT * FROM rbs_v29_integrated_tip();
            END $fn$;
            -- A commit that chains in the server (v21's way: a host that found v29's procedure gone, a database
            -- restored from before it) after an entry stored apart and not chained yet: chained first, here, under
            -- the ledger's lock (integration never takes that lock, so waiting for it here cannot deadlock).
            CREATE OR REPLACE FUNCTION rbs_v21_prev(k BIGINT) RETURNS BYTEA LANGUAGE plpgsql VOLATILE AS $fn$
            DECLARE
                number BIGINT := rbs_v21_seq(k);
                previous BYTEA;
            BEGIN
                IF number = 1 THEN
                    RETURN decode(repeat('00', 32), 'hex');
                END IF;
                previous := (SELECT j.hash FROM journal j WHERE j.seq = number - 1);
                IF octet_length(previous) = 0 THEN
                    PERFORM rbs_v29_integrate(true);
                    previous := (SELECT j.hash FROM journal j WHERE j.seq = number - 1);
                END IF;
                RETURN previous;
            END $fn$;
            \(answeringCommit("rbs_v29_commit_durably", answers: "rbs_v26_answers", flushApart: true, kept: true, integrating: true))
            """)
    }

    /// Schema step `v30-sequenced-apart` (issue #30 items 1 and 2: no global critical section in a payment's commit,
    /// as an append-only transparency log has none — entries stored durably first, then sequenced and integrated in
    /// batches, off the request's path).
    ///
    /// Until this step a commit took the ledger's advisory lock for its checks, writes and numbers: the journal's
    /// numbers were gapless because they were given one commit at a time. Now:
    ///
    /// - An entry's `seq` is its **id**, from the sequence `journal_ids` (`rbs_v21_seq(k)` takes one for the
    ///   commit's k-th entry): unique, in the order commits asked for them, with gaps where a refused commit had
    ///   taken one. Every table that names an entry (postings, fees, requests, forms, baskets, second signatures)
    ///   names it by this id, as before; the id is in the entry's hash as its number was.
    /// - Its **position** in the chain is given by integration (`rbs_v29_integrate`, redefined): the entries stored
    ///   and not integrated yet, in id order, each the next position (gapless, from 1), its predecessor the entry
    ///   at the position before — so the chain's order is the order entries were integrated, and `verify` checks
    ///   positions gapless and each link. Integration keeps its own advisory lock; a commit's checks and writes never
    ///   wait for it (after its COMMIT the procedure integrates only if no other session is).
    /// - The commit (`rbs_v30_commit_durably`) runs its checks and writes SERIALIZABLE, without the ledger's lock:
    ///   payments that read and write different rows commit side by side, and one whose rows another changed
    ///   meanwhile is refused (40001) and decided again, as a changed digest always was. The classic write
    ///   (statement by statement, ``PostgresStore/lockedWrite(_:)``) still takes the lock, and first bumps the one
    ///   row of `ledger_epoch`, which each commit locks shared: the two never run at once, and a commit whose
    ///   snapshot predates a classic write's changes is refused. The entries the classic write inserts carry their
    ///   hashes and are given their positions on insert (`rbs_v30_journal_insert`), integration having run first.
    ///
    /// Existing entries keep their numbers as ids and as positions.
    private static func sequencedApart(_ db: any SQLTransaction) throws {
        guard db.dialect == .postgres else { return }
        try db.executeScript("""
            -- Idempotent, as every later step's functions are made again when a database restored from before an
            -- earlier step is migrated again. Entries chained so far (v29, numbered gapless) keep their numbers as
            -- positions; the ones stored apart and not chained yet are integrated below, by this step's integration.
            ALTER TABLE journal ADD COLUMN IF NOT EXISTS position BIGINT;
            ALTER TABLE journal DISABLE TRIGGER journal_no_update;
            UPDATE journal SET position = seq WHERE position IS NULL AND octet_length(hash) = 32;
            ALTER TABLE journal ENABLE TRIGGER journal_no_update;
            CREATE UNIQUE INDEX IF NOT EXISTS journal_position ON journal (position);
            -- Bumped by every classic write (statement by statement, under the ledger's lock) as it starts: a
            -- commit locks the row shared, so the two never run at once, and a commit whose snapshot is older than
            -- a classic write's changes is refused.
            CREATE TABLE IF NOT EXISTS ledger_epoch (id INTEGER PRIMARY KEY CHECK (id = 1), n BIGINT NOT NULL);
            INSERT INTO ledger_epoch (id, n) VALUES (1, 0) ON CONFLICT (id) DO NOTHING;
            CREATE SEQUENCE IF NOT EXISTS journal_ids AS BIGINT;
            SELECT setval('journal_ids', coalesce((SELECT max(seq) FROM journal), 0) + 1, false);
            -- An entry's hashes and position filled once by integration; any other change refused as before.
            \(journalUpdate(positioned: true))
            -- An entry inserted with its hashes (the classic write, which integrated first and holds the ledger's lock
            -- exclusively) takes the next position; an id above the sequence's moves the sequence past it.
            CREATE OR REPLACE FUNCTION rbs_v30_journal_insert() RETURNS trigger LANGUAGE plpgsql AS $fn$
            BEGIN
                IF NEW.position IS NULL AND octet_length(NEW.hash) = 32 THEN
                    NEW.position := coalesce((SELECT j.position FROM journal j WHERE j.position IS NOT NULL
                                              ORDER BY j.position DESC LIMIT 1), 0) + 1;
                END IF;
                -- Only a write that holds the ledger's lock numbers past the sequence (the classic write, inserting
                -- with hashes; v21's and v26's commits, rbs_v21_base): a read's writes, undone, must not move it.
                IF (octet_length(NEW.hash) = 32 OR current_setting('rbs.journal_bump', true) = 'on')
                   AND NEW.seq > (SELECT s.last_value FROM journal_ids s) THEN
                    PERFORM setval('journal_ids', NEW.seq, true);
                END IF;
                RETURN NEW;
            END $fn$;
            DROP TRIGGER IF EXISTS journal_positioned ON journal;
            CREATE TRIGGER journal_positioned BEFORE INSERT ON journal FOR EACH ROW EXECUTE FUNCTION rbs_v30_journal_insert();
            -- Entry k of this transaction: in a commit (rbs.journal_allocating on), an id taken from the sequence the
            -- first time k is named; elsewhere (a read that runs writes only to read after them, undone) base+k.
            CREATE OR REPLACE FUNCTION rbs_v21_seq(k BIGINT) RETURNS BIGINT LANGUAGE plpgsql VOLATILE AS $fn$
            DECLARE
                ids BIGINT[];
            BEGIN
                IF coalesce(current_setting('rbs.journal_allocating', true), '') <> 'on' THEN
                    RETURN current_setting('rbs.journal_base')::BIGINT + k;
                END IF;
                ids := ('{' || coalesce(current_setting('rbs.journal_ids', true), '') || '}')::BIGINT[];
                WHILE coalesce(cardinality(ids), 0) < k LOOP
                    ids := ids || nextval('journal_ids');
                END LOOP;
                PERFORM set_config('rbs.journal_ids', array_to_string(ids, ','), true);
                RETURN ids[k];
            END $fn$;
            -- The tip v21's and v26's commits number after (base+k), as before; one that holds the ledger's lock
            -- (a commit, not a read) marks its inserts to move the sequence past the numbers they take.
            CREATE OR REPLACE FUNCTION rbs_v21_base() RETURNS BIGINT LANGUAGE plpgsql VOLATILE AS $fn$
            DECLARE base BIGINT;
            BEGIN
                base := coalesce((SELECT j.seq FROM journal j ORDER BY j.seq DESC LIMIT 1), 0::BIGINT);
                PERFORM set_config('rbs.journal_base', base::TEXT, true);
                IF EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.pid = pg_backend_pid()
                           AND l.mode = 'ExclusiveLock' AND l.granted
                           AND ((l.classid::BIGINT << 32) | l.objid::BIGINT) = \(PostgresStore.ledgerLock)) THEN
                    PERFORM set_config('rbs.journal_bump', 'on', true);
                END IF;
                RETURN base;
            END $fn$;
            -- Every commit stores its entries apart, whichever procedure runs it (v21's and v26's too, for a host that
            -- fell back to them): no hash is computed from a predecessor in a commit.
            CREATE OR REPLACE FUNCTION rbs_v21_hash(k BIGINT, part_before BYTEA, part_between BYTEA) RETURNS BYTEA
                LANGUAGE plpgsql VOLATILE AS $fn$
            BEGIN
                RETURN rbs_v29_apart(k, part_before, part_between);
            END $fn$;
            CREATE OR REPLACE FUNCTION rbs_v21_prev(k BIGINT) RETURNS BYTEA LANGUAGE plpgsql VOLATILE AS $fn$
            BEGIN
                RETURN ''::BYTEA;
            END $fn$;
            -- The last entry integrated: the journal's last position.
            CREATE OR REPLACE FUNCTION rbs_v29_integrated_tip() RETURNS TABLE (tip_seq BIGINT, tip_hash BYTEA)
                LANGUAGE sql STABLE AS $fn$
                SELECT j.position, j.hash FROM journal j WHERE j.position IS NOT NULL ORDER BY j.position DESC LIMIT 1
            $fn$;
            -- Chains every stored entry not integrated yet, in id order, each at the next position after the last;
            -- with wait false, does nothing when another session is integrating. Answers the last position and its
            -- hash. An entry committed later with a smaller id (its commit was slower) is simply integrated later.
            CREATE OR REPLACE FUNCTION rbs_v29_integrate(wait BOOLEAN) RETURNS TABLE (tip_seq BIGINT, tip_hash BYTEA)
                LANGUAGE plpgsql AS $fn$
            DECLARE
                r RECORD;
                previous BYTEA;
                computed BYTEA;
                number TEXT;
                at BIGINT;
                done BIGINT[] := '{}';
            BEGIN
                IF wait THEN
                    PERFORM pg_advisory_xact_lock(\(PostgresStore.integrationLock));
                ELSIF NOT pg_try_advisory_xact_lock(\(PostgresStore.integrationLock)) THEN
                    RETURN QUERY SELECT * FROM rbs_v29_integrated_tip();
                    RETURN;
                END IF;
                SELECT t.tip_seq, t.tip_hash INTO at, previous FROM rbs_v29_integrated_tip() AS t;
                at := coalesce(at, 0);
                IF at = 0 THEN
                    previous := decode(repeat('00', 32), 'hex');
                END IF;
                FOR r IN SELECT u.seq, u.part_before, u.part_between FROM journal_unintegrated u ORDER BY u.seq LOOP
                    number := r.seq::TEXT;
                    computed := \(chainHash);
                    at := at + 1;
                    UPDATE journal SET prev_hash = previous, hash = computed, position = at WHERE seq = r.seq;
                    previous := computed;
                    done := done || r.seq;
                END LOOP;
                -- The rows integrated, by id: a row another commit made visible meanwhile is left for the next run.
                IF cardinality(done) > 0 THEN
                    DELETE FROM journal_unintegrated u WHERE u.seq = ANY (done);
                END IF;
                RETURN QUERY SELECT * FROM rbs_v29_integrated_tip();
            END $fn$;
            \(sequencedCommit)
            -- What is stored apart, chained and positioned now.
            SELECT t.tip_seq FROM rbs_v29_integrate(true) AS t;
            """)
    }

    /// `rbs_v30_commit_durably`: v29's procedure (kept plans, flush apart, integration after, answers) with the
    /// commit's checks and writes in a SERIALIZABLE transaction of their own that takes no ledger-wide lock (the
    /// classic write's mark, `ledger_epoch`, shared), and with the ids its entries were given answered (`journal_ids`, comma-separated, entry 1's
    /// first) instead of a base. Sequential scans are off in that transaction: a scan of a whole table would make
    /// every write to it conflict with this commit; an index scan conflicts only with writes of the rows it read.
    /// (And JIT with them: a scan with no other path is then costed past JIT's threshold.)
    private static let sequencedCommit = """
        CREATE OR REPLACE PROCEDURE rbs_v30_commit_durably(templates TEXT[], arguments TEXT[], types TEXT[], digests TEXT[],
                    after_templates TEXT[], after_arguments TEXT[], after_types TEXT[],
                    INOUT journal_ids TEXT DEFAULT NULL,
                    INOUT tip_ledger_id TEXT DEFAULT NULL, INOUT tip_seq BIGINT DEFAULT NULL, INOUT tip_hash BYTEA DEFAULT NULL,
                    INOUT code_step BIGINT DEFAULT NULL, INOUT code_failures BIGINT DEFAULT NULL, INOUT code_locked_until BIGINT DEFAULT NULL,
                    INOUT answers TEXT DEFAULT NULL)
                LANGUAGE plpgsql AS $fn$
            DECLARE
                apart BOOLEAN := has_function_privilege('pg_logical_emit_message(boolean,text,text)', 'EXECUTE');
                known TEXT := coalesce(current_setting('rbs.kept_plans', true), '');
                i INT;
                lines TEXT[];
                kind TEXT;
                name TEXT;
                run TEXT;
            BEGIN
                -- The once-only ids the host found unused (digest 'once': a document's id in the journal, a request
                -- id): looked up here, in the CALL's own transaction, before the commit takes any id, so a repeat
                -- (a client sending a request again) is refused without using one; one committed after this look
                -- is refused by the id's unique key. Not looked up in the serializable transaction below, where
                -- the lookups of concurrent payments and their inserts share index pages and would refuse each other.
                FOR i IN 1 .. coalesce(array_length(templates, 1), 0) LOOP
                    CONTINUE WHEN digests[i] <> 'once';
                    \(keptRun(kind: "'q'"))
                    EXECUTE run INTO lines;
                    IF coalesce(cardinality(lines), 0) > 0 THEN
                        RAISE EXCEPTION 'a once-only id this transaction found unused is taken (statement %)', i
                            USING ERRCODE = '40001';
                    END IF;
                END LOOP;
                -- The CALL's own transaction has written nothing; the checks and writes get one of their own, serializable.
                COMMIT;
                SET TRANSACTION ISOLATION LEVEL SERIALIZABLE;
                IF apart THEN
                    PERFORM set_config('synchronous_commit', 'off', true);
                END IF;
                PERFORM set_config('enable_seqscan', 'off', true);
                -- A scan that has no other path (a sequence, a table without an index) then costs more than JIT's
                -- threshold: compiling it took ~50-100 ms a statement (measured), for microseconds of work.
                PERFORM set_config('jit', 'off', true);
                PERFORM set_config('rbs.journal_allocating', 'on', true);
                PERFORM set_config('rbs.journal_ids', '', true);
                -- The classic write's mark, shared: waits while one runs, and refuses this commit (40001) when one
                -- committed after this transaction's snapshot — its changes are then decided on afresh.
                PERFORM 1 FROM ledger_epoch e WHERE e.id = 1 FOR SHARE;
                FOR i IN 1 .. coalesce(array_length(templates, 1), 0) LOOP
                    CONTINUE WHEN digests[i] = 'once';
                    \(keptCheckOrWrite)
                END LOOP;
                journal_ids := coalesce(current_setting('rbs.journal_ids', true), '');
                -- With apart, committed without waiting for the disk (the flush is the second COMMIT below).
                COMMIT;
                -- Committed (durable once the second COMMIT below has flushed it): nothing here may fail the payment.
                BEGIN
                    SELECT t.tip_seq, t.tip_hash INTO tip_seq, tip_hash FROM rbs_v29_integrate(false) AS t;
                    tip_seq := coalesce(tip_seq, 0);
                EXCEPTION WHEN OTHERS THEN
                    tip_seq := 0;
                    tip_hash := NULL;
                END;
                SELECT (SELECT l.ledger_id FROM ledger_identity l WHERE l.id = 1),
                       (SELECT c.last_step FROM code_state c WHERE c.id = 1),
                       coalesce((SELECT c.failures FROM code_state c WHERE c.id = 1), 0::BIGINT),
                       (SELECT c.locked_until_ms FROM code_state c WHERE c.id = 1)
                    INTO tip_ledger_id, code_step, code_failures, code_locked_until;
                BEGIN
                    answers := rbs_v26_answers(after_templates, after_arguments, after_types);
                EXCEPTION WHEN OTHERS THEN
                    answers := NULL;
                END;
                IF apart THEN
                    PERFORM pg_logical_emit_message(true, 'rbs-durable', '');
                    COMMIT;
                END IF;
            END $fn$;
        """

    /// The journal's UPDATE trigger function from step v29 on: an entry's empty hashes filled once by integration
    /// (and, `positioned`, its empty position, step v30); any other change of a journal row refused as before. The
    /// new row with the old values put back must be the old row, column for column, whatever columns later steps
    /// add: a record comparison, no JSON made of the document's bytes.
    private static func journalUpdate(positioned: Bool) -> String {
        """
        CREATE OR REPLACE FUNCTION rbs_v29_journal_update() RETURNS trigger LANGUAGE plpgsql AS $fn$
                    DECLARE
                        unchanged journal;
                    BEGIN
                        IF octet_length(OLD.hash) = 0 AND octet_length(OLD.prev_hash) = 0\(positioned ? " AND OLD.position IS NULL" : "")
                           AND octet_length(NEW.hash) = 32 AND octet_length(NEW.prev_hash) = 32\(positioned ? " AND NEW.position IS NOT NULL" : "") THEN
                            unchanged := NEW;
                            unchanged.hash := OLD.hash;
                            unchanged.prev_hash := OLD.prev_hash;
                            \(positioned ? "unchanged.position := OLD.position;" : "")
                            IF unchanged IS NOT DISTINCT FROM OLD THEN
                                RETURN NEW;
                            END IF;
                        END IF;
                        RAISE EXCEPTION 'the journal is append-only: entries cannot be changed' USING ERRCODE = 'restrict_violation';
                    END $fn$;
        """
    }

    /// An entry's hash in integration (`rbs_v29_integrate`, steps v29 and v30): SHA-256 over the host's bytes before
    /// the number (`r.part_before`), the number as a part (`number`: a 4-byte big-endian length and its decimal
    /// text), the bytes between (`r.part_between`) and the predecessor's hash as a part (`previous`) — the bytes
    /// ``JournalEntry/computedHash`` hashes.
    private static let chainHash = """
        sha256(r.part_before || int4send(octet_length(number)) || convert_to(number, 'UTF8')
                                       || r.part_between || int4send(length(previous)) || previous)
        """

    /// Statement `i` of a commit from its kept plan (steps v27 and v30): a write (digest `''`) run, a query's rows
    /// compared with the digest the host read them with (``refusedWhenChanged``).
    private static let keptCheckOrWrite = """
        kind := CASE WHEN digests[i] = '' THEN 'w' ELSE 'q' END;
                            \(keptRun(kind: "kind"))
                            IF kind = 'w' THEN
                                EXECUTE run;
                            ELSE
                                EXECUTE run INTO lines;
                                \(refusedWhenChanged)
                            END IF;
        """

    /// Statement `i` run from its kept plan (`kind`: an SQL expression, 'q' or 'w'), as the text `run` EXECUTEs: the
    /// plan's `name` made in place from its kind, types and template as `rbs_v26_kept` makes it, which is called
    /// only for a plan the session does not have yet (`known`: the session's names, read again after a plan is
    /// kept), and its values. Steps v27 and v30.
    private static func keptRun(kind: String) -> String {
        """
        name := 'rbs_v26_' || md5(\(kind) || types[i] || chr(10) || templates[i]);
                            IF position(name IN known) = 0 THEN
                                name := rbs_v26_kept(\(kind), templates[i], types[i]);
                                known := coalesce(current_setting('rbs.kept_plans', true), '');
                            END IF;
                            run := 'EXECUTE ' || name || CASE WHEN types[i] = '' THEN '' ELSE '(' || arguments[i] || ')' END;
        """
    }

    private static func cards(_ db: any SQLTransaction) throws {
        try db.executeScript(types("""
            CREATE TABLE cards (
                \(serialKey(db.dialect)),
                customer_id INTEGER,
                account TEXT NOT NULL REFERENCES accounts(number),
                masked TEXT NOT NULL,
                last_four TEXT NOT NULL,
                scheme TEXT NOT NULL,
                issued_ms INTEGER NOT NULL,
                blocked INTEGER NOT NULL,
                block_reason TEXT,
                changed_ms INTEGER,
                changed_seq INTEGER
            );
            CREATE INDEX cards_customer ON cards (customer_id);
            CREATE INDEX cards_masked ON cards (masked);
            """, db.dialect))
        let now = Timestamp.milliseconds(Date())
        for card in DemoBank.seedCards where try db.exists("SELECT 1 FROM accounts WHERE number = ?", card.account) {
            try db.execute("""
                INSERT INTO cards (customer_id, account, masked, last_four, scheme, issued_ms, blocked) VALUES (NULL, ?, ?, ?, ?, ?, ?)
                """, card.account, card.masked, card.lastFour, card.scheme, now, false)
        }
    }
}
