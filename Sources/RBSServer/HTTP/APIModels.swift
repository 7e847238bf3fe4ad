import Foundation
import RBSCore
import RBSLedger

/// The JSON bodies of /api/v1 (described in `openapi.json`, which must be changed with them).
package enum API {
    package struct LoginRequest: Decodable, Sendable {
        package var customer: String
        package var password: String
    }

    package struct LoginAnswer: Encodable, Sendable {
        package var customer: String
        package var token: String
        package var expiresAt: String
    }

    package struct Me: Encodable, Sendable {
        package var customer: String
        /// Whether the customer registered a passkey (then documents are signed with it, not with a code).
        package var passkey: Bool
    }

    /// What `navigator.credentials.create` needs to register a passkey (`POST /api/v1/passkeys/challenge`).
    package struct PasskeyOptions: Encodable, Sendable {
        /// 32 random bytes, base64url: valid for five minutes, used once.
        package var challenge: String
        package var rpId: String
        package var rpName: String
        /// The customer's stable id as bytes, base64url (WebAuthn's user handle).
        package var userId: String
        package var userName: String
        /// COSE algorithms accepted, in order of preference: ES256 (-7), EdDSA (-8).
        package var algorithms: [Int]
        package var timeoutMs: Int
    }

    /// The browser's answer to `navigator.credentials.create`, every field base64url (`POST /api/v1/passkeys`).
    package struct PasskeyRegistration: Decodable, Sendable {
        package var credentialId: String
        package var clientDataJSON: String
        package var attestationObject: String
        /// The customer's current one-time code: enrolling an authenticator is a sensitive action (step-up).
        package var code: String?
    }

    package struct PasskeyRegistered: Encodable, Sendable {
        package var credentialId: String
        package var algorithm: String
        package var keyId: String
    }

    /// What `navigator.credentials.get` needs to sign a reviewed document with the customer's passkey.
    package struct PasskeyRequest: Encodable, Sendable {
        /// The document's hash (its id) as bytes, base64url: the assertion signs exactly this document.
        package var challenge: String
        package var rpId: String
        /// The customer's passkey, base64url.
        package var credentialIds: [String]
        package var userVerification: String
    }

    /// The browser's answer to `navigator.credentials.get`, every field base64url.
    package struct PasskeyAssertionJSON: Decodable, Sendable {
        package var credentialId: String
        package var authenticatorData: String
        package var clientDataJSON: String
        package var signature: String
    }

    package struct Operation: Encodable, Sendable {
        package var id: String
        package var title: String
        package var category: String
        package var plugin: String
        package var pluginVersion: String
        /// Present only when the operation cannot be run now (its plugin is quarantined): why, as `list --json` says.
        package var unavailable: String?
    }

    package struct AccountJSON: Encodable, Sendable {
        package var number: String
        package var title: String
        package var currency: String
        package var balance: String
        package var blocked: Bool
    }

    package struct Option: Encodable, Sendable, Equatable {
        package var value: String
        package var title: String
    }

    /// An atom's value: text, or true/false for a toggle.
    package enum Value: Codable, Sendable, Equatable {
        case text(String)
        case flag(Bool)

        package init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let flag = try? container.decode(Bool.self) { self = .flag(flag) } else { self = .text(try container.decode(String.self)) }
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .text(let text): try container.encode(text)
            case .flag(let flag): try container.encode(flag)
            }
        }
    }

    package struct Atom: Encodable, Sendable, Equatable {
        package var id: String
        package var kind: String
        package var caption: String
        package var hint: String?
        package var inputType: String?
        package var currency: String?
        package var value: Value
        package var visible: Bool
        package var error: String?
        package var optional: Bool
        package var secret: Bool
        package var submit: Bool
        package var maxLength: Int?
        package var options: [Option]?
        package var accounts: [AccountChoice]?
    }

    package struct AccountChoice: Encodable, Sendable, Equatable {
        package var number: String
        package var title: String
        package var currency: String
        package var balance: String
    }

    package struct Run: Encodable, Sendable {
        package var id: String
        package var operation: String
        package var title: String
        package var plugin: String
        package var pluginVersion: String
        package var state: String
        package var ready: Bool
        package var formError: String?
        package var atoms: [Atom]
        /// A signed run's receipt (a reloaded receipt page shows it again), else nil.
        package var receipt: Receipt? = nil
        /// A run opened from a template or a journal entry: the atoms whose values the operation no longer has,
        /// and the values it refuses now (each with why); absent when every value was filled in.
        package var dropped: [String]? = nil
        package var refused: [Problem.Issue]? = nil
    }

    /// One of the customer's templates (`GET /api/v1/templates`): a name, the operation, the values it fills in.
    package struct Template: Encodable, Sendable {
        package var name: String
        package var operation: String
        /// The operation's title (the plugin's), or its id when no loaded plugin offers it now.
        package var title: String
        package var values: [FormTemplate.Value]
    }

    /// `POST /api/v1/templates`: a name and where the values come from — an open run's form, or the form a
    /// journal entry of the customer's was signed from.
    package struct TemplateRequest: Decodable, Sendable {
        package var name: String
        package var run: String?
        package var entry: Int64?
    }

    package struct RenameRequest: Decodable, Sendable {
        package var name: String
    }

    /// One of the customer's open runs (`GET /api/v1/runs`): what a reloaded page resumes.
    package struct RunSummary: Encodable, Sendable {
        package var id: String
        package var operation: String
        package var title: String
        /// What the form holds, on one line (its amounts, then the first text typed), so two open forms of one
        /// operation can be told apart; absent while nothing is filled in.
        package var summary: String?
        package var state: String
        /// When the run was last used, and when it expires unused (ISO 8601).
        package var lastUsedAt: String
        package var expiresAt: String
    }

    /// The words of the web page in one language (`GET /api/v1/messages`).
    package struct Messages: Encodable, Sendable {
        package var lang: String
        package var messages: [String: String]
        /// Minutes an unused run stays open (the page says so).
        package var runIdleMinutes: Int
    }

    package struct OpenRequest: Decodable, Sendable {
        package var operation: String
    }

    /// `POST /api/v1/qr`: a payment QR code as its text, or as a picture (base64 of a PNG or JPEG file).
    package struct QRRequest: Decodable, Sendable {
        package var text: String?
        package var image: String?
    }

    /// What a payment QR code opens: the operation, the values to commit to its atoms in this order (each checked by
    /// the form as it is committed), and the code's fields no atom takes, to show beside the form.
    package struct QRPrefill: Encodable, Sendable {
        package struct Value: Encodable, Sendable {
            package var atom: String
            package var value: String
        }
        package struct Field: Encodable, Sendable {
            package var field: String
            package var value: String
        }
        package var operation: String
        package var encoding: String
        package var values: [Value]
        package var shownOnly: [Field]
    }

    package struct CommitRequest: Decodable, Sendable {
        package var value: JSONValue
    }

    /// Only what changed: every atom whose caption, visibility, value or error differs after the commit.
    package struct Changes: Encodable, Sendable {
        package var changed: [Atom]
        package var ready: Bool
        package var formError: String?
    }

    package struct ReviewLine: Encodable, Sendable {
        package var caption: String
        package var value: String
        package var prominent: Bool
        /// The form's atom the value came from: the review's "change" link leads back to it.
        package var atom: String? = nil
    }

    package struct Review: Encodable, Sendable {
        package var fields: [ReviewLine]
        package var amount: String?
        package var currency: String?
        /// The fee the document carries (plain decimal text, in `currency`), absent when it carries none; the core posts
        /// it with the amount to the bank's fee income account.
        package var fee: String? = nil
        /// What leaves the debit account: the amount plus the fee; absent, as `fee` is, when there is no fee.
        package var totalDebited: String? = nil
        package var payee: String?
        /// The heading of a document that moves no money, in the request's language ("Block the card 4111 11** **** 1111"),
        /// where a payment is headed by its amount and payee; absent for a payment.
        package var heading: String? = nil
        /// The document's id: the SHA-256 of its canonical bytes, which the signature covers.
        package var documentHash: String
        /// How this customer signs: `totp` (send `code`) or `passkey` (send `passkey`, the assertion of ``passkey``).
        package var method: String
        /// With `method` `passkey`: what to ask the browser for.
        package var passkey: PasskeyRequest?
        /// The customer's posted payment of the last 24 hours this document repeats (same payee, account, amount
        /// and purpose), or nil: the client asks the person, and signs with `confirmDuplicate: true` only if they say so.
        package var duplicate: Duplicate?
    }

    /// An earlier posted payment that a new document repeats: the review's warning and the `duplicate` problem's.
    package struct Duplicate: Encodable, Sendable, Equatable {
        /// The earlier entry's journal number (null when it repeats a document of the same basket).
        package var journal: Int64?
        /// When it was posted (or signed, when it awaits its second signature), ISO 8601 UTC (null when it repeats a
        /// document of the same basket).
        package var postedAt: String?
        /// The earlier entry's outcome: `posted`, or `awaiting-second-signature` (signed, not posted yet, it posts
        /// when approved); null when it repeats a document of the same basket.
        package var status: String? = nil
        package var amount: String? = nil
        package var currency: String? = nil
        package var payee: String? = nil
        package var account: String? = nil
        package var purpose: String? = nil
        /// What to tell the person ("this payment repeats journal entry 4, posted …").
        package var message: String
        /// The earlier document of the same basket it repeats (1-based), when that is what it repeats.
        package var document: Int? = nil
        /// The repeating document's position in its basket (1-based), for a basket.
        package var position: Int? = nil

        private enum CodingKeys: String, CodingKey { case journal, postedAt, status, amount, currency, payee, account, purpose, message, document, position }

        /// `journal` and `postedAt` are always there, null for a repeat of a document of the same basket (as the
        /// schema and the README say: they were left out); the rest when known.
        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(journal, forKey: .journal)
            try container.encode(postedAt, forKey: .postedAt)
            try container.encodeIfPresent(status, forKey: .status)
            try container.encodeIfPresent(amount, forKey: .amount)
            try container.encodeIfPresent(currency, forKey: .currency)
            try container.encodeIfPresent(payee, forKey: .payee)
            try container.encodeIfPresent(account, forKey: .account)
            try container.encodeIfPresent(purpose, forKey: .purpose)
            try container.encode(message, forKey: .message)
            try container.encodeIfPresent(document, forKey: .document)
            try container.encodeIfPresent(position, forKey: .position)
        }
    }

    /// Exactly one of `code` (TOTP) and `passkey` (the assertion); `requestId` makes a retry safe: the same id
    /// from the same customer answers the first outcome and never posts twice.
    package struct SignRequest: Decodable, Sendable {
        package var code: String?
        package var passkey: PasskeyAssertionJSON?
        package var requestId: String?
        /// The person confirmed signing a payment that repeats one posted in the last 24 hours (see ``Duplicate``);
        /// without it such a signing is answered 409 `duplicate` and nothing is signed.
        package var confirmDuplicate: Bool?
        /// The `documentHash` of the review the person authorises: when the run's document is another one (the form
        /// was changed and reviewed again since, in another window), 409 `review-changed` and nothing is signed.
        package var documentHash: String?
    }

    /// A document awaiting a second signature (`GET /pending`).
    package struct PendingDocument: Encodable, Sendable {
        /// The awaiting journal entry's number: what approve and reject name.
        package var journal: Int64
        package var documentHash: String
        package var signedAt: String
        /// The user who signed first.
        package var signedBy: String
        package var operation: String
        package var debit: String?
        package var credit: String?
        package var amount: String?
        package var currency: String?
        /// The document's fee and the amount plus the fee, as in the review; absent without a fee.
        package var fee: String? = nil
        package var totalDebited: String? = nil
        package var payee: String?
        package var purpose: String?
        /// Every field of the signed document (card numbers masked, as signed).
        package var fields: [String: String]
        /// False for the user who signed first: they cannot be the second signer.
        package var canSign: Bool
        /// The journal entry of a payment posted in the last 24 hours that this one repeats; approving it then needs
        /// `confirmDuplicate` (else 409 `duplicate`). Absent when it repeats none.
        package var duplicate: Int64? = nil
    }

    /// `POST /pending/{entry}/approve {code}` and `/reject {code, reason}`: the second signer's own one-time code.
    package struct DecideRequest: Decodable, Sendable {
        package var code: String
        package var reason: String?
        /// Approve a payment that repeats one posted in the last 24 hours (as signing's `confirmDuplicate`).
        package var confirmDuplicate: Bool?
    }

    package struct Posting: Encodable, Sendable {
        package var debit: String
        package var credit: String
        package var amount: String
        package var currency: String
        package var balanceAfter: String
        /// The fee posted with the amount (to `feeAccount`, the bank's fee income account), absent without one.
        package var fee: String? = nil
        package var feeAccount: String? = nil
        /// The amount plus the fee: what left the debit account; absent, as `fee` is, when there is no fee.
        package var totalDebited: String? = nil
    }

    package struct Receipt: Encodable, Sendable {
        package var status: String
        package var journal: Int64
        package var documentHash: String
        package var posting: Posting?
        package var reason: String?
        /// `reason` in the request's language, from the rejection's journaled facts (absent without a reason).
        package var reasonText: String? = nil
        /// The entry as a person reads it (`journal show`'s and the receipt's presentation), in the request's
        /// language: a title and labelled sections, for the web client to render as given.
        package var title: String?
        package var sections: [Section]?
    }

    /// Rows under a heading: one presentation of a journal entry (``EntryReport``), the same words as `journal show`.
    package struct Section: Encodable, Sendable {
        package var title: String
        package var rows: [Row]

        package struct Row: Encodable, Sendable {
            package var label: String
            package var value: String
            /// The document field the row shows, or null for a fact of the entry.
            package var field: String?

            private enum CodingKeys: String, CodingKey { case label, value, field }

            package func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(label, forKey: .label)
                try container.encode(value, forKey: .value)
                try container.encode(field, forKey: .field)
            }
        }

        /// The sections of `report`.
        package static func of(_ report: EntryReport) -> [Section] {
            report.sections.map { section in
                Section(title: section.title, rows: section.rows.map { Row(label: $0.label, value: $0.value, field: $0.field) })
            }
        }
    }

    /// `POST /api/v1/baskets`: the customer's reviewed runs, in the order the basket lists them.
    package struct BasketRequest: Decodable, Sendable {
        package var runs: [String]
    }

    package struct BasketTotal: Encodable, Sendable {
        package var currency: String
        /// Plain decimal text with the currency's minor units.
        package var amount: String
    }

    /// One document of a basket's review.
    package struct BasketDocument: Encodable, Sendable {
        package var run: String
        package var operation: String
        package var documentHash: String
        package var amount: String?
        package var currency: String?
        /// The fee the document carries (plain decimal text, in `currency`), absent when it carries none; the core posts
        /// it with the amount to the bank's fee income account.
        package var fee: String? = nil
        /// What leaves the debit account: the amount plus the fee; absent, as `fee` is, when there is no fee.
        package var totalDebited: String? = nil
        package var payee: String?
        package var payeeAccount: String?
        package var fields: [ReviewLine]
        /// Why the bank would refuse this document now (it is still signed, and journaled as rejected unless that
        /// changes), or absent.
        package var refusal: String?
        /// The posted payment of the last 24 hours this one repeats (same payee, account, amount and purpose), for
        /// the customer to check before signing (the basket is then signed with `confirmDuplicate: true`), or absent.
        package var duplicate: Duplicate?
    }

    /// A basket's review: every document, the totals and the basket id — the hash the one code authorises.
    package struct BasketReview: Encodable, Sendable {
        package var basket: String
        package var documents: [BasketDocument]
        package var totals: [BasketTotal]
        /// How this customer signs the basket: `totp` (send `code`).
        package var method: String
    }

    /// `POST /api/v1/baskets/{basket}/sign`: the one-time code; `requestId` makes a retry safe.
    package struct BasketSignRequest: Decodable, Sendable {
        package var code: String
        package var requestId: String?
        /// The person confirmed signing documents that repeat payments posted in the last 24 hours.
        package var confirmDuplicate: Bool?
    }

    /// What became of a basket: `posted` (every document), `partial` or `rejected` (none), and each document's
    /// receipt in the basket's order.
    package struct BasketReceipt: Encodable, Sendable {
        package var basket: String
        package var status: String
        package var totals: [BasketTotal]
        package var receipts: [Receipt]
    }

    package struct JournalLine: Encodable, Sendable {
        package var sequence: Int64
        package var kind: String
        package var documentHash: String
        package var recordedAt: String
        package var debit: String?
        package var credit: String?
        package var amount: String?
        package var currency: String?
        /// The fee the document carries (plain decimal text, in `currency`), absent when it carries none; the core posts
        /// it with the amount to the bank's fee income account.
        package var fee: String? = nil
        /// What leaves the debit account: the amount plus the fee; absent, as `fee` is, when there is no fee.
        package var totalDebited: String? = nil
        package var balanceAfter: String?
        package var reason: String?
        /// `reason` in the request's language, from the rejection's journaled facts (absent without a reason).
        package var reasonText: String? = nil
        /// The basket the document was signed in, or absent.
        package var basket: String?
        /// The document's operation ("pay.pp.quick"), its payee's name and its purpose, when it has them.
        package var operation: String?
        package var payee: String?
        package var purpose: String?
        /// The entry as a person reads it, in the request's language (as a receipt's `title` and `sections`).
        package var title: String?
        package var sections: [Section]?
    }

    /// `GET /health`: `status` is `ok` only when both the data folder (`ledger`) and the tables (`database`) can be
    /// used; otherwise `unavailable`, answered with 503 so a load balancer takes the host out.
    package struct Health: Encodable, Sendable {
        package var status: String
        package var plugins: Int
        package var openRuns: Int
        package var ledger: HealthPart
        package var database: HealthPart

        package init(_ health: LedgerHealth, plugins: Int, openRuns: Int) {
            status = health.isUsable ? "ok" : "unavailable"
            self.plugins = plugins
            self.openRuns = openRuns
            ledger = HealthPart(status: health.folder == nil ? "ok" : "unavailable", place: nil,
                                detail: health.folder.map { LedgerError.dataFolderChanged($0).description })
            database = HealthPart(status: health.database == nil ? "ok" : "unavailable", place: health.place,
                                  detail: health.database?.description)
        }
    }

    /// One part of `/health`: `ok` or `unavailable`, where it is, and why it cannot be used.
    package struct HealthPart: Encodable, Sendable {
        package var status: String
        package var place: String?
        package var detail: String?
    }
}

/// Any JSON value, decoded as given, so a wrong type is reported by the server (naming the atom), not by the decoder.
package enum JSONValue: Decodable, Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array
    /// An object with its members (an amount is `{"amount": "1500.50", "currency": "RUB"}`).
    case object([String: JSONValue])

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let flag = try? container.decode(Bool.self) { self = .bool(flag) }
        else if let number = try? container.decode(Double.self) { self = .number(number) }
        else if let text = try? container.decode(String.self) { self = .string(text) }
        else if (try? container.decode([JSONValue].self)) != nil { self = .array }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
