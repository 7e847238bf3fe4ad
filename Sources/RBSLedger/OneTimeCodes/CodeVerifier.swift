import Crypto
import Foundation

/// Checks the person's codes before signing, for either method, with one count of wrong attempts (Delegated
/// Regulation 2018/389 Art. 4): five wrong in a row lock signing for five minutes, and a code is accepted once.
///
/// - TOTP: ±1 time step of tolerance; a step once accepted is not accepted again.
/// - OCRA: the response must answer the challenge derived from the document being signed (and, when the caller
///   names one, the document must be the one that challenge was issued for); a challenge once answered is not
///   answered again. A wrong response and a response for a changed document fail alike, with one message.
///
/// Its state (the last accepted step, the count of wrong codes, the end of the lock, the answered challenges) is
/// in the database, written in the same transaction as whatever the code authorises, so a restart neither replays
/// a code nor lifts a lock. Time comes from the injected clock.
public struct CodeVerifier: Sendable {
    /// Wrong codes in a row that lock signing.
    public static let maximumFailures = 5
    /// How long signing stays locked, in seconds.
    public static let lockSeconds: Int64 = 300

    let database: LedgerDatabase
    let authenticator: Authenticator
    let clock: @Sendable () -> Date
    /// Whose attempt count, lock and last step: the host's key (`code_state`) or a customer's.
    var state: StateRow = .host

    /// The row that keeps a code state.
    enum StateRow: Sendable {
        /// `code_state`, the host's own key (`rbs-host keys`).
        case host
        /// `customer_code_state` of customer `id` (`rbs-host serve`).
        case customer(Int64)

        var select: (sql: String, arguments: [SQLValue]) {
            switch self {
            case .host: ("SELECT last_step, failures, locked_until_ms FROM code_state WHERE id = 1", [])
            case .customer(let id):
                ("SELECT last_step, failures, locked_until_ms FROM customer_code_state WHERE customer_id = ?", [.integer(id)])
            }
        }

        func update(lastStep: Int64?, failures: Int, lockedUntil: Int64?) -> (sql: String, arguments: [SQLValue]) {
            switch self {
            case .host:
                ("UPDATE code_state SET last_step = ?, failures = ?, locked_until_ms = ? WHERE id = 1",
                 [lastStep.sqlValue, failures.sqlValue, lockedUntil.sqlValue])
            case .customer(let id):
                ("UPDATE customer_code_state SET last_step = ?, failures = ?, locked_until_ms = ? WHERE customer_id = ?",
                 [lastStep.sqlValue, failures.sqlValue, lockedUntil.sqlValue, .integer(id)])
            }
        }
    }

    /// The code as the person typed it, without the spaces authenticator apps show between its groups ("714 502",
    /// "714\u{00A0}502", " 714502 "): the one reading of a typed code, for every front end. Nothing else is removed:
    /// a letter, a sign or a digit too few or too many makes a malformed code, refused without costing an attempt
    /// (it cannot be right, so it tells a guesser nothing, while a digit missed by a person locked their signing).
    public static func digits(of typed: String) -> String {
        String(String.UnicodeScalarView(typed.unicodeScalars.filter { !Self.isSpace($0) }))
    }

    private static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\t" || scalar == "\u{00A0}" || scalar == "\u{202F}" || scalar == "\u{2009}"
    }

    /// Accepts the TOTP `code` or throws why not; the attempt is recorded either way.
    public func verify(_ code: String) throws(LedgerError) {
        let result = try database.write { db in try check(code, for: nil, in: db) }
        if case .failure(let error) = result { throw .code(error) }
    }

    /// Checks `code` inside the caller's write transaction and records the attempt there. The result is a
    /// value, not a throw, so the caller can commit a wrong attempt and then report it. For OCRA, `document` is
    /// the one document being signed and `expectedDocumentId` (when given) the id its challenge was issued for.
    func check(
        _ code: String, for document: Document?, expectedDocumentId: String? = nil, in db: any SQLTransaction
    ) throws -> Result<Authorization, OneTimeCodeError> {
        try check(code, subject: document?.id, expectedSubject: expectedDocumentId, in: db)
    }

    /// ``check(_:for:expectedDocumentId:in:)`` for what the OCRA challenge derives from: `subject` is a document id,
    /// or a basket id (``BasketList/id``: one response for the whole basket), and `expectedSubject` the id the
    /// challenge was issued for. The answered challenge is recorded with the subject's id.
    func check(
        _ typed: String, subject: String?, expectedSubject: String?, in db: any SQLTransaction
    ) throws -> Result<Authorization, OneTimeCodeError> {
        let code = Self.digits(of: typed)
        let now = clock()
        let nowMs = Timestamp.milliseconds(now)
        let select = state.select
        guard let row = try db.rows(select.sql, arguments: select.arguments).first else {
            return .failure(.storage("the code state row is missing"))
        }
        let lastStep = try row.decode(Int64?.self, forColumn: "last_step")
        var failures = try row.decode(Int.self, forColumn: "failures")
        let lockedUntil = try row.decode(Int64?.self, forColumn: "locked_until_ms")

        if let lockedUntil {
            if nowMs < lockedUntil {
                let remaining = Int((lockedUntil - nowMs + 999) / 1000)
                return .failure(.locked(
                    until: Timestamp.date(milliseconds: lockedUntil), remainingSeconds: remaining,
                    failures: failures))
            }
            failures = 0
            try save(db, lastStep: lastStep, failures: 0, lockedUntil: nil)
        }

        func wrong(_ make: (Int) -> OneTimeCodeError) throws -> Result<Authorization, OneTimeCodeError> {
            failures += 1
            let lock = failures >= Self.maximumFailures ? nowMs + Self.lockSeconds * 1000 : nil
            try save(db, lastStep: lastStep, failures: failures, lockedUntil: lock)
            return .failure(make(max(0, Self.maximumFailures - failures)))
        }
        /// A code that cannot be one (not the method's digits): refused as it is, no attempt counted.
        func malformed(_ make: (Int) -> OneTimeCodeError) -> Result<Authorization, OneTimeCodeError> {
            .failure(make(max(0, Self.maximumFailures - failures)))
        }

        let utf8 = Array(code.utf8)
        let secret: Data
        switch authenticator {
        case .totp(let bytes):
            secret = bytes
        case .ocra(let suite, let bytes):
            guard utf8.count == suite.digits, utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
                return malformed { .malformedResponse(digits: suite.digits, attemptsLeft: $0) }
            }
            guard let id = subject else {
                return .failure(.storage("an OCRA response answers one document or one basket; none was given"))
            }
            let challenge = suite.challenge(forDocumentId: id)
            let expected: String
            do { expected = try OCRA.response(suite: suite, secret: bytes, input: .init(challenge: challenge)) } catch {
                return .failure(.storage(error.description))
            }
            // Both conditions are always evaluated and fail alike: nothing tells which one did.
            let sameDocument = expectedSubject.map { Self.constantTimeEqual($0, id) } ?? true
            let answers = Self.constantTimeEqual(expected, code)
            guard sameDocument && answers else { return try wrong { .wrongResponse(attemptsLeft: $0) } }
            if try db.value(Bool.self, "SELECT 1 FROM ocra_used WHERE challenge = ?", challenge) == true {
                return .failure(.challengeUsed)
            }
            try db.execute("INSERT INTO ocra_used (challenge, document_id, used_ms) VALUES (?, ?, ?)",
                           challenge, id, nowMs)
            try db.execute("DELETE FROM ocra_pending WHERE document_id = ?", id)
            try db.execute("DELETE FROM basket_pending WHERE basket_id = ?", id)
            try save(db, lastStep: lastStep, failures: 0, lockedUntil: nil)
            return .success(Authorization(method: .ocra, suite: suite.text, challenge: challenge, response: code,
                                          secretId: authenticator.secretId))
        }
        guard utf8.count == 6, utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return malformed { .malformed(attemptsLeft: $0) }
        }
        let current = TOTP.step(at: now)
        var matches: [UInt64] = []
        for step in [current &- 1, current, current &+ 1] where step <= current &+ 1 {
            // Compare every candidate fully, so timing does not tell which step matched.
            if Self.constantTimeEqual(HOTP.code(secret: secret, counter: step), code) { matches.append(step) }
        }
        guard !matches.isEmpty else { return try wrong { .wrong(attemptsLeft: $0) } }
        // Two neighbouring steps can give the same six digits (one time in a million): the earliest step not used
        // yet is the one accepted. Taking the earliest that matched refused a fresh code as already used when the
        // step before had the same digits and was used (`rbs-bench signer` met it after ~15,000 payments).
        guard let matched = matches.first(where: { step in lastStep.map { Int64(clamping: step) > $0 } ?? true }) else {
            return .failure(.replayed)
        }
        try save(db, lastStep: Int64(clamping: matched), failures: 0, lockedUntil: nil)
        return .success(Authorization(method: .totp, suite: SigningMethod.totpSuite, challenge: nil, response: nil,
                                      secretId: authenticator.secretId))
    }

    /// A refused passkey attempt: what the customer is told, and the element that failed (for the operator; nil
    /// when no assertion was looked at, as under a lock).
    struct PasskeyFailure: Error {
        let code: OneTimeCodeError
        let element: PasskeyError?
    }

    /// Checks a passkey assertion inside the caller's write transaction with the same attempt count and lock as
    /// codes: `attempt` gives the authorization, or the ``PasskeyError`` saying which element failed (returned to
    /// the caller for the operator); a failure counts towards the lock and is reported as
    /// ``OneTimeCodeError/wrongPasskey(attemptsLeft:)``, which does not say which element it was.
    func checkPasskey(
        in db: any SQLTransaction, _ attempt: () -> Result<Authorization, PasskeyError>
    ) throws -> Result<Authorization, PasskeyFailure> {
        let nowMs = Timestamp.milliseconds(clock())
        let select = state.select
        guard let row = try db.rows(select.sql, arguments: select.arguments).first else {
            return .failure(PasskeyFailure(code: .storage("the code state row is missing"), element: nil))
        }
        let lastStep = try row.decode(Int64?.self, forColumn: "last_step")
        var failures = try row.decode(Int.self, forColumn: "failures")
        if let lockedUntil = try row.decode(Int64?.self, forColumn: "locked_until_ms") {
            if nowMs < lockedUntil {
                return .failure(PasskeyFailure(code: .locked(until: Timestamp.date(milliseconds: lockedUntil),
                                                             remainingSeconds: Int((lockedUntil - nowMs + 999) / 1000), failures: failures),
                                               element: nil))
            }
            failures = 0
        }
        switch attempt() {
        case .success(let authorization):
            try save(db, lastStep: lastStep, failures: 0, lockedUntil: nil)
            return .success(authorization)
        case .failure(let why):
            failures += 1
            let lock = failures >= Self.maximumFailures ? nowMs + Self.lockSeconds * 1000 : nil
            try save(db, lastStep: lastStep, failures: failures, lockedUntil: lock)
            return .failure(PasskeyFailure(code: .wrongPasskey(attemptsLeft: max(0, Self.maximumFailures - failures)), element: why))
        }
    }

    private func save(_ db: any SQLTransaction, lastStep: Int64?, failures: Int, lockedUntil: Int64?) throws {
        let update = state.update(lastStep: lastStep, failures: failures, lockedUntil: lockedUntil)
        try db.execute(update.sql, arguments: update.arguments)
    }

    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for i in x.indices { difference |= x[i] ^ y[i] }
        return difference == 0
    }
}
