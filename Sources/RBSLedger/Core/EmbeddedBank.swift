import Crypto
import Foundation
import RBSMoney
import Synchronization

/// The embedded core bank: the customer's accounts and the postings between them, in `rbs.sqlite`.
///
/// ``submit(signed:publicKey:)`` checks the signature, then in ONE write transaction journals the document
/// with its outcome and applies the posting, so a process killed at any moment leaves either all of it or
/// none of it. Submitting the same signed document again returns the first outcome and posts nothing.
public struct EmbeddedBank: Sendable {
    let database: LedgerDatabase
    let clock: @Sendable () -> Date
    /// The accounts' currencies read so far (``quoted(_:)``): an account's currency is set when it is opened and
    /// never changes, so a draft between accounts already seen needs no round trip to the database.
    let currencies = AccountCurrencies()

    /// A document's entries in the journal, newest first: by the compact indexed key, then the full id.
    static let journalByDocumentQuery = "SELECT * FROM journal WHERE document_key = ? AND document_id = ? ORDER BY seq DESC"

    /// Every account of the core in list order: the bank's own view (`verify`, tests). A party is shown only its
    /// own accounts (``Ledger/accounts(of:)``).
    public func accounts() throws(LedgerError) -> [Account] {
        let rows = try database.read { db in try db.rows("SELECT * FROM accounts ORDER BY position") }
        var accounts: [Account] = []
        for row in rows { accounts.append(try Self.account(from: row, path: database.place)) }
        return accounts
    }

    /// The account with this number, or `nil`.
    public func account(number: String) throws(LedgerError) -> Account? {
        let row = try database.read { db in
            try db.row("SELECT * FROM accounts WHERE number = ?", number)
        }
        guard let row else { return nil }
        return try Self.account(from: row, path: database.place)
    }

    /// What the core would decide for `document` were it signed and posted now: `nil` when it would be posted (or
    /// acknowledged), the ``Rejection`` otherwise. The very decision ``submit(signed:publicKey:)`` makes (the same
    /// `plan`: required fields, currency, amount, blocked and unknown accounts, balance), read from the same
    /// database and written nowhere — so the host can refuse a document before a one-time code is spent on it.
    public func validate(_ document: Document) throws(LedgerError) -> Rejection? {
        try database.read { db in
            var state = BatchState(tip: (0, Data()))
            if case .reject(let rejection) = try decide(document, state: &state, in: db) { return rejection }
            return nil
        }
    }

    /// What the core would decide for each document of `batch` were they signed and posted now, one after another
    /// in one transaction (as a basket is): `nil` for one that would be posted, its ``Rejection`` otherwise. Each
    /// document sees the balances the earlier ones would leave, so the fifth payment of a basket the balance no
    /// longer covers is found before the code is given. Written nowhere.
    public func validate(batch: [Document]) throws(LedgerError) -> [Rejection?] {
        try database.read { db in
            var state = BatchState(tip: (0, Data()))
            var decisions: [Rejection?] = []
            for document in batch {
                switch try decide(document, state: &state, in: db) {
                case .reject(let rejection): decisions.append(rejection)
                case .acknowledge: decisions.append(nil)
                case .post(let posting, _, let minor, let scale):
                    _ = try state.move(posting, minor: minor, scale: scale)
                    decisions.append(nil)
                case .awaitSecondSigner:
                    decisions.append(nil)  // never decided by `plan`
                case .changeCard(let card, let action, _):
                    state.cards[card.id] = action == .block
                    decisions.append(nil)
                }
            }
            return decisions
        }
    }

    /// Verifies, journals and posts one signed document in its own transaction.
    public func submit(signed: SignedDocument, publicKey: Curve25519.Signing.PublicKey) throws(LedgerError) -> Outcome {
        let outcomes = try submit(batch: [signed], publicKey: publicKey)
        return outcomes[0]
    }

    /// Group commit: verifies every signature first (any bad one refuses the whole batch before anything is
    /// written), then journals and posts all documents in ONE transaction. The outcomes are returned only after
    /// the commit, in the order given.
    public func submit(batch: [SignedDocument], publicKey: Curve25519.Signing.PublicKey) throws(LedgerError) -> [Outcome] {
        try checkSignatures(batch, publicKey: publicKey)
        let raw = publicKey.rawRepresentation
        return try database.write { db in
            try apply(batch: batch, publicKey: raw, in: db)
        }
    }

    func checkSignatures(_ batch: [SignedDocument], publicKey: Curve25519.Signing.PublicKey) throws(LedgerError) {
        let keyId = SigningIdentity.keyId(of: publicKey)
        // Verified on all cores; the first bad document in batch order is the one reported.
        let valid = Parallel.map(batch) { signed in signed.document.keyId != keyId || signed.isValid(publicKey: publicKey) }
        for (signed, isValid) in zip(batch, valid) {
            guard signed.document.keyId == keyId else {
                throw .wrongSigner(documentKeyId: signed.document.keyId, keyId: keyId)
            }
            guard isValid else { throw .badSignature(documentId: signed.id) }
        }
    }

    /// Journals and posts verified documents in order inside the caller's transaction, exactly as applying them
    /// one after another would: a document already journaled (before or earlier in the batch) returns its first
    /// outcome and posts nothing, and each document sees the balances the earlier ones left.
    ///
    /// Done with few statements: one indexed lookup per document for an earlier entry, the journal tip once, each
    /// account read once and its balance kept in memory, each touched account's final balance written once at
    /// the end (the whole batch is one transaction, so nobody sees the intermediate states).
    func apply(batch: [SignedDocument], publicKey: Data, in db: any SQLTransaction) throws -> [Outcome] {
        let ids = Parallel.map(batch, \.id)
        return try apply(count: batch.count, publicKey: publicKey, in: db) { (batch[$0], ids[$0]) }
    }

    /// ``apply(batch:publicKey:in:)`` for `count` documents, where `document(i)` gives document `i` and its
    /// id when it is needed, so encoding and signing can still be running.
    /// `authorization` is how the person authorised the documents, recorded in each new entry, and `basketId` the
    /// basket they were signed in.
    func apply(
        count: Int, publicKey: Data, authorization: Authorization? = nil, basketId: String? = nil, in db: any SQLTransaction,
        document: (Int) throws -> (SignedDocument, String)
    ) throws -> [Outcome] {
        var state = BatchState(tip: try Journal.tip(db))
        state.settled.reserveCapacity(count)
        var outcomes: [Outcome] = []
        outcomes.reserveCapacity(count)
        for index in 0..<count {
            let (signed, id) = try document(index)
            if let outcome = state.settled[id] {
                outcomes.append(outcome)
                continue
            }
            // By the compact indexed key, then the full id (the key alone may be shared by different ids).
            let key = JournalEntry.documentKey(of: id, createdAtMilliseconds: signed.document.createdAtMilliseconds)
            if let row = try db.rows(Self.journalByDocumentQuery, arguments: [.integer(key), .text(id)]).first {
                let outcome = try Self.outcome(of: try JournalEntry(row: row), in: db)
                state.settled[id] = outcome
                outcomes.append(outcome)
                continue
            }
            outcomes.append(try apply(signed, documentId: id, publicKey: publicKey, authorization: authorization,
                                      basketId: basketId, completing: nil, state: &state, in: db))
        }
        try write(state, in: db)
        return outcomes
    }

    /// Writes each account the batch changed, once.
    private func write(_ state: BatchState, in db: any SQLTransaction) throws {
        for (number, scale) in state.dirty.sorted(by: { $0.key < $1.key }) {
            guard let account = state.accounts[number] ?? nil else { continue }
            try db.execute("UPDATE accounts SET balance = ? WHERE number = ?",
                           arguments: [.text(account.balanceText(scale: scale)), .text(number)])
        }
    }

    /// Completes the document of `awaiting` with the second signer's `signature` (key `keyId`), inside the caller's
    /// transaction: a new entry naming the awaiting one, `rejected` with `decline`, else what the core decides now
    /// (the balance and blocked accounts are checked again): `posted` with its posting, or `rejected`.
    func complete(_ awaiting: JournalEntry, signature: Data, keyId: String, publicKey: Data, authorization: Authorization,
                  decline: Rejection?, in db: any SQLTransaction) throws -> Outcome {
        let document = try CanonicalEncoding.decode(awaiting.document)
        let signed = SignedDocument(document: document, canonicalBytes: awaiting.document, signature: signature)
        var state = BatchState(tip: try Journal.tip(db))
        let outcome = try apply(signed, documentId: awaiting.documentId, publicKey: publicKey, authorization: authorization,
                                basketId: nil, completing: (awaiting.sequence, keyId, decline), state: &state, in: db)
        try write(state, in: db)
        return outcome
    }

    /// What one batch knows beyond the database: the journal tip, the outcomes settled so far, the registered key ids and the accounts read (with their current
    /// in-memory balances; `dirty` lists the ones changed, with the scale to write them in).
    fileprivate struct BatchState {
        var tip: (sequence: Int64, hash: Data)
        var settled: [String: Outcome] = [:]
        var registered: Set<String> = []
        /// The second-signer thresholds of each customer a document of the batch is signed by or debits (`nil` inside:
        /// none apply).
        var policies: [Int64: SecondSignerPolicy?] = [:]
        /// `nil` inside: the number is not one of the accounts.
        var accounts: [String: CachedAccount?] = [:]
        var dirty: [String: Int] = [:]
        /// The customer each key that signed in the batch acts for (`nil` inside: the key is no customer's, so it
        /// is the host's own signer's).
        var parties: [String: Int64?] = [:]
        /// Whether a live mandate lets a key debit an account, by "key id\u{0}account".
        var mandates: [String: Bool] = [:]
        /// Whether each card an earlier document of the batch blocked or unblocked is blocked now, by card id.
        var cards: [Int64: Bool] = [:]
    }

    fileprivate struct CachedAccount {
        /// The account as read; its `balance` is stale while `minor` is set.
        var account: Account
        /// Whether the balance has no more decimals than the currency's minor units, so writing it as text and
        /// reading it back gives the same value.
        var exact: Bool
        /// The balance in minor units while it fits an `Int64` (then all arithmetic is on it, exact).
        var minor: Int64?
        /// The minor units of the account's currency.
        let scale: Int
        /// The customer whose account it is (`customer_accounts`); `nil` for an account of the host's own signer.
        let holder: Int64?

        var balance: Decimal { minor.map { DecimalText.decimal(minorUnits: $0, scale: scale) } ?? account.balance.amount }

        func balanceText(scale: Int) -> String {
            if let minor, scale == self.scale { return DecimalText.format(minorUnits: minor, scale: scale) }
            return DecimalText.format(balance, scale: scale) ?? balance.description
        }
    }

    /// Journals one verified document and posts it. With `completing`, it is the second signature of that awaiting
    /// entry: signed with that key, declined or decided by the core, never awaiting again.
    private func apply(
        _ signed: SignedDocument, documentId: String, publicKey: Data, authorization: Authorization?, basketId: String?,
        completing: (sequence: Int64, keyId: String, decline: Rejection?)?,
        state: inout BatchState, in db: any SQLTransaction
    ) throws -> Outcome {
        let keyId = completing?.keyId ?? signed.document.keyId
        if !state.registered.contains(keyId) {
            try register(keyId: keyId, publicKey: publicKey, in: db)
            state.registered.insert(keyId)
        }
        let now = Timestamp.milliseconds(clock())
        let tip = state.tip
        let sequence = tip.sequence + 1
        func entry(_ kind: JournalEntry.Kind, rejection: Rejection? = nil, posting: Posting? = nil,
                   amount: String? = nil, balance: String? = nil) -> JournalEntry {
            var entry = JournalEntry(
                sequence: sequence, kind: kind, documentId: documentId, document: signed.canonicalBytes,
                signature: signed.signature, keyId: keyId, reasonCode: rejection?.code.rawValue,
                reason: rejection?.message, debit: posting?.debit, credit: posting?.credit,
                amount: amount, currency: posting?.amount.currency.code,
                balanceAfter: balance, recordedAtMilliseconds: now, authorization: authorization, basketId: basketId,
                secondOf: completing?.sequence,
                previousHash: tip.hash)
            entry.reasonFacts = rejection?.facts ?? [:]
            return entry
        }

        let record: JournalEntry
        let outcome: Outcome
        var decision: Plan = if let decline = completing?.decline { .reject(decline) } else { try decide(signed.document, state: &state, in: db) }
        if completing == nil, case .post(let posting, let amountText, _, _) = decision,
           try state.secondSignerPolicy(for: keyId, in: db)?.requiresSecondSigner(amount: posting.totalDebited.amount, currency: posting.amount.currency.code) == true {
            decision = .awaitSecondSigner(posting, amountText)
        }
        switch decision {
        case .awaitSecondSigner(let posting, let amountText):
            // Above the customer's threshold: journaled as awaiting another user's signature; nothing moves yet.
            record = entry(.awaiting, posting: posting, amount: amountText)
            outcome = .awaiting(documentId: documentId, sequence: sequence)
        case .acknowledge:
            record = entry(.acknowledged)
            outcome = .acknowledged(documentId: documentId, sequence: sequence)
        case .changeCard(let card, let action, let reason):
            // The card's new state, written in the transaction that journals the document that changed it.
            try db.execute("UPDATE cards SET blocked = ?, block_reason = ?, changed_ms = ?, changed_seq = ? WHERE id = ?",
                           arguments: [.integer(action == .block ? 1 : 0), reason.map(SQLValue.text) ?? .null, .integer(now),
                                       .integer(sequence), .integer(card.id)])
            state.cards[card.id] = action == .block
            record = entry(.acknowledged)
            outcome = .acknowledged(documentId: documentId, sequence: sequence)
        case .reject(let rejection):
            record = entry(.rejected, rejection: rejection)
            outcome = .rejected(documentId: documentId, sequence: sequence, reason: rejection)
        case .post(let posting, let amountText, let amountMinor, let scale):
            let (newDebit, newDebitText) = try state.move(posting, minor: amountMinor, scale: scale)
            if let conversion = posting.conversion {
                try ExchangePosition.post(conversion, debit: posting.debit, amountText: amountText, credit: posting.credit,
                                          documentId: documentId, sequence: sequence, time: now, in: db)
            } else {
                try db.execute(
                    "INSERT INTO postings (document_id, debit, credit, amount, currency, time_ms, journal_seq) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    arguments: [.text(documentId), .text(posting.debit), .text(posting.credit), .text(amountText),
                                .text(posting.amount.currency.code), .integer(now), .integer(sequence)])
            }
            if let fee = posting.fee {
                try FeeIncome.post(fee.amount, debit: posting.debit, documentId: documentId, sequence: sequence, time: now, in: db)
            }
            record = entry(.posted, posting: posting, amount: amountText, balance: newDebitText)
            outcome = .posted(Receipt(documentId: documentId, posting: posting, debitBalance: newDebit, sequence: sequence))
        }
        try record.insert(db, createdAtMilliseconds: signed.document.createdAtMilliseconds)
        state.tip = (sequence, record.hash)
        state.settled[documentId] = outcome
        return outcome
    }

    private static let accountQuery = """
        SELECT a.number, a.currency, a.balance, a.owner, a.title, a.blocked, c.customer_id AS holder
        FROM accounts a LEFT JOIN customer_accounts c ON c.number = a.number WHERE a.number = ?
        """

    private enum Plan {
        case acknowledge
        case reject(Rejection)
        /// The posting, its amount as text with the currency's minor units, the amount in minor units (when it
        /// fits an `Int64`), and the currency's minor units.
        case post(Posting, String, Int64?, Int)
        /// What `post` would post, awaiting a second signer first (never decided by ``plan``).
        case awaitSecondSigner(Posting, String)
        /// A card's state changed by its own customer's document: journaled as acknowledged, no postings.
        case changeCard(Card, Card.Action, reason: String?)
    }

    /// The account with this number as the batch sees it (read from the database the first time), or `nil`.
    private func account(_ number: String, state: inout BatchState, in db: any SQLTransaction) throws -> CachedAccount? {
        if let cached = state.accounts[number] { return cached }
        guard let row = try db.rows(Self.accountQuery, arguments: [.text(number)]).first else {
            state.accounts[number] = .some(nil)
            return nil
        }
        let account = try Self.account(from: row, path: database.place)
        let scale = account.balance.currency.minorUnits, minor: Int64? = account.balance.minorUnits, exact = true
        let holder: Int64? = try row.decode(Int64?.self, forColumn: "holder")
        let cached = CachedAccount(account: account, exact: exact, minor: minor, scale: scale, holder: holder)
        state.accounts[number] = cached
        return cached
    }

    /// What the core decides for `document` — the one entry of `validate` and of posting: its text first
    /// (``textRefusal(_:)``), then ``plan(_:state:in:)``.
    private func decide(_ document: Document, state: inout BatchState, in db: any SQLTransaction) throws -> Plan {
        if let refusal = Self.textRefusal(document) { return .reject(refusal) }
        return try plan(document, state: &state, in: db)
    }

    /// A field whose text a person cannot trust: one holding a bidirectional control or another invisible format
    /// character (``InvisibleText``), which could show the payee or the purpose differently from the signed bytes.
    /// Checked here, whatever front end, form or basket the document came from, before anything else about it.
    static func textRefusal(_ document: Document) -> Rejection? {
        for field in document.fields {
            if let found = InvisibleText.first(in: field.key) ?? InvisibleText.first(in: field.value) {
                return .invisibleCharacter(field: field.key, found)
            }
        }
        return nil
    }

    /// Decides what a document does, reading the accounts it names; changes nothing.
    private func plan(_ document: Document, state: inout BatchState, in db: any SQLTransaction) throws -> Plan {
        // The typed payment (``Payment``): a missing or malformed money field is refused, naming the field.
        let read: Payment?
        do { read = try Payment(document) } catch { return .reject(error.rejection) }
        // The fee's account is the core's alone (``FeeIncome``): a document naming one is refused, not ignored, so no
        // review ever shows an account the money would not go to.
        if let named = document[FeeIncome.reservedKey] { return .reject(.feeAccountNamed(FeeIncome.reservedKey, named)) }
        guard let payment = read else {
            // Only a payment carries a fee: on a document that moves no money it would be signed and never posted.
            if let fee = document.text(of: .fee) ?? document.text(of: .feeCurrency) { return .reject(.feeNotCarried(fee)) }
            // A document that moves no money and names a card by its masked number is about that card; a payment
            // that mentions a card (a card-to-account transfer's masked source) is decided as a payment below.
            if let card = document[Card.Key.masked] { return try cardPlan(document, card: card, state: &state, in: db) }
            return .acknowledge
        }
        let from = payment.debitAccount, credit = payment.creditAccount, currency = payment.amount.currency.code
        let minorUnits = payment.amount.currency.minorUnits, amountMinor = payment.amount.minorUnits
        guard let debitState = try account(from, state: &state, in: db) else {
            return .reject(.unknownDebit(from))
        }
        // Who may debit what, whatever front end built the document: the signer's own party, or a mandate.
        guard try state.mayDebit(debitState, signedWith: document.keyId, in: db) else { return .reject(.notSigners(from)) }
        // A customer's second-signer threshold binds every debit of its accounts, whoever signs: a signer debiting
        // one through a mandate (the host's own signer) is none of its users, so above the threshold it is refused
        // — a mandate granted with the customer's one code moved 400 000 RUB past a two-signature rule.
        if let holder = debitState.holder, try state.party(of: document.keyId, in: db) != holder,
           try state.secondSignerPolicy(ofCustomer: holder, in: db)?.requiresSecondSigner(
               amount: payment.totalDebited.amount, currency: payment.amount.currency.code) == true {
            return .reject(.secondSignerRequired(from, amount: payment.totalDebited.plain, currency: payment.amount.currency.code))
        }
        let debit = debitState.account
        guard !debit.blocked else { return .reject(.blocked(from)) }
        guard debit.currency == currency else {
            return .reject(.currencyMismatch(document: currency, account: from, accountCurrency: debit.currency))
        }
        guard credit != from else { return .reject(.sameAccount(from)) }
        var internalTransfer = false
        var conversion: Conversion?
        if let creditAccount = try account(credit, state: &state, in: db)?.account {
            guard !creditAccount.blocked else { return .reject(.blockedCredit(credit)) }
            if creditAccount.currency != currency {
                // Between the bank's own accounts in two currencies: converted at the bank's current rate, which the
                // signed document must carry exactly (``Conversion``).
                switch try checkConversion(document, amount: payment.amount, from: currency, to: creditAccount.currency, in: db) {
                case .converted(let checked): conversion = checked
                case .refused(let rejection): return .reject(rejection)
                }
            }
            internalTransfer = true
        }
        // Conversion fields on a document that converts nothing would show a conversion that never happened.
        if conversion == nil, let credited = document[Conversion.Key.creditAmount] ?? document[Conversion.Key.pair] {
            return .reject(.conversionMismatch(document: credited, expected: "no conversion (both accounts are in \(currency))"))
        }
        // The balance must cover everything that leaves the account: the amount and the fee, decided here once.
        let total = payment.totalDebited
        let covered = if let balance = debitState.minor, debitState.scale == minorUnits {
            balance >= total.minorUnits
        } else {
            debitState.balance >= total.amount
        }
        guard covered else {
            let balance = DecimalText.format(debitState.balance, scale: minorUnits) ?? debitState.balance.description
            if let fee = payment.fee {
                return .reject(.insufficientFunds(account: from, balance: balance, amount: payment.amount.plain, fee: fee.plain,
                                                  total: total.plain, currency: currency))
            }
            return .reject(.insufficientFunds(account: from, balance: balance, amount: payment.amount.plain, currency: currency))
        }
        var feeLeg: FeeLeg?
        if let fee = payment.fee {
            guard let income = FeeIncome.number(of: currency) else { return .reject(.unknownCurrency(currency)) }
            feeLeg = FeeLeg(amount: fee, account: income)
        }
        let posting = Posting(debit: from, credit: credit, amount: payment.amount, internalTransfer: internalTransfer,
                              conversion: conversion, fee: feeLeg)
        return .post(posting, payment.amount.plain, amountMinor, minorUnits)
    }

    /// What ``checkConversion(_:amount:from:to:in:)`` decides.
    private enum ConversionCheck {
        case converted(Conversion)
        case refused(Rejection)
    }

    /// The conversion `document` asks for, checked against the bank's current rates as of now: the one rule of
    /// ``Conversion``. A refusal names what is wrong: no rate, a rate older than ``Conversion/maximumRateAge``, a
    /// rate (pair, value or time) that is not the bank's current one, a credited amount its rate does not give.
    private func checkConversion(_ document: Document, amount money: Money, from: String, to: String,
                                 in db: any SQLTransaction) throws -> ConversionCheck {
        let bank: Conversion
        switch Conversion.quoted(amount: money.amount, from: from, to: to, rates: try Ledger.currentRatesByCurrency(in: db)) {
        case .success(let quoted): bank = quoted
        case .failure(.noRate(let currency)): return .refused(.noExchangeRate(currency))
        case .failure(.unknownCurrency(let currency)): return .refused(.unknownCurrency(currency))
        case .failure(.tooSmall):
            return .refused(.conversionTooSmall(amount: money.plain, currency: from, into: to))
        }
        let now = Timestamp.milliseconds(clock())
        func stale(_ conversion: Conversion) -> Rejection? {
            guard now - conversion.rateTimeMilliseconds > Conversion.maximumRateAge else { return nil }
            return .exchangeRateStale(pair: conversion.pair, rateTime: Timestamp.format(milliseconds: conversion.rateTimeMilliseconds),
                                      maximumAge: Conversion.maximumRateAgeText)
        }
        if let refusal = stale(bank) { return .refused(refusal) }
        guard let signed = Conversion(document: document) else {
            let missing = Conversion.Key.all.first { document[$0] == nil } ?? Conversion.Key.rate
            return .refused(.missing(missing, "a conversion from \(from) to \(to) carries the bank's rate, its time and the credited amount"))
        }
        guard signed.pair == bank.pair, signed.rate == bank.rate, signed.rateTimeMilliseconds == bank.rateTimeMilliseconds else {
            if let refusal = stale(signed) { return .refused(refusal) }
            return .refused(.exchangeRateNotCurrent(
                document: "\(signed.pair) \(document[Conversion.Key.rate] ?? signed.rateText)",
                documentTime: Timestamp.format(milliseconds: signed.rateTimeMilliseconds),
                bank: "\(bank.pair) \(bank.rateText)", bankTime: Timestamp.format(milliseconds: bank.rateTimeMilliseconds)))
        }
        guard signed.creditAmount == bank.creditAmount, signed.creditCurrency == bank.creditCurrency else {
            return .refused(.conversionMismatch(document: "\(document[Conversion.Key.creditAmount] ?? "") \(signed.creditCurrency)",
                                                expected: "\(bank.creditText) \(bank.creditCurrency)"))
        }
        return .converted(bank)
    }

    /// `fields` of a document about to be drafted, with the bank's conversion (``Conversion/fields``) when they
    /// move money between two of the bank's accounts in different currencies and the bank has a rate for both:
    /// what the review shows and the person signs. Fields of those keys given by anyone else are replaced. Without a
    /// rate the fields are returned as they are, and the core's check (``validate(_:)``) says why it would refuse.
    public func quoted(_ fields: [DocumentField]) throws(LedgerError) -> [DocumentField] {
        guard let payment = try? Payment(fields: fields) else { return fields }
        let amount = payment.amount.amount, from = payment.debitAccount, to = payment.creditAccount
        guard from != to else { return fields }
        // Both accounts' currencies in one statement (one round trip on PostgreSQL): most drafts stop here, in one
        // currency; only a conversion reads the rates too. An account's currency never changes, so the two reads
        // need not share a snapshot.
        let known = currencies.of(from, to)
        let source: String?, target: String?
        if let both = known {
            (source, target) = both
        } else {
            let read = try database.query("SELECT number, currency FROM accounts WHERE number IN (?, ?)", [.text(from), .text(to)]) { rows in
                Dictionary(try rows.map { row in (try row.decode(String.self, forColumn: "number"), try row.decode(String.self, forColumn: "currency")) },
                           uniquingKeysWith: { first, _ in first })
            }
            currencies.remember(read)
            (source, target) = (read[from], read[to])
        }
        guard let source, let target, source != target else { return fields }
        return try database.read { db in
            let rates = try Ledger.currentRatesByCurrency(in: db)
            guard case .success(let conversion) = Conversion.quoted(amount: amount, from: source, to: target, rates: rates) else {
                return fields
            }
            let keys = Set(Conversion.Key.all)
            return fields.filter { !keys.contains($0.key) } + conversion.fields
        }
    }

    /// What a document naming a card by its masked number does (whatever front end or plugin built it): block or
    /// unblock the signer's own card of that number — a card is the signer's exactly when its account's party is
    /// (``BatchState/mayDebit(_:signedWith:in:)``), so another party's card of the same number is never touched —
    /// and only when the card is not in that state already.
    private func cardPlan(_ document: Document, card masked: String, state: inout BatchState, in db: any SQLTransaction) throws -> Plan {
        let cards = try db.rows("SELECT * FROM cards WHERE masked = ? ORDER BY id", masked).map(Card.from)
        guard let any = cards.first else { return .reject(.unknownCard(masked)) }
        let party = try state.party(of: document.keyId, in: db)
        guard let card = cards.first(where: { $0.holderId == party }) else { return .reject(.notSignersCard(any)) }
        guard let action = document[Card.Key.action].flatMap(Card.Action.init(rawValue:)) else {
            return .reject(.unknownCardAction(document[Card.Key.action]))
        }
        let blocked = state.cards[card.id] ?? card.blocked
        switch action {
        case .block where blocked: return .reject(.cardAlreadyBlocked(card))
        case .unblock where !blocked: return .reject(.cardNotBlocked(card))
        default: return .changeCard(card, action, reason: action == .block ? document["reason"] : nil)
        }
    }

    /// Stores the public key under its id the first time it signs; a different key under the same id is refused.
    private func register(keyId: String, publicKey: Data, in db: any SQLTransaction) throws {
        if let stored = try db.value(Data.self, "SELECT public_key FROM keys WHERE key_id = ?", keyId) {
            guard stored == publicKey else { throw LedgerError.keyIdConflict(keyId: keyId) }
            return
        }
        try db.execute("INSERT INTO keys (key_id, public_key, first_used_ms) VALUES (?, ?, ?)",
                       keyId, publicKey, Timestamp.milliseconds(clock()))
    }

    /// The outcome a journal entry recorded (for a repeated submission).
    static func outcome(of entry: JournalEntry, in db: any SQLTransaction) throws -> Outcome {
        switch entry.kind {
        case .acknowledged:
            return .acknowledged(documentId: entry.documentId, sequence: entry.sequence)
        case .awaiting:
            return .awaiting(documentId: entry.documentId, sequence: entry.sequence)
        case .rejected:
            let code = entry.reasonCode.flatMap(Rejection.Code.init(rawValue:))
            guard let code, let message = entry.reason else {
                throw LedgerError.unreadableEntry(sequence: entry.sequence, detail: "a rejection without a reason")
            }
            return .rejected(documentId: entry.documentId, sequence: entry.sequence,
                             reason: Rejection(code: code, message: message, facts: entry.reasonFacts))
        case .posted:
            guard let debit = entry.debit, let credit = entry.credit, let currency = entry.currency.flatMap(Currency.init(code:)),
                  let amount = entry.amount.flatMap({ try? Money(plain: $0, currency: currency) }), let balance = entry.balanceAfter.flatMap(DecimalText.parse)
            else {
                throw LedgerError.unreadableEntry(sequence: entry.sequence, detail: "a posting without its amounts")
            }
            // The credit account was our own exactly when it is one of the accounts.
            let internalTransfer = try db.value(Bool.self, "SELECT 1 FROM accounts WHERE number = ?", credit) != nil
            // A conversion's legs are in `exchanges`; its document says the same (it was checked when posted).
            let converted = try db.value(Bool.self, "SELECT 1 FROM exchanges WHERE journal_seq = ?", entry.sequence) != nil
            let conversion = converted ? (try? CanonicalEncoding.decode(entry.document)).flatMap(Conversion.init(document:)) : nil
            return .posted(Receipt(
                documentId: entry.documentId,
                posting: Posting(debit: debit, credit: credit, amount: amount, internalTransfer: internalTransfer,
                                 conversion: conversion, fee: try FeeIncome.posted(sequence: entry.sequence, in: db)),
                debitBalance: balance, sequence: entry.sequence))
        }
    }

    static func account(from row: SQLRow, path: String) throws(LedgerError) -> Account {
        do {
            let number = try row.decode(String.self, forColumn: "number")
            let balanceText = try row.decode(String.self, forColumn: "balance")
            let code = try row.decode(String.self, forColumn: "currency")
            guard DecimalText.parse(balanceText) != nil else {
                throw LedgerError.corruptDatabase(path: path, detail: "account \(number) has balance \"\(balanceText)\", not a decimal")
            }
            // Money is never rounded: a stored balance with more decimals than its currency has is damage, not a value.
            guard let currency = Currency(code: code), let balance = try? Money(plain: balanceText, currency: currency) else {
                throw LedgerError.corruptDatabase(
                    path: path,
                    detail: "account \(number) has balance \"\(balanceText)\", more decimals than \(code) has (or an unknown currency)")
            }
            return Account(
                number: number, balance: balance,
                owner: try row.decode(String.self, forColumn: "owner"), title: try row.decode(String.self, forColumn: "title"),
                blocked: try row.decode(Bool.self, forColumn: "blocked"))
        } catch let error as LedgerError {
            throw error
        } catch {
            throw .corruptDatabase(path: path, detail: "an account row cannot be read: \(error)")
        }
    }
}

extension EmbeddedBank.BatchState {
    /// Whether the key `keyId` may debit `account`: the account is the key's customer's (any of its users, by the
    /// host's key for them or a passkey), or — for a key that is no customer's, the host's own signer — an account
    /// of no customer; else only through a live mandate for that key and account. Read once per key and account
    /// in a batch.
    mutating func mayDebit(_ account: EmbeddedBank.CachedAccount, signedWith keyId: String, in db: any SQLTransaction) throws -> Bool {
        if try party(of: keyId, in: db) == account.holder { return true }
        let key = keyId + "\u{0}" + account.account.number
        if let known = mandates[key] { return known }
        let mandated = try db.value(
            Int64.self, "SELECT COUNT(*) FROM mandates WHERE number = ? AND key_id = ? AND revoked_ms IS NULL",
            account.account.number, keyId) ?? 0 > 0
        mandates[key] = mandated
        return mandated
    }

    /// The customer the key `keyId` acts for (any of its users, by the host's key for them or a passkey); nil for a
    /// key that is no customer's (the host's own signer). Read once per key in a batch.
    mutating func party(of keyId: String, in db: any SQLTransaction) throws -> Int64? {
        if let known = parties[keyId] { return known }
        let party = try Customers.user(ofKey: keyId, in: db)?.holder
        parties[keyId] = .some(party)
        return party
    }

    /// The second-signer thresholds that apply to payments signed with `keyId`: its customer's (``party(of:in:)``);
    /// nil for a key that is no customer's.
    mutating func secondSignerPolicy(for keyId: String, in db: any SQLTransaction) throws -> SecondSignerPolicy? {
        guard let holder = try party(of: keyId, in: db) else { return nil }
        return try secondSignerPolicy(ofCustomer: holder, in: db)
    }

    /// The second-signer thresholds of customer `holder`, read from the database the first time the batch asks.
    mutating func secondSignerPolicy(ofCustomer holder: Int64, in db: any SQLTransaction) throws -> SecondSignerPolicy? {
        if let known = policies[holder] { return known }
        let policy = try Customers.secondSignerPolicy(holder: holder, in: db)
        policies[holder] = .some(policy)
        return policy
    }

    /// Moves `posting`'s money between the in-memory balances: its amount (`minor` in minor units, when known, with
    /// `scale` decimals) and its fee off the debit account, and onto the credit account when it is one of the bank's — its
    /// conversion's credited amount in its own currency for a conversion. Returns the debit account's balance
    /// (``add(_:minor:to:scale:)``).
    mutating func move(_ posting: Posting, minor: Int64?, scale: Int) throws -> (Decimal, String) {
        var debited = try add(-posting.amount.amount, minor: minor.map { -$0 }, to: posting.debit, scale: scale)
        if let fee = posting.fee {
            // The fee leaves the same account in the same currency; its income account is the core's (``FeeIncome``),
            // moved by the posting itself, not here.
            debited = try add(-fee.amount.amount, minor: -fee.amount.minorUnits, to: posting.debit, scale: scale)
        }
        if let conversion = posting.conversion {
            let creditScale = Currency(code: conversion.creditCurrency)?.minorUnits ?? scale
            _ = try add(conversion.creditAmount, minor: DecimalText.minorUnits(conversion.creditText, scale: creditScale),
                        to: posting.credit, scale: creditScale)
        } else if posting.internalTransfer {
            _ = try add(posting.amount.amount, minor: minor, to: posting.credit, scale: scale)
        }
        return debited
    }

    /// Adds `delta` (`minor` in minor units, when known) to the in-memory balance of a read account, marks it to
    /// be written with `scale` decimals, and returns the unrounded sum and its text with `scale` decimals. The
    /// kept balance is what writing the sum as text and reading it back would give.
    mutating func add(_ delta: Decimal, minor deltaMinor: Int64?, to number: String, scale: Int) throws -> (Decimal, String) {
        guard var cached = accounts[number] ?? nil else {
            throw LedgerError.corruptDatabase(path: "", detail: "account \(number) was not read before posting")
        }
        dirty[number] = scale
        if let balance = cached.minor, let deltaMinor, cached.scale == scale {
            let (sum, overflow) = balance.addingReportingOverflow(deltaMinor)
            if !overflow {
                cached.minor = sum
                accounts[number] = cached
                return (DecimalText.decimal(minorUnits: sum, scale: scale), DecimalText.format(minorUnits: sum, scale: scale))
            }
        }
        // Both are exact with at most `scale` decimals (an inexact balance is refused when read), so the sum is too.
        let sum = cached.balance + delta
        let text = DecimalText.format(sum, scale: scale) ?? sum.description
        guard let money = try? Money(sum, currency: cached.account.balance.currency) else {
            throw LedgerError.corruptDatabase(path: "", detail: "account \(number)'s balance \(text) is beyond 18 digits")
        }
        cached.minor = nil
        cached.account.balance = money
        accounts[number] = cached
        return (sum, text)
    }
}

/// Account number → currency, for the accounts a host has drafted between (``EmbeddedBank/quoted(_:)``). Only what
/// the database answered is kept (an unknown account is asked again: it may be opened meanwhile); a currency never
/// changes once an account is opened, so an entry never goes stale. Bounded: when full it starts again.
final class AccountCurrencies: Sendable {
    private static let capacity = 65_536
    private let known = Mutex<[String: String]>([:])

    /// Both accounts' currencies when both are known.
    func of(_ first: String, _ second: String) -> (String, String)? {
        known.withLock { known in
            guard let one = known[first], let other = known[second] else { return nil }
            return (one, other)
        }
    }

    func remember(_ read: [String: String]) {
        known.withLock { known in
            if known.count + read.count > Self.capacity { known.removeAll(keepingCapacity: true) }
            known.merge(read) { _, new in new }
        }
    }
}
