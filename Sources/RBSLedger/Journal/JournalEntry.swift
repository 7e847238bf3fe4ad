import Crypto
import Foundation

/// One entry of the hash-chained journal: a signed document together with its outcome.
///
/// The outcome lives in the same entry as the document because both are written in the same transaction as
/// the posting: an entry exists exactly when its outcome happened. `kind` is `posted`, `rejected` or
/// `acknowledged` (no amount, nothing to post).
///
/// ``hash`` is SHA-256 over, in this order, each part written as a 4-byte big-endian length and its bytes
/// (an absent optional as the length 0xFFFFFFFF and no bytes): the tag `RBSJ1`, the sequence number (decimal
/// text), kind, document id, canonical document bytes, signature, key id, reason code, reason, debit,
/// credit, amount, currency, balance after, recorded-at milliseconds (decimal text), and the previous entry's
/// hash (32 zero bytes before the first entry). An entry that records its ``Authorization`` (every entry since the
/// signing method was recorded) has the tag `RBSJ2` instead, and after the recorded-at time the method, suite,
/// challenge, response and secret id. An entry signed in a basket has the tag `RBSJ3` and, after the
/// authorization, the basket id (the basket's canonical list and signature are stored once, in `baskets`).
/// An entry that completes a document awaiting its second signature has the tag `RBSJ4` and, after the secret id,
/// the basket id (empty when none) and the number of the `awaiting` entry it completes (decimal text).
public struct JournalEntry: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, Codable {
        case posted, rejected, acknowledged
        /// Signed by a customer's first user above their second-signer threshold: nothing posted yet; another user
        /// of the customer approves (an entry `posted` or `rejected` by the core then) or declines it (`rejected`).
        case awaiting = "awaiting-second-signature"
    }

    public let sequence: Int64
    public let kind: Kind
    public let documentId: String
    /// The canonical bytes that were signed.
    public let document: Data
    public let signature: Data
    public let keyId: String
    public let reasonCode: String?
    public let reason: String?
    /// The facts a rejection's `reason` was made from (``Rejection/facts``), so it can be said in another language;
    /// empty for other kinds and for entries journaled before schema step v18. Not part of the hash: ``Journal/verify``
    /// checks each fact against the hashed `reason`.
    public internal(set) var reasonFacts: [String: String] = [:]
    /// The row's `reason_facts` is not a JSON object of strings (set when read; `verify` reports it).
    var reasonFactsUnreadable = false
    public let debit: String?
    public let credit: String?
    /// Plain decimal text with the currency's minor units.
    public let amount: String?
    public let currency: String?
    /// The debit account's balance after the posting, plain decimal text.
    public let balanceAfter: String?
    public let recordedAtMilliseconds: Int64
    /// How the person authorised the document; `nil` for entries made before the method was recorded, and for
    /// documents submitted to ``EmbeddedBank`` directly with a signature made elsewhere.
    public let authorization: Authorization?
    /// The basket the document was signed in (``BasketList/id``), or `nil` for a document signed on its own.
    public let basketId: String?
    /// For the second signer's entry: the number of the `awaiting` entry of the same document that it completes.
    /// Its ``keyId``, ``signature`` and ``authorization`` are then the second signer's; the document names the first's key.
    public let secondOf: Int64?
    public private(set) var previousHash: Data
    public private(set) var hash: Data

    /// Whether this entry is stored and numbered but not yet chained (PostgreSQL, schema step
    /// `v29-chain-integrated-apart`: its hashes are filled by the next integration).
    var isUnintegrated: Bool { hash.isEmpty && previousHash.isEmpty }

    /// This entry chained after an entry whose hash is `previous`, as integration chains it.
    func chained(after previous: Data) -> JournalEntry {
        var entry = self
        entry.previousHash = previous
        entry.hash = entry.computedHash
        return entry
    }

    /// The hash of the first entry's predecessor.
    static let genesisHash = Data(repeating: 0, count: 32)

    /// What a second signer signs to decline a document: a tag, then the document's canonical bytes — never the
    /// bytes alone, so a decline's signature cannot pass for an approval.
    static func declineMessage(_ document: Data) -> Data { Data("RBS-DECLINE\n".utf8) + document }

    /// The bytes ``signature`` signs: the document, or for a second signer's decline ``declineMessage(_:)``.
    var signedMessage: Data {
        secondOf != nil && reasonCode == Rejection.Code.declined.rawValue ? Self.declineMessage(document) : document
    }

    /// The hash this entry's content and predecessor give (``hash`` should equal it).
    var computedHash: Data {
        let parts = hashedParts
        return Self.chainHash(before: parts.before, sequence: sequence, between: parts.between, previousHash: previousHash)
    }

    /// The SHA-256 that ``hash`` is: `before`, the sequence number as a part, `between`, the previous hash as a part.
    /// PostgreSQL's `rbs_v21_hash` (schema step `v21-chain-in-server`) computes the same bytes inside the server.
    /// Hashed in place, part after part (group commit's committing thread hashes every entry it journals).
    static func chainHash(before: [UInt8], sequence: Int64, between: [UInt8], previousHash: Data) -> Data {
        var hasher = SHA256()
        before.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        var number: [UInt8] = []
        number.reserveCapacity(24)
        appendText(String(sequence), to: &number)
        number.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        between.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        var previous: [UInt8] = []
        previous.reserveCapacity(4 + previousHash.count)
        appendBytes(previousHash, to: &previous)
        previous.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        return hasher.finalize().withUnsafeBytes { Data($0) }
    }

    /// A part of the hashed bytes holding `text`'s UTF-8: its 4-byte big-endian length, then the bytes (copied whole,
    /// not byte by byte through the view).
    private static func appendText(_ text: String, to buffer: inout [UInt8]) {
        var text = text
        text.withUTF8 { bytes in
            appendLength(UInt32(bytes.count), to: &buffer)
            buffer.append(contentsOf: bytes)
        }
    }

    /// A part of the hashed bytes holding `bytes`: its 4-byte big-endian length, then the bytes.
    private static func appendBytes(_ bytes: Data, to buffer: inout [UInt8]) {
        appendLength(UInt32(bytes.count), to: &buffer)
        bytes.withUnsafeBytes { buffer.append(contentsOf: $0) }
    }

    /// A part's length as 4 bytes, big-endian (0xFFFFFFFF, with no bytes after it, for an absent optional).
    private static func appendLength(_ n: UInt32, to buffer: inout [UInt8]) {
        buffer.append(UInt8(n >> 24))
        buffer.append(UInt8(n >> 16 & 0xFF))
        buffer.append(UInt8(n >> 8 & 0xFF))
        buffer.append(UInt8(n & 0xFF))
    }

    /// The hashed bytes around the two parts that depend on the entry's place in the chain: `before` the sequence
    /// number (the tag) and `between` it and the previous hash (everything else). A host whose entry is numbered by
    /// the server at commit sends these, and the server hashes them with the number and predecessor it binds.
    var hashedParts: (before: [UInt8], between: [UInt8]) {
        var before: [UInt8] = []
        before.reserveCapacity(9)
        Self.appendText(secondOf != nil ? "RBSJ4" : basketId != nil ? "RBSJ3" : authorization == nil ? "RBSJ1" : "RBSJ2", to: &before)
        var buffer: [UInt8] = []
        buffer.reserveCapacity(256 + document.count + signature.count
                               + (authorization.map { $0.suite.utf8.count + ($0.challenge?.utf8.count ?? 0) + ($0.response?.utf8.count ?? 0) } ?? 0)
                               + (reason?.utf8.count ?? 0))
        func part(_ bytes: Data?) {
            guard let bytes else { return Self.appendLength(0xFFFF_FFFF, to: &buffer) }
            Self.appendBytes(bytes, to: &buffer)
        }
        func text(_ value: String?) {
            guard let value else { return Self.appendLength(0xFFFF_FFFF, to: &buffer) }
            Self.appendText(value, to: &buffer)
        }
        text(kind.rawValue)
        text(documentId)
        part(document)
        part(signature)
        text(keyId)
        text(reasonCode)
        text(reason)
        text(debit)
        text(credit)
        text(amount)
        text(currency)
        text(balanceAfter)
        text(String(recordedAtMilliseconds))
        if let authorization {
            text(authorization.method.rawValue)
            text(authorization.suite)
            text(authorization.challenge)
            text(authorization.response)
            text(authorization.secretId)
        }
        if let secondOf {
            text(basketId ?? "")
            text(String(secondOf))
        } else if let basketId {
            text(basketId)
        }
        return (before, buffer)
    }

    init(
        sequence: Int64, kind: Kind, documentId: String, document: Data, signature: Data, keyId: String,
        reasonCode: String? = nil, reason: String? = nil, debit: String? = nil, credit: String? = nil,
        amount: String? = nil, currency: String? = nil, balanceAfter: String? = nil,
        recordedAtMilliseconds: Int64, authorization: Authorization? = nil, basketId: String? = nil, secondOf: Int64? = nil,
        previousHash: Data,
        hash: Data? = nil
    ) {
        self.sequence = sequence
        self.kind = kind
        self.documentId = documentId
        self.document = document
        self.signature = signature
        self.keyId = keyId
        self.reasonCode = reasonCode
        self.reason = reason
        self.debit = debit
        self.credit = credit
        self.amount = amount
        self.currency = currency
        self.balanceAfter = balanceAfter
        self.recordedAtMilliseconds = recordedAtMilliseconds
        self.authorization = authorization
        self.basketId = basketId
        self.secondOf = secondOf
        self.previousHash = previousHash
        self.hash = hash ?? Data()
        // A new entry's hash is computed from its own content; a stored one is kept as read, to be checked.
        if hash == nil { self.hash = computedHash }
    }

    /// Reads a journal row; a damaged row (wrong types, NULLs, unknown kind) is reported, never trapped on.
    init(row: SQLRow) throws(LedgerError) {
        let sequence = (try? row.decode(Int64.self, forColumn: "seq")) ?? -1
        do {
            let kindText = try row.decode(String.self, forColumn: "kind")
            guard let kind = Kind(rawValue: kindText) else {
                throw LedgerError.unreadableEntry(sequence: sequence, detail: "unknown kind \"\(kindText)\"")
            }
            var authorization: Authorization?
            if let methodText = try row.decode(String?.self, forColumn: "auth_method") {
                guard let method = SigningMethod(rawValue: methodText) else {
                    throw LedgerError.unreadableEntry(sequence: sequence, detail: "unknown signing method \"\(methodText)\"")
                }
                authorization = Authorization(
                    method: method, suite: try row.decode(String.self, forColumn: "auth_suite"),
                    challenge: try row.decode(String?.self, forColumn: "auth_challenge"),
                    response: try row.decode(String?.self, forColumn: "auth_response"),
                    secretId: try row.decode(String.self, forColumn: "auth_secret_id"))
            }
            self.init(
                sequence: try row.decode(Int64.self, forColumn: "seq"), kind: kind,
                documentId: try row.decode(String.self, forColumn: "document_id"),
                document: try row.decode(Data.self, forColumn: "document"),
                signature: try row.decode(Data.self, forColumn: "signature"),
                keyId: try row.decode(String.self, forColumn: "key_id"),
                reasonCode: try row.decode(String?.self, forColumn: "reason_code"),
                reason: try row.decode(String?.self, forColumn: "reason"),
                debit: try row.decode(String?.self, forColumn: "debit"),
                credit: try row.decode(String?.self, forColumn: "credit"),
                amount: try row.decode(String?.self, forColumn: "amount"),
                currency: try row.decode(String?.self, forColumn: "currency"),
                balanceAfter: try row.decode(String?.self, forColumn: "balance_after"),
                recordedAtMilliseconds: try row.decode(Int64.self, forColumn: "recorded_ms"),
                authorization: authorization,
                basketId: try row.decode(String?.self, forColumn: "basket_id"),
                secondOf: try row.decode(Int64?.self, forColumn: "second_of"),
                previousHash: try row.decode(Data.self, forColumn: "prev_hash"),
                hash: try row.decode(Data.self, forColumn: "hash"))
            // Facts that do not decode are none (the message stays); `verify` names the entry.
            if let text = try row.decode(String?.self, forColumn: "reason_facts") {
                if let facts = Self.decodeFacts(text) { reasonFacts = facts } else { reasonFactsUnreadable = true }
            }
        } catch let error as LedgerError {
            throw error
        } catch {
            throw .unreadableEntry(sequence: sequence, detail: String(describing: error))
        }
    }

    /// Appends this entry (its sequence and previous hash must follow the last entry). `createdAtMilliseconds` is
    /// its document's `created_at` (the caller has the document decoded), which leads its ``documentKey(of:createdAtMilliseconds:)``.
    func insert(_ db: any SQLTransaction, createdAtMilliseconds: Int64) throws {
        let sql = """
            INSERT INTO journal (seq, kind, document_id, document, signature, key_id, reason_code, reason, debit, credit,
                                 amount, currency, balance_after, recorded_ms, prev_hash, hash, document_key,
                                 auth_method, auth_suite, auth_challenge, auth_response, auth_secret_id, basket_id, second_of,
                                 reason_facts)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """
        let arguments: [SQLValue] = [
            .integer(sequence), .text(kind.rawValue), .text(documentId), .blob(document), .blob(signature), .text(keyId),
            reasonCode.sqlValue, reason.sqlValue, debit.sqlValue, credit.sqlValue, amount.sqlValue, currency.sqlValue,
            balanceAfter.sqlValue, .integer(recordedAtMilliseconds), .blob(previousHash), .blob(hash),
            .integer(Self.documentKey(of: documentId, createdAtMilliseconds: createdAtMilliseconds)),
            authorization?.method.rawValue.sqlValue ?? .null,
            authorization?.suite.sqlValue ?? .null, authorization?.challenge.sqlValue ?? .null,
            authorization?.response.sqlValue ?? .null, authorization?.secretId.sqlValue ?? .null, basketId.sqlValue,
            secondOf.map { .integer($0) } ?? .null,
            reasonFacts.isEmpty ? .null : .text(Self.encodeFacts(reasonFacts)),
        ]
        // Numbered by the server at commit (PostgreSQL's one-call writes with v21): the number, the predecessor's
        // hash and this entry's hash are bound there, from the parts of the hashed bytes that do not depend on them.
        if let sequenced = db as? any CommitSequencedTransaction, sequenced.isProvisional(sequence) {
            let parts = hashedParts
            try sequenced.insertEntry(sql, arguments: arguments, sequenceArgument: 0, previousHashArgument: 14, hashArgument: 15,
                                      literalArguments: [16], hashedBefore: parts.before, hashedBetween: parts.between)
        } else {
            try db.execute(sql, arguments: arguments)
        }
    }

    /// The journal's compact lookup key for a document (the `document_key` column, indexed; schema step
    /// `v15-ordered-document-key`): the document's `created_at` in milliseconds in the high 42 bits, the first 21
    /// bits of its id below. Not unique by itself — a lookup always compares the full `document_id` too — but a
    /// function of the document alone, so a repeat of a document finds its first entry by it. Leading with the time
    /// makes the keys of documents drafted moments ago arrive nearly in order, so a batch's inserts land on the
    /// index's last few pages instead of one random page each (87 WAL pages a batch of 100 at 15,000 entries with
    /// the id's bytes alone, growing with the journal). Times outside 1970…2109 are clamped (the key only loses its
    /// order). Not covered by the hash; ``Journal/verify(authenticator:)`` checks it.
    static func documentKey(of documentId: String, createdAtMilliseconds: Int64) -> Int64 {
        let time = UInt64(min(max(createdAtMilliseconds, 0), Int64(1) << 42 - 1))
        var prefix: UInt64 = 0
        var digits = 0
        for byte in documentId.utf8 {
            guard digits < 6 else { break }
            let value: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value = byte - UInt8(ascii: "A") + 10
            default: return Int64(time << 21)  // not a hex id: the time alone, still told apart by the full id
            }
            prefix = prefix << 4 | UInt64(value)
            digits += 1
        }
        // 6 hex digits are 24 bits: the first 21 of them.
        return Int64(time << 21 | (digits == 6 ? prefix >> 3 : 0))
    }

    /// ``documentKey(of:createdAtMilliseconds:)`` of a stored document, its time read from its canonical bytes
    /// (time 0 when they do not hold one: such bytes fail ``Journal/verify(authenticator:)`` before the key is looked at).
    static func documentKey(of documentId: String, canonical: Data) -> Int64 {
        documentKey(of: documentId, createdAtMilliseconds: createdAtMilliseconds(ofCanonical: canonical) ?? 0)
    }

    /// The `created_at` of canonical document bytes (its 5th line, `CANONICAL.md`), without decoding the rest.
    static func createdAtMilliseconds(ofCanonical bytes: Data) -> Int64? {
        var line = 1
        var start = bytes.startIndex
        for index in bytes.indices where bytes[index] == 0x0A {
            if line == 5 {
                let prefix = "created_at=".utf8
                guard let text = String(data: bytes[start..<index], encoding: .utf8), text.utf8.starts(with: prefix) else { return nil }
                return Timestamp.parse(String(text.dropFirst(prefix.count)))
            }
            line += 1
            start = bytes.index(after: index)
        }
        return nil
    }
}

extension JournalEntry: Codable {
    private enum CodingKeys: String, CodingKey {
        case sequence, kind, documentId, document, signature, keyId, reasonCode, reason, debit, credit, amount, currency
        case balanceAfter, recordedAt, authorization, basket, secondOf, previousHash, hash
    }

    /// The JSON form of ``Authorization``.
    private struct AuthorizationJSON: Codable {
        var method: SigningMethod
        var suite: String
        var challenge: String?
        var response: String?
        var secretId: String
        /// Whether the code depended on the document (OCRA): written for people, ignored when read.
        var transactionBound: Bool?
    }

    /// The JSON form (`rbs-host journal --json`): the document as its canonical text, signature and hashes as
    /// lowercase hex, the time as ISO 8601 UTC with milliseconds.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(sequence, forKey: .sequence)
        try c.encode(kind, forKey: .kind)
        try c.encode(documentId, forKey: .documentId)
        try c.encode(String(decoding: document, as: UTF8.self), forKey: .document)
        try c.encode(Hex.encode(signature), forKey: .signature)
        try c.encode(keyId, forKey: .keyId)
        try c.encodeIfPresent(reasonCode, forKey: .reasonCode)
        try c.encodeIfPresent(reason, forKey: .reason)
        try c.encodeIfPresent(debit, forKey: .debit)
        try c.encodeIfPresent(credit, forKey: .credit)
        try c.encodeIfPresent(amount, forKey: .amount)
        try c.encodeIfPresent(currency, forKey: .currency)
        try c.encodeIfPresent(balanceAfter, forKey: .balanceAfter)
        try c.encode(Timestamp.format(milliseconds: recordedAtMilliseconds), forKey: .recordedAt)
        try c.encodeIfPresent(authorization.map {
            AuthorizationJSON(method: $0.method, suite: $0.suite, challenge: $0.challenge, response: $0.response,
                              secretId: $0.secretId, transactionBound: $0.method.isTransactionBound)
        }, forKey: .authorization)
        try c.encodeIfPresent(basketId, forKey: .basket)
        try c.encodeIfPresent(secondOf, forKey: .secondOf)
        try c.encode(Hex.encode(previousHash), forKey: .previousHash)
        try c.encode(Hex.encode(hash), forKey: .hash)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func hex(_ key: CodingKeys) throws -> Data {
            let text = try c.decode(String.self, forKey: key)
            guard let data = Hex.decode(text) else {
                throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "not hex: \(text)")
            }
            return data
        }
        let recordedText = try c.decode(String.self, forKey: .recordedAt)
        guard let recorded = Timestamp.parse(recordedText) else {
            throw DecodingError.dataCorruptedError(forKey: .recordedAt, in: c, debugDescription: "not YYYY-MM-DDTHH:MM:SS.mmmZ")
        }
        self.init(
            sequence: try c.decode(Int64.self, forKey: .sequence), kind: try c.decode(Kind.self, forKey: .kind),
            documentId: try c.decode(String.self, forKey: .documentId),
            document: Data(try c.decode(String.self, forKey: .document).utf8), signature: try hex(.signature),
            keyId: try c.decode(String.self, forKey: .keyId),
            reasonCode: try c.decodeIfPresent(String.self, forKey: .reasonCode),
            reason: try c.decodeIfPresent(String.self, forKey: .reason),
            debit: try c.decodeIfPresent(String.self, forKey: .debit),
            credit: try c.decodeIfPresent(String.self, forKey: .credit),
            amount: try c.decodeIfPresent(String.self, forKey: .amount),
            currency: try c.decodeIfPresent(String.self, forKey: .currency),
            balanceAfter: try c.decodeIfPresent(String.self, forKey: .balanceAfter),
            recordedAtMilliseconds: recorded,
            authorization: try c.decodeIfPresent(AuthorizationJSON.self, forKey: .authorization).map {
                Authorization(method: $0.method, suite: $0.suite, challenge: $0.challenge, response: $0.response, secretId: $0.secretId)
            },
            basketId: try c.decodeIfPresent(String.self, forKey: .basket),
            secondOf: try c.decodeIfPresent(Int64.self, forKey: .secondOf),
            previousHash: try hex(.previousHash), hash: try hex(.hash))
    }
}

extension JournalEntry {
    /// A rejection's facts as stored: a JSON object of strings, keys sorted (one spelling for one set of facts).
    static func encodeFacts(_ facts: [String: String]) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: facts, options: [.sortedKeys]) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    static func decodeFacts(_ text: String) -> [String: String]? {
        try? JSONDecoder().decode([String: String].self, from: Data(text.utf8))
    }

    /// The facts a rejection's reason was made from, checked against its hashed English message: each fact that
    /// the message spells out must be in it, so a Russian reason cannot say other facts than the signed chain does.
    /// The direction of a blocked account and an invisible character's code, name and position are said in other
    /// words. Nil when they agree.
    var reasonFactsProblem: String? {
        if reasonFactsUnreadable { return "its rejection's facts (reason_facts) are not a JSON object of strings" }
        guard !reasonFacts.isEmpty else { return nil }
        guard kind == .rejected, let reason else { return "it holds rejection facts but is no rejection" }
        let saidOtherwise: Set<String> = ["direction", "character", "name", "position"]
        for (key, value) in reasonFacts.sorted(by: { $0.key < $1.key }) where !saidOtherwise.contains(key) && !reason.contains(value) {
            return "its rejection's fact \(key)=\"\(value)\" is not in its journaled reason (the reason_facts column was altered)"
        }
        return nil
    }
}
