import Foundation
import RBSLedger
import RBSMoney

/// A document's fields as a person reads them, made in one place for every front end: the review before signing
/// (``SignModule``), a basket's review (``BasketModule``), `journal show`, receipts (text, HTML, PDF) and the
/// server's `sections` of a receipt or journal entry. Labels and enum titles come from the plugin
/// (`rbs.document-labels/1`, its atoms); amounts and dates are written as the person's language writes them; card
/// numbers are masked; the host's own captions come from the catalogue (``HostMessage``).
public enum DocumentPresentation {
    /// One labelled value.
    public struct Row: Sendable, Hashable {
        public var label: String
        public var value: String
        /// The document field it shows (`nil` for a fact that is not a field).
        public var field: String?
        /// Amount, currency, payee and card: what the person must check before signing.
        public var prominent: Bool

        public init(label: String, value: String, field: String? = nil, prominent: Bool = false) {
            self.label = label
            self.value = value
            self.field = field
            self.prominent = prominent
        }
    }

    /// The rows of `fields`: the amount (grouped, with its currency) first, then the payee, the payee's tax id,
    /// account and bank, the debit account, card numbers (masked) and the purpose; then every other field in the
    /// order the plugin put it, under its label, an enum's value as its option's title. Every non-empty field is
    /// shown: what is signed is what was seen.
    /// - Parameter presentation: how each key is shown (the plugin's labels and atoms, or the key's contract role).
    public static func rows(_ fields: [(key: String, value: String)], presentation: (String) -> FieldPresentation,
                            directory: BankDirectory?, language: HostLanguage) -> [Row] {
        var rows: [Row] = []
        var shown: Set<String> = []
        /// The first non-empty field with `role`.
        func field(_ role: DocumentFieldRole) -> (key: String, value: String)? {
            fields.first { presentation($0.key).role == role && !$0.value.isEmpty }
        }
        let conversion = conversionRows(fields, language: language)
        if let amount = field(.amount) {
            let currency = field(.currency)
            rows.append(Row(label: caption(.amount, language, converted: !conversion.isEmpty),
                            value: Amount.shown(amount.value, currency: currency?.value ?? "", language), field: amount.key, prominent: true))
            shown.insert(amount.key)
            if let currency { shown.insert(currency.key) }
        }
        rows += conversion
        // The credited currency and the pair are shown in the rows above.
        if !conversion.isEmpty { shown.formUnion(Conversion.Key.all) }
        let fee = feeRows(fields, language: language)
        rows += fee
        if !fee.isEmpty { shown.formUnion([PaymentField.fee.key, PaymentField.feeCurrency.key]) }
        for role in [DocumentFieldRole.payee, .payeeTaxID, .payeeAccount, .payeeBank, .debitAccount] {
            for (key, value) in fields where !value.isEmpty && !shown.contains(key) && presentation(key).role == role {
                var text = CardNumberMask.masked(value)
                if role == .payeeBank {
                    let bic = HostMessage.bic.text(language)
                    text = directory?.bank(bic: value).map { "\($0.name), \(bic) \(value)" } ?? "\(bic) \(value)"
                }
                rows.append(Row(label: caption(role, language), value: text, field: key, prominent: role != .debitAccount))
                shown.insert(key)
            }
        }
        // A card document's action is the core's word (``Card/Action``), shown as a person says it, as prominent as
        // the card: blocking and unblocking are told apart before signing.
        let action = cardAction(fields, isPayment: field(.amount) != nil)
        for role in [DocumentFieldRole.cardNumber, .purpose, .other, .currency] {
            for (key, value) in fields where !value.isEmpty && !shown.contains(key) && presentation(key).role == role {
                let presented = presentation(key)
                let label = role == .cardNumber || role == .purpose ? caption(role, language) : presented.label
                if key == Card.Key.action, let action {
                    rows.append(Row(label: label, value: HostMessage.cardAction(action).text(language), field: key, prominent: true))
                } else {
                    rows.append(Row(label: label, value: Self.value(value, presented, language), field: key, prominent: role == .cardNumber))
                }
                shown.insert(key)
            }
        }
        return rows.map { row in
            var row = row
            row.value = oneLine(row.value)
            return row
        }
    }

    /// A field's value on one line, each line break (CR LF, LF or CR: the core lets a document hold them) shown as
    /// ` ↵ ` and a tab as a space: on a terminal a carriage return writes over the line (`comment: ok\r  Amount:
    /// 1.00 RUB` shows a false amount), and a line feed starts what looks like a row of its own.
    static func oneLine(_ value: String) -> String {
        guard value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\t" }) else { return value }
        return value.replacingOccurrences(of: "\r\n", with: "\n")
            .replacingOccurrences(of: "\r", with: "\n")
            .replacingOccurrences(of: "\n", with: " \u{21B5} ")
            .replacingOccurrences(of: "\t", with: " ")
    }

    /// The action of a card document (one that moves no money and names a card by its masked number, as the core
    /// decides it: ``Card``), or nil for any other document or an action the core does not know.
    static func cardAction(_ fields: [(key: String, value: String)], isPayment: Bool) -> Card.Action? {
        guard !isPayment, fields.contains(where: { $0.key == Card.Key.masked && !$0.value.isEmpty }) else { return nil }
        return fields.first { $0.key == Card.Key.action }.flatMap { Card.Action(rawValue: $0.value) }
    }

    /// The heading of a document that moves no money, where a payment's is its amount and payee: a card document's
    /// action and card ("Block the card 4111 11** **** 1111"). Nil for a payment and for any other document.
    public static func heading(_ fields: [(key: String, value: String)], language: HostLanguage) -> String? {
        let isPayment = fields.contains { $0.key == PaymentField.amount.key && !$0.value.isEmpty }
        guard let action = cardAction(fields, isPayment: isPayment),
              let card = fields.first(where: { $0.key == Card.Key.masked })?.value else { return nil }
        return HostMessage.cardActionHeading(action, card: CardNumberMask.masked(card)).text(language)
    }

    /// The rows of a signed document, labelled by its operation's descriptor when the host still has that operation
    /// (`operation`), else by the contract roles of its keys (a plugin's own key then under the key itself).
    public static func rows(_ document: Document, operation: OperationDescriptor?, directory: BankDirectory?,
                            language: HostLanguage) -> [Row] {
        let operation = operation?.localized(language)
        // A signed document keeps its fields in canonical (sorted) order: shown in the plugin's order when it is known
        // (its labels, then its atoms), as the review showed them; keys it does not name after them, as signed.
        let order = (operation?.documentLabels.map(\.key) ?? []) + (operation?.atoms.map(\.id) ?? [])
        func rank(_ key: String) -> Int { order.firstIndex(of: key) ?? order.count }
        let fields = document.fields.enumerated().sorted { (rank($0.element.key), $0.offset) < (rank($1.element.key), $1.offset) }
            .map { (key: $0.element.key, value: $0.element.value) }
        return rows(fields, presentation: { key in
            operation.map { FieldPresentation.of(key, in: $0) }
                ?? FieldPresentation(label: key, role: DocumentFieldRole.ofCoreKey(key) ?? .other, atom: nil)
        }, directory: directory, language: language)
    }

    /// A conversion's rows (``Conversion``: the core writes its fields into a transfer between own accounts in two
    /// currencies), shown right after the amount debited, all prominent: the amount credited in its currency, the
    /// rate as one unit of the pair's base ("1 USD = 94.388 RUB") and the rate's time. None when the fields are not
    /// all there (a document that converts nothing).
    static func conversionRows(_ fields: [(key: String, value: String)], language: HostLanguage) -> [Row] {
        func value(_ key: String) -> String? { fields.first { $0.key == key && !$0.value.isEmpty }?.value }
        typealias Key = Conversion.Key
        guard let credited = value(Key.creditAmount), let currency = value(Key.creditCurrency), let rate = value(Key.rate),
              let pair = value(Key.pair), let time = value(Key.time) else { return [] }
        let sides = pair.split(separator: "/").map(String.init)
        let rateText = sides.count == 2 ? "1 \(sides[0]) = \(Self.rate(rate, language)) \(sides[1])" : "\(pair) \(rate)"
        return [
            Row(label: HostMessage.credited.text(language), value: Amount.shown(credited, currency: currency, language),
                field: Key.creditAmount, prominent: true),
            Row(label: HostMessage.exchangeRate.text(language), value: rateText, field: Key.rate, prominent: true),
            Row(label: HostMessage.rateTime.text(language), value: Self.instant(time), field: Key.time, prominent: true),
        ]
    }

    /// A fee's rows, right after the amount (and a conversion's rows), both prominent: the fee in its currency and
    /// the total debited, the amount plus the fee — what the core checks the balance against and posts
    /// (``Payment/totalDebited``), so "к списанию" is always what leaves the account. None without a fee; a fee
    /// that is not an amount, or in another currency than the payment's, is shown as written with no total (the core
    /// refuses such a document, and the review says why).
    static func feeRows(_ fields: [(key: String, value: String)], language: HostLanguage) -> [Row] {
        func value(_ field: PaymentField) -> String? { fields.first { $0.key == field.key && !$0.value.isEmpty }?.value }
        guard let fee = value(.fee) else { return [] }
        let currency = value(.currency) ?? ""
        let feeCurrency = value(.feeCurrency) ?? currency
        var rows = [Row(label: HostMessage.fee.text(language), value: Amount.shown(fee, currency: feeCurrency, language),
                        field: PaymentField.fee.key, prominent: true)]
        // The sum as the core makes it (``Payment/totalDebited``): both in the payment's currency, exact in minor units.
        guard feeCurrency == currency, let known = Currency(code: currency), let amount = value(.amount),
              let debited = try? Money(plain: amount, currency: known), let charged = try? Money(plain: fee, currency: known) else {
            return rows
        }
        let (sum, overflow) = debited.minorUnits.addingReportingOverflow(charged.minorUnits)
        if !overflow, let total = Money(minorUnits: sum, currency: known) {
            rows.append(Row(label: HostMessage.totalDebited.text(language), value: Amount.shown(total, language), prominent: true))
        }
        return rows
    }

    /// A rate as signed (6 decimals) without the trailing zeros past the second, with the language's decimal
    /// separator: `94.388000` → `94.388` (`94,388` in Russian). The same value: nothing is rounded.
    static func rate(_ text: String, _ language: HostLanguage) -> String {
        guard DecimalText.parse(text) != nil, let dot = text.firstIndex(of: ".") else { return text }
        var fraction = text[text.index(after: dot)...]
        while fraction.count > 2, fraction.last == "0" { fraction = fraction.dropLast() }
        return text[..<dot] + (language == .ru ? "," : ".") + fraction
    }

    /// An instant as the core writes it (`2026-11-26T05:30:00.000Z`) as every other time of a document is shown
    /// (``EntryReport/time(_:)``: `26.11.2026 05:30:00 UTC`); as written when it is not one.
    static func instant(_ text: String) -> String {
        Timestamp.parse(text).map(EntryReport.time) ?? text
    }

    /// The host's caption for the amount's row: "Debited" for a conversion, whose credited amount follows.
    static func caption(_ role: DocumentFieldRole, _ language: HostLanguage, converted: Bool) -> String {
        converted && role == .amount ? HostMessage.debited.text(language) : caption(role, language)
    }

    /// The host's caption for a role's row.
    public static func caption(_ role: DocumentFieldRole, _ language: HostLanguage) -> String {
        let message: HostMessage = switch role {
        case .amount: .amount
        case .currency: .currency
        case .payee: .payee
        case .payeeTaxID: .payeeTaxID
        case .payeeAccount: .payeeAccount
        case .payeeBank: .bank
        case .debitAccount: .debitAccount
        case .cardNumber: .card
        case .purpose: .purpose
        case .other: .document  // never asked: a field of another role is headed by its own label
        }
        return message.text(language)
    }

    /// A field's value as a person reads it: an enum's option title, yes/no for a toggle, a date as the language
    /// writes it, an amount grouped, card numbers masked.
    public static func value(_ value: String, _ presentation: FieldPresentation, _ language: HostLanguage = .en) -> String {
        if presentation.role == .cardNumber {
            let digits = value.filter { $0.isASCII && $0.isNumber }
            return digits.count > 10 && !value.contains("*") ? CardNumberMask.mask(String(digits)) : value
        }
        guard let atom = presentation.atom else { return CardNumberMask.masked(value) }
        return self.value(value, of: atom, language)
    }

    /// An atom's value as a person reads it (a form's current value, a document's field): an enum's option title,
    /// yes/no (да/нет) for a toggle, a date as ДД.ММ.ГГГГ in Russian, an amount or number grouped as the language
    /// writes it, card numbers masked.
    public static func value(_ value: String, of atom: AtomDescriptor, _ language: HostLanguage) -> String {
        switch atom.kind {
        case .enumeration:
            return atom.options.first { $0.value == value }?.title ?? CardNumberMask.masked(value)
        case .toggle:
            return ["yes", "true", "1"].contains(value.lowercased()) ? HostMessage.yes.text(language)
                : ["no", "false", "0"].contains(value.lowercased()) ? HostMessage.no.text(language) : value
        case .input where atom.inputType == .date:
            return language == .ru ? HostMessage.date(iso: value) : value
        case .input where atom.inputType == .amount:
            return Amount.shown(value, currency: atom.currency ?? "RUB", language, code: false)
        case .input where atom.inputType == .number:
            guard let decimal = DecimalText.parse(value) else { return value }
            return language == .ru ? decimal.description.replacingOccurrences(of: ".", with: ",") : decimal.description
        default:
            return CardNumberMask.masked(value)
        }
    }
}

extension PluginRegistry {
    /// The descriptor of listed operation `id` (from its plugin's manifest: nothing is loaded), or nil when no plugin
    /// the host has now offers it: what labels a journaled document's fields.
    public func listedDescriptor(_ id: String) -> OperationDescriptor? {
        operations.first { $0.id == id }?.descriptor
    }
}
