import Foundation
import RBSMoney

/// A money field of a payment document: what the core, the duplicate rule, statements, baskets and every front end
/// read from a document that moves money. The one place that knows under which key each is written (``key``); nothing
/// outside this mapping reads a money field by its key.
public enum PaymentField: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case amount, currency, debitAccount, creditAccount, payeeName, payeeBank, payeeTaxID, payeeKPP, purpose, fee, feeCurrency

    /// The key the document contract fixes for the field when the operation's labels name no other
    /// (`rbs.document-labels/1` may give ``payeeTaxID`` to a key of the plugin's own).
    public var key: String {
        switch self {
        case .amount: "amount"
        case .currency: "currency"
        case .debitAccount: "from"
        case .creditAccount: "account"
        case .payeeName: "name"
        case .payeeBank: "bic"
        case .payeeTaxID: "inn"
        case .payeeKPP: "kpp"
        case .purpose: "purpose"
        case .fee: "fee"
        case .feeCurrency: "feeCurrency"
        }
    }

    /// What the field is, for a message when the operation gives it no label of its own.
    public var meaning: String {
        switch self {
        case .amount: "the amount"
        case .currency: "the currency of the amount"
        case .debitAccount: "the debit account"
        case .creditAccount: "the payee's account"
        case .payeeName: "the payee"
        case .payeeBank: "the payee's bank"
        case .payeeTaxID: "the payee's INN"
        case .payeeKPP: "the payee's KPP"
        case .purpose: "the purpose"
        case .fee: "the fee"
        case .feeCurrency: "the currency of the fee"
        }
    }

    /// Whether the contract fixes the field's key: every money field but the payee's tax id, which an operation's
    /// labels may give to a key of its own (a role cannot move the amount or an account: the core posts those keys).
    public var hasFixedKey: Bool { self != .payeeTaxID }

    /// The field the contract gives `key`, or nil for a key of the plugin's own.
    public static func ofKey(_ key: String) -> PaymentField? { allCases.first { $0.key == key } }

    public var description: String { key }
}

/// Which key of an operation's documents holds each money field, and the label a person knows it by: the
/// contract's keys, unless the operation's `rbs.document-labels/1` gives a role (the payee's tax id) to a key of its
/// own; the labels name the fields in ``PaymentError``.
public struct PaymentLayout: Sendable, Hashable {
    private var keys: [PaymentField: String] = [:]
    private var labels: [String: String] = [:]

    /// The document contract's keys, labelled by their meaning.
    public static let contract = PaymentLayout()

    public init() {}

    /// The contract's keys, with each labelled key's `label` and the field its role gives it (`field` nil: the key
    /// has no money role, only perhaps a label).
    public init(labels entries: [(key: String, label: String?, field: PaymentField?)]) {
        for entry in entries {
            if let label = entry.label, !label.isEmpty { labels[entry.key] = label }
            if let field = entry.field, !field.hasFixedKey, PaymentField.ofKey(entry.key) == nil {
                keys[field] = entry.key
            }
        }
    }

    /// The key of `field` in this operation's documents.
    public func key(_ field: PaymentField) -> String { keys[field] ?? field.key }

    /// How a message names `field`: the operation's label for its key, else the field's meaning.
    public func label(_ field: PaymentField) -> String { labels[key(field)] ?? field.meaning }
}

/// Why a document that moves money (it has an amount) cannot be read as a ``Payment``: one typed error naming the
/// field by its label. The core refuses such a document (``Rejection``); nothing reads it as zero.
public enum PaymentError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A field the payment needs is absent or empty.
    case missing(PaymentField, key: String, label: String)
    /// The amount (or the fee) is not plain decimal text, or is not above zero.
    case notPositive(PaymentField, text: String, label: String)
    /// The currency is not an ISO 4217 currency with minor units.
    case unknownCurrency(String, label: String)
    /// More decimals than the currency has (never rounded).
    case tooManyDecimals(PaymentField, text: String, currency: Currency, label: String)
    /// The fee is written in another currency than the amount: the core posts a fee only in the payment's currency,
    /// from the same account (a fee in another currency would need a conversion nobody signed).
    case feeCurrencyMismatch(feeCurrency: String, currency: String, label: String)
    /// The total debited (the amount plus the fee) is beyond what an amount can hold.
    case totalTooLarge(amount: String, fee: String, currency: String)

    /// The field the error is about.
    public var field: PaymentField {
        switch self {
        case .missing(let field, _, _), .notPositive(let field, _, _), .tooManyDecimals(let field, _, _, _): field
        case .unknownCurrency: .currency
        case .feeCurrencyMismatch: .feeCurrency
        case .totalTooLarge: .fee
        }
    }

    public var description: String {
        switch self {
        case .missing(_, let key, let label):
            "\(label): the document moves money but has no \"\(key)\" field"
        case .notPositive(_, let text, let label):
            "\(label): \(text.isEmpty ? "empty" : "\"\(text)\"") is not an amount above zero"
        case .unknownCurrency(let code, let label):
            "\(label): \"\(code)\" is not an ISO 4217 currency an amount can be written in"
        case .tooManyDecimals(_, let text, let currency, let label):
            "\(label): \(text) has more than \(currency.minorUnits) decimals, the minor units of \(currency.code)"
        case .feeCurrencyMismatch(let feeCurrency, let currency, let label):
            "\(label): the fee is in \(feeCurrency) but the payment is in \(currency); the bank takes a fee only in the payment's currency"
        case .totalTooLarge(let amount, let fee, let currency):
            "the amount \(amount) \(currency) plus the fee \(fee) \(currency) is beyond the largest amount the bank posts"
        }
    }

    /// What the core journals for it: the stable codes and messages every front end already renders.
    public var rejection: Rejection {
        switch self {
        case .missing(_, let key, let label): .missing(key, label)
        case .notPositive(.amount, let text, _): .notPositive(text)
        case .notPositive(let field, let text, let label):
            Rejection(code: .amountNotPositive, message: description, facts: ["amount": text, "field": field.key, "label": label])
        case .unknownCurrency(let code, _): .unknownCurrency(code)
        case .tooManyDecimals(_, let text, let currency, _): .tooManyDecimals(text, currency: currency.code, minorUnits: currency.minorUnits)
        case .feeCurrencyMismatch(let feeCurrency, let currency, let label):
            Rejection(code: .feeCurrencyMismatch, message: description,
                      facts: ["feeCurrency": feeCurrency, "currency": currency, "field": PaymentField.feeCurrency.key, "label": label])
        case .totalTooLarge(let amount, let fee, let currency):
            Rejection(code: .amountNotPositive, message: description, facts: ["amount": amount, "feeAmount": fee, "currency": currency])
        }
    }
}

/// The typed view of a document that moves money: made in one place (``init(_:layout:)``) from the fields' roles,
/// read by the core's posting rule, the duplicate rule, statements, baskets, search and every front end.
public struct Payment: Sendable, Hashable {
    /// The payee, as the document names them.
    public struct Payee: Sendable, Hashable {
        public let name: String?
        /// INN (the field with the payee's tax id role).
        public let taxID: String?
        public let kpp: String?
        /// The payee's bank (BIC).
        public let bank: String?
    }

    /// What the debit account pays.
    public let amount: Money
    public let debitAccount: String
    /// The payee's account (for a transfer between own accounts, the credit account).
    public let creditAccount: String
    public let payee: Payee
    public let purpose: String?
    /// The fee the document carries, in the payment's currency, or nil when it carries none. The core posts it from
    /// the debit account to the bank's fee income account of that currency (``FeeIncome``) in the transaction that
    /// posts the amount; the document names no account for it (a plugin cannot direct a fee anywhere).
    public let fee: Money?

    /// What leaves the debit account: the amount plus the fee (the amount when there is none). Made when the
    /// payment is read, so a sum beyond what an amount can hold is refused there (``PaymentError/totalTooLarge``).
    public let totalDebited: Money

    /// Reads `document` as a payment; nil when it moves no money (no amount: a card block, a request).
    /// - Throws: ``PaymentError`` for a missing or malformed money field, checked in the order the core has always
    ///   refused them: debit account, credit account, currency, amount, the currency's decimals, the fee, the fee's
    ///   currency (when the document writes one, it must be the payment's).
    public init?(_ document: Document, layout: PaymentLayout = .contract) throws(PaymentError) {
        try self.init(fields: document.fields, layout: layout)
    }

    /// The same for the fields of a document about to be made.
    public init?(fields: [DocumentField], layout: PaymentLayout = .contract) throws(PaymentError) {
        func text(_ field: PaymentField) -> String? {
            let key = layout.key(field)
            return fields.first { $0.key == key }?.value
        }
        func required(_ field: PaymentField) throws(PaymentError) -> String {
            guard let value = text(field), !value.isEmpty else { throw .missing(field, key: layout.key(field), label: layout.label(field)) }
            return value
        }
        func present(_ field: PaymentField) -> String? { text(field).flatMap { $0.isEmpty ? nil : $0 } }
        guard let amountText = text(.amount) else { return nil }
        debitAccount = try required(.debitAccount)
        creditAccount = try required(.creditAccount)
        let code = try required(.currency)
        guard DecimalText.parse(amountText).map({ $0 > 0 }) == true else {
            throw .notPositive(.amount, text: amountText, label: layout.label(.amount))
        }
        // The code exactly as ISO 4217 writes it: what is signed is what is posted and journaled.
        guard let currency = Currency(code: code), currency.code == code else { throw .unknownCurrency(code, label: layout.label(.currency)) }
        amount = try Self.money(amountText, currency, .amount, layout)
        fee = try present(.fee).map { (text) throws(PaymentError) in
            guard DecimalText.parse(text).map({ $0 > 0 }) == true else { throw .notPositive(.fee, text: text, label: layout.label(.fee)) }
            return try Self.money(text, currency, .fee, layout)
        }
        if let feeCurrency = present(.feeCurrency), feeCurrency != code {
            throw .feeCurrencyMismatch(feeCurrency: feeCurrency, currency: code, label: layout.label(.feeCurrency))
        }
        if let fee {
            let (sum, overflow) = amount.minorUnits.addingReportingOverflow(fee.minorUnits)
            guard !overflow, let total = Money(minorUnits: sum, currency: currency) else {
                throw .totalTooLarge(amount: amount.plain, fee: fee.plain, currency: code)
            }
            totalDebited = total
        } else {
            totalDebited = amount
        }
        payee = Payee(name: present(.payeeName), taxID: present(.payeeTaxID), kpp: present(.payeeKPP), bank: present(.payeeBank))
        purpose = present(.purpose)
    }

    private static func money(_ text: String, _ currency: Currency, _ field: PaymentField, _ layout: PaymentLayout) throws(PaymentError) -> Money {
        do { return try Money(plain: text, currency: currency) } catch {
            switch error {
            case .tooManyMinorDigits: throw .tooManyDecimals(field, text: text, currency: currency, label: layout.label(field))
            case .tooLarge, .notPlainDecimal: throw .notPositive(field, text: text, label: layout.label(field))
            }
        }
    }

    /// The payment `document` makes, or nil when it makes none or cannot be read as one: for showing, searching and
    /// comparing documents the journal already holds (the core refused the unreadable ones when they were signed).
    public static func of(_ document: Document?) -> Payment? {
        guard let document else { return nil }
        return try? Payment(document)
    }

    /// Whether two payments pay the same payee (name, account) the same amount (a value: "1500" and "1500.00" are
    /// the same) in the same currency for the same purpose — the name and the purpose compared as a person reads
    /// them (``comparable(_:)``): a doubled or trailing space, or another case, does not make another payment.
    public func isSame(as other: Payment) -> Bool {
        amount == other.amount && creditAccount == other.creditAccount
            && Self.comparable(payee.name) == Self.comparable(other.payee.name)
            && Self.comparable(purpose) == Self.comparable(other.purpose)
    }

    /// `text` as the duplicate rule compares it: white space runs as one space, none at either end, lower case
    /// (ё as е, which Russian writes either way).
    static func comparable(_ text: String?) -> String? {
        guard let text else { return nil }
        let words = text.split(whereSeparator: { $0.isWhitespace })
        return words.joined(separator: " ").lowercased().replacingOccurrences(of: "ё", with: "е")
    }
}

extension Document {
    /// The text of the money field `field` as written (contract key), for showing and searching a document whatever
    /// the core decided about it: a refused document's payee or purpose is still found. Empty text is nil.
    public func text(of field: PaymentField) -> String? {
        self[field.key].flatMap { $0.isEmpty ? nil : $0 }
    }
}
