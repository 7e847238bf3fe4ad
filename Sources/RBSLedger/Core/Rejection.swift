import Foundation

/// Why the core refused to post a signed document. The journal keeps the code and the message.
public struct Rejection: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Stable, machine-readable reasons.
    public enum Code: String, Sendable, Hashable, Codable {
        case insufficientFunds = "insufficient_funds"
        case accountBlocked = "account_blocked"
        case unknownDebitAccount = "unknown_debit_account"
        case missingField = "missing_field"
        case currencyMismatch = "currency_mismatch"
        case unknownCurrency = "unknown_currency"
        case amountNotPositive = "amount_not_positive"
        case tooManyDecimals = "too_many_decimals"
        case sameAccount = "same_account"
        /// The debit account is neither the signer's party's nor mandated to the signer.
        case notSignersAccount = "not_signers_account"
        /// A field holds a bidirectional control or another invisible format character (``InvisibleText``).
        case invisibleCharacter = "invisible_character"
        /// The second signer declined the document (maker–checker).
        case declined = "declined_by_second_signer"
        /// A conversion between currencies, and the bank has no rate of one of them (none imported).
        case noExchangeRate = "no_exchange_rate"
        /// A conversion at a rate older than ``Conversion/maximumRateAge``.
        case exchangeRateStale = "exchange_rate_stale"
        /// A conversion whose rate (its pair, value or time) is not the bank's current rate: changed after the
        /// review, or written by someone else than the core.
        case exchangeRateNotCurrent = "exchange_rate_not_current"
        /// A conversion whose credited amount or currency is not what the debited amount buys at its rate.
        case conversionMismatch = "conversion_mismatch"
        /// The debited amount buys less than one minor unit of the credited currency.
        case conversionTooSmall = "conversion_too_small"
        /// The document's `card` names no card of the ledger.
        case unknownCard = "unknown_card"
        /// The card is another customer's: only a user of the card's own customer may block or unblock it.
        case notSignersCard = "not_signers_card"
        /// The card is blocked already (a block), or is not blocked (an unblock).
        case cardAlreadyBlocked = "card_already_blocked"
        case cardNotBlocked = "card_not_blocked"
        /// The document names a card but its `action` is neither `block` nor `unblock`.
        case unknownCardAction = "unknown_card_action"
        /// The document's fee is written in another currency than its amount (``PaymentError/feeCurrencyMismatch``).
        case feeCurrencyMismatch = "fee_currency_mismatch"
        /// The document carries a fee but moves no money (a card block, a request): only a payment can carry one.
        case feeNotCarried = "fee_not_carried"
        /// The document names an account for its fee: the fee goes to the bank's own income account, which the core
        /// chooses (``FeeIncome``), never one a document names.
        case feeAccountNamed = "fee_account_named"
        /// A debit of a customer's account through a mandate, above the customer's second-signer threshold: the
        /// mandated signer is none of the customer's users, so it can be neither of the two signatures it needs.
        case secondSignerRequired = "second_signer_required"
    }

    public let code: Code
    /// What a person reads (English; the journal keeps it).
    public let message: String
    /// The facts the message was made from (`account`, `balance`, `amount`, `currency`, `field`, …), so a front end
    /// can say it in the person's language. Empty for a rejection read back from the journal; never encoded.
    public var facts: [String: String] = [:]

    private enum CodingKeys: String, CodingKey { case code, message }

    public init(code: Code, message: String, facts: [String: String] = [:]) {
        self.code = code
        self.message = message
        self.facts = facts
    }

    public var description: String { message }

    /// Two rejections are the same when their code and message are (the facts only say the message again).
    public static func == (lhs: Rejection, rhs: Rejection) -> Bool { lhs.code == rhs.code && lhs.message == rhs.message }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
    }

    static func insufficientFunds(account: String, balance: String, amount: String, currency: String) -> Rejection {
        Rejection(code: .insufficientFunds, message: "insufficient funds on \(account): balance \(balance) \(currency), amount \(amount) \(currency)",
                  facts: ["account": account, "balance": balance, "amount": amount, "currency": currency])
    }
    /// The balance covers less than the amount plus the fee: the message names all three, so a person sees why an
    /// amount below the balance is refused.
    static func insufficientFunds(account: String, balance: String, amount: String, fee: String, total: String, currency: String) -> Rejection {
        Rejection(code: .insufficientFunds,
                  message: "insufficient funds on \(account): balance \(balance) \(currency), amount \(amount) \(currency) plus fee \(fee) \(currency) = \(total) \(currency)",
                  facts: ["account": account, "balance": balance, "amount": amount, "feeAmount": fee, "total": total, "currency": currency])
    }
    static func feeNotCarried(_ fee: String) -> Rejection {
        Rejection(code: .feeNotCarried,
                  message: "the document carries a fee (\"\(PaymentField.fee.key)\": \"\(fee)\") but moves no money: only a payment (a document with an amount) can carry a fee",
                  facts: ["field": PaymentField.fee.key, "feeAmount": fee])
    }
    static func feeAccountNamed(_ key: String, _ value: String) -> Rejection {
        Rejection(code: .feeAccountNamed,
                  message: "the document names an account for its fee (\"\(key)\": \"\(value)\"): the bank credits a fee to its own income account, which no document chooses — remove the field",
                  facts: ["field": key, "account": value])
    }
    static func blocked(_ account: String) -> Rejection {
        Rejection(code: .accountBlocked, message: "account \(account) is blocked and accepts no debits",
                  facts: ["account": account, "direction": "debit"])
    }
    static func blockedCredit(_ account: String) -> Rejection {
        Rejection(code: .accountBlocked, message: "account \(account) is blocked and accepts no credits",
                  facts: ["account": account, "direction": "credit"])
    }
    static func unknownDebit(_ account: String) -> Rejection {
        Rejection(code: .unknownDebitAccount, message: "debit account \(account) is not one of the customer's accounts",
                  facts: ["account": account])
    }
    static func missing(_ field: String, _ meaning: String) -> Rejection {
        Rejection(code: .missingField, message: "the document has an amount but no \"\(field)\" field (\(meaning))",
                  facts: ["field": field, "label": meaning])
    }
    static func currencyMismatch(document: String, account: String, accountCurrency: String) -> Rejection {
        Rejection(code: .currencyMismatch, message: "the document is in \(document) but account \(account) is in \(accountCurrency)",
                  facts: ["document": document, "account": account, "accountCurrency": accountCurrency])
    }
    static func unknownCurrency(_ code: String) -> Rejection {
        Rejection(code: .unknownCurrency, message: "currency \"\(code)\" is not one the bank keeps accounts in",
                  facts: ["currency": code])
    }
    static func notPositive(_ amount: String) -> Rejection {
        Rejection(code: .amountNotPositive, message: "amount \(amount) is not positive", facts: ["amount": amount])
    }
    static func tooManyDecimals(_ amount: String, currency: String, minorUnits: Int) -> Rejection {
        Rejection(code: .tooManyDecimals, message: "amount \(amount) has more than \(minorUnits) decimals, the minor units of \(currency)",
                  facts: ["amount": amount, "currency": currency, "minorUnits": String(minorUnits)])
    }
    static func sameAccount(_ account: String) -> Rejection {
        Rejection(code: .sameAccount, message: "the debit and credit account are the same (\(account))", facts: ["account": account])
    }

    static func notSigners(_ account: String) -> Rejection {
        Rejection(code: .notSignersAccount,
                  message: "debit account \(account) is not the signer's: it belongs to another party and no mandate lets this signer debit it",
                  facts: ["account": account])
    }

    static func secondSignerRequired(_ account: String, amount: String, currency: String) -> Rejection {
        Rejection(code: .secondSignerRequired,
                  message: "debit account \(account) is a customer's whose payments of \(amount) \(currency) need two of its users' signatures: a mandate does not let another signer debit that much",
                  facts: ["account": account, "amount": amount, "currency": currency])
    }

    static func invisibleCharacter(field: String, _ found: InvisibleCharacter) -> Rejection {
        Rejection(code: .invisibleCharacter,
                  message: "field \"\(field)\" contains \(found), which can make the text read differently from what is signed",
                  facts: ["field": field, "character": found.code, "name": found.name, "position": String(found.position)])
    }

    static func noExchangeRate(_ currency: String) -> Rejection {
        Rejection(code: .noExchangeRate,
                  message: "the bank has no exchange rate for \(currency): the bank must import the day's rates first",
                  facts: ["currency": currency])
    }

    static func exchangeRateStale(pair: String, rateTime: String, maximumAge: String) -> Rejection {
        Rejection(code: .exchangeRateStale,
                  message: "the \(pair) rate of \(rateTime) is older than the maximum age of \(maximumAge) for a conversion: the bank must import today's rates",
                  facts: ["pair": pair, "rateTime": rateTime, "maximumAge": maximumAge])
    }

    static func exchangeRateNotCurrent(document: String, documentTime: String, bank: String, bankTime: String) -> Rejection {
        Rejection(code: .exchangeRateNotCurrent,
                  message: "the document's rate \(document) of \(documentTime) is not the bank's current rate \(bank) of \(bankTime): review the transfer again",
                  facts: ["document": document, "documentTime": documentTime, "bank": bank, "bankTime": bankTime])
    }

    static func conversionMismatch(document: String, expected: String) -> Rejection {
        Rejection(code: .conversionMismatch,
                  message: "the document credits \(document), but its amount buys \(expected) at its rate",
                  facts: ["document": document, "expected": expected])
    }

    static func conversionTooSmall(amount: String, currency: String, into: String) -> Rejection {
        Rejection(code: .conversionTooSmall,
                  message: "\(amount) \(currency) buys less than the smallest unit of \(into) at the bank's rate",
                  facts: ["amount": amount, "currency": currency, "into": into])
    }

    static func declined(by user: String, reason: String) -> Rejection {
        Rejection(code: .declined, message: "declined by the second signer \(user): \(reason)", facts: ["user": user, "reason": reason])
    }

    static func unknownCard(_ card: String) -> Rejection {
        Rejection(code: .unknownCard, message: "card \(card) is not one the bank issued", facts: ["card": card])
    }

    static func notSignersCard(_ card: Card) -> Rejection {
        Rejection(code: .notSignersCard,
                  message: "card \(card.masked) is not the signer's: only its own customer can block or unblock it",
                  facts: ["card": card.masked])
    }

    static func cardAlreadyBlocked(_ card: Card) -> Rejection {
        Rejection(code: .cardAlreadyBlocked, message: "card \(card.masked) is already blocked", facts: ["card": card.masked])
    }

    static func cardNotBlocked(_ card: Card) -> Rejection {
        Rejection(code: .cardNotBlocked, message: "card \(card.masked) is not blocked: there is nothing to unblock", facts: ["card": card.masked])
    }

    static func unknownCardAction(_ action: String?) -> Rejection {
        Rejection(code: .unknownCardAction,
                  message: "a card document's action must be \"block\" or \"unblock\", not \"\(action ?? "")\"",
                  facts: ["action": action ?? ""])
    }
}
