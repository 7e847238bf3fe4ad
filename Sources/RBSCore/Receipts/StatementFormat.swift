import Foundation
import RBSLedger

/// An account's statement (``AccountStatement``, made by the core) for scripts and for print: the JSON that
/// `statement --json` prints and `serve` answers, and the PDF that `serve` offers to download, written by the
/// receipts' ``PDFWriter`` (DejaVu Sans embedded, so Cyrillic shows in any viewer).
public enum StatementFormat {
    /// `statement --json` and `GET /api/v1/accounts/{account}/statement`.
    public struct JSON: Encodable, Sendable {
        public struct Totals: Encodable, Sendable {
            public var debit: String
            public var credit: String
            public var debits: Int
            public var credits: Int
        }

        public struct Counterparty: Encodable, Sendable {
            public var account: String
            public var name: String
        }

        public struct Line: Encodable, Sendable {
            public var journal: Int64
            public var postedAt: String
            public var documentId: String
            public var operation: String
            public var direction: StatementLine.Direction
            public var counterparty: Counterparty
            public var purpose: String
            public var amount: String
            public var balance: String
            /// `payment`, or `fee`: the fee leg of the same journal entry, to the bank's fee income account.
            public var kind: String
        }

        public var account: String
        public var title: String
        public var currency: String
        /// ISO 8601 UTC; `null`: from the account's opening / up to now.
        public var from: String?
        public var to: String?
        public var opening: String
        public var closing: String
        public var totals: Totals
        public var lines: [Line]

        private enum CodingKeys: String, CodingKey {
            case account, title, currency, from, to, opening, closing, totals, lines
        }

        // `from` and `to` are written as null when open, not left out: a script reads the period from the keys.
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(account, forKey: .account)
            try c.encode(title, forKey: .title)
            try c.encode(currency, forKey: .currency)
            try c.encode(from, forKey: .from)
            try c.encode(to, forKey: .to)
            try c.encode(opening, forKey: .opening)
            try c.encode(closing, forKey: .closing)
            try c.encode(totals, forKey: .totals)
            try c.encode(lines, forKey: .lines)
        }
    }

    public static func json(_ statement: AccountStatement) -> JSON {
        let currency = statement.account.currency
        let iso = ISO8601DateFormatter()
        func text(_ value: Decimal) -> String { Amount.text(value, currency: currency) }
        return JSON(
            account: statement.account.number, title: statement.account.title, currency: currency,
            from: statement.period.start.map(iso.string(from:)), to: statement.period.end.map(iso.string(from:)),
            opening: text(statement.opening), closing: text(statement.closing),
            totals: .init(debit: text(statement.totalDebit), credit: text(statement.totalCredit),
                          debits: statement.lines.filter { $0.direction == .debit }.count,
                          credits: statement.lines.filter { $0.direction == .credit }.count),
            lines: statement.lines.map { line in
                .init(journal: line.sequence, postedAt: iso.string(from: Timestamp.date(milliseconds: line.postedAtMilliseconds)),
                      documentId: line.documentId, operation: line.operation, direction: line.direction,
                      counterparty: .init(account: line.counterpartyAccount, name: line.counterpartyName),
                      purpose: line.purpose, amount: text(line.amount), balance: text(line.balanceAfter),
                      kind: line.isFee ? "fee" : "payment")
            })
    }

    /// A line's counterparty as a person reads it: the name and the account; for a fee leg, the bank's fee and the
    /// income account it went to (the payment's own line of the entry names the payee).
    public static func counterparty(_ line: StatementLine, language: HostLanguage) -> String {
        let name = line.isFee ? HostMessage.Report.feeLine.text(language) : line.counterpartyName
        return [name, line.counterpartyAccount].filter { !$0.isEmpty }.joined(separator: ", ")
    }

    /// A posting's time as a statement writes it: `31.03.2026 14:05` in `timeZone`.
    public static func timeFormatter(_ timeZone: TimeZone) -> DateFormatter {
        let times = DateFormatter()
        times.locale = Locale(identifier: "en_US_POSIX")
        times.timeZone = timeZone
        times.dateFormat = "dd.MM.yyyy HH:mm"
        return times
    }

    /// A time zone as a statement names it: its IANA name (`Europe/Moscow`), or its offset (`UTC+03:00`) where the zone
    /// has no name of that form.
    static func zoneName(_ zone: TimeZone, at date: Date) -> String {
        if zone.identifier.contains("/") { return zone.identifier }
        let seconds = zone.secondsFromGMT(for: date), minutes = abs(seconds) / 60
        return "UTC" + (seconds < 0 ? "-" : "+") + String(format: "%02d:%02d", minutes / 60, minutes % 60)
    }

    /// The statement's period line: its first and last day in `timeZone` (open ends said as such).
    public static func period(_ period: StatementPeriod, timeZone: TimeZone) -> HostMessage {
        let days = DateFormatter()
        days.locale = Locale(identifier: "en_US_POSIX")
        days.timeZone = timeZone
        days.dateFormat = "dd.MM.yyyy"
        // The end is exclusive (the next midnight): the last day shown is the day before it.
        return HostMessage.period(from: period.start.map { days.string(from: $0) },
                                  to: period.end.map { days.string(from: $0.addingTimeInterval(-1)) })
    }

    /// The statement as a PDF in `language`: the account, its holder, when the statement was made (`issuedAt`) and
    /// the period, the opening balance, each posting (its time and signed amount, the counterparty, the purpose, the
    /// balance after it), the totals and the closing balance. Days and times are written in `timeZone`.
    public static func pdf(_ statement: AccountStatement, language: HostLanguage, timeZone: TimeZone = .current,
                           issuedAt: Date = Date(), fontPath: String = ReceiptFormat.fontPath) throws(ReceiptError) -> Data {
        func text(_ message: HostMessage) -> String { message.text(language) }
        let currency = statement.account.currency
        func money(_ value: Decimal) -> String { Amount.shown(value, currency: currency, language) }
        let locale = Locale(identifier: language == .ru ? "ru_RU" : "en_GB")
        func label(_ message: HostMessage) -> String { text(message).lowercased(with: locale).capitalized(with: locale) }
        let times = timeFormatter(timeZone)
        var writer = PDFWriter(font: try TrueTypeFont(path: fontPath))
        writer.heading(text(.statementOf(account: statement.account.number, title: statement.account.title, currency: currency)))
        // A statement kept or handed on says whose account it is and when it was made (a later one may differ:
        // postings of the period's last day can still arrive).
        if !statement.account.owner.isEmpty { writer.subheading(text(.accountHolder(statement.account.owner))) }
        writer.subheading(text(.statementIssued(times.string(from: issuedAt) + " (" + zoneName(timeZone, at: issuedAt) + ")")))
        writer.subheading(text(period(statement.period, timeZone: timeZone)))
        writer.subheading(text(.openingBalance(money(statement.opening))))
        if statement.lines.isEmpty {
            writer.gap()
            writer.row(label: "", value: text(.noPostings))
        }
        for line in statement.lines {
            writer.gap()
            let amount = (line.amount > 0 ? "+" : "") + money(line.amount)
            writer.row(label: times.string(from: Timestamp.date(milliseconds: line.postedAtMilliseconds)) + " · " + String(line.sequence),
                       value: amount)
            writer.row(label: label(.counterpartyColumn), value: counterparty(line, language: language))
            if !line.purpose.isEmpty { writer.row(label: label(.purposeColumn), value: line.purpose) }
            writer.row(label: label(.balance), value: money(line.balanceAfter))
        }
        writer.gap()
        let debits = statement.lines.filter { $0.direction == .debit }.count
        writer.subheading(text(.totals(debits: money(statement.totalDebit), debitCount: debits,
                                       credits: money(statement.totalCredit), creditCount: statement.lines.count - debits)))
        writer.subheading(text(.closingBalance(money(statement.closing))))
        return writer.finish()
    }
}
