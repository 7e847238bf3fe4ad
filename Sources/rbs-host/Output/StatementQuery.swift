import Foundation
import RBSCore
import RBSLedger
import RBSMoney

/// What `accounts` and `statement` were asked, as a person typed it (an account's list number or its number; days
/// `ДД.ММ.ГГГГ` or `YYYY-MM-DD` in the host's time zone), turned into the core's typed questions.
enum StatementQuery {
    /// Why a statement's arguments cannot be used.
    enum Problem: Error, CustomStringConvertible {
        case notADay(option: String, text: String)
        case noAccount(String, count: Int)
        /// A whole account number that is not one of the party's accounts (another party's, or none at all).
        case notYours(String)
        case toBeforeFrom(from: String, to: String)

        /// The problem in `language` (English is ``description``).
        func text(_ language: HostLanguage) -> String {
            guard language == .ru else { return description }
            switch self {
            case .notADay(let option, let text):
                return "\(option) «\(text)» — не дата: пишите ДД.ММ.ГГГГ (31.03.2026) или ГГГГ-ММ-ДД (2026-03-31)"
            case .noAccount(let text, let count):
                return "«\(text)» — не номер счёта и не номер в списке 1–\(count) (см. `accounts`)"
            case .notYours(let number):
                return "счёт \(number) — не один из счетов этого хоста (см. `accounts`): выписку по чужому счёту запрашивает его владелец"
            case .toBeforeFrom(let from, let to):
                return "--to \(to) раньше --from \(from): в периоде нет дней"
            }
        }

        var description: String {
            switch self {
            case .notADay(let option, let text):
                "\(option) '\(text)' is not a day: write ДД.ММ.ГГГГ (31.03.2026) or YYYY-MM-DD (2026-03-31)"
            case .noAccount(let text, let count):
                "'\(text)' is neither an account number nor a list number 1–\(count) (see `accounts`)"
            case .notYours(let number):
                "account \(number) is not one of this host's accounts (see `accounts`): another party's statement is theirs to ask for"
            case .toBeforeFrom(let from, let to):
                "--to \(to) is before --from \(from): the period has no days"
            }
        }
    }

    /// The period from the first moment of day `from` to the end of day `to` (both inclusive, either open).
    static func period(from: String?, to: String?, timeZone: TimeZone = .current) throws(Problem) -> StatementPeriod {
        var period = StatementPeriod()
        if let from { period.start = try moment(from, option: "--from", timeZone: timeZone, dayEnd: false) }
        if let to { period.end = try moment(to, option: "--to", timeZone: timeZone, dayEnd: true) }
        if let from, let to, let start = period.start, let end = period.end, end <= start {
            throw .toBeforeFrom(from: from.trimmingCharacters(in: .whitespaces), to: to.trimmingCharacters(in: .whitespaces))
        }
        return period
    }

    /// The account `text` names: its number, or its place in the account list (`accounts`, the pickers' numbers).
    static func account(_ text: String, in ledger: Ledger) throws -> String {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let overview = try ledger.accountOverview(of: ledger.hostParty())
        if let match = overview.first(where: { $0.account.number == trimmed }) { return match.account.number }
        if let position = Int(trimmed), let match = overview.first(where: { $0.position == position }) { return match.account.number }
        if trimmed.count == 20, trimmed.allSatisfy(\.isNumber) {
            // Only the party's own accounts: a customer's statement is never shown to the host's signer. A number the
            // core does not hold at all is the core's to refuse (it says so by number).
            if try ledger.bank.account(number: trimmed) != nil { throw Problem.notYours(trimmed) }
            return trimmed
        }
        throw Problem.noAccount(trimmed, count: overview.count)
    }

    /// The first moment of the day `text` names in `timeZone`, or with `dayEnd` the moment it ends (the next day's
    /// first); a day that does not exist (31.02.2026) is refused, never moved to another.
    static func moment(_ text: String, option: String, timeZone: TimeZone, dayEnd: Bool) throws(Problem) -> Date {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let day = try? CalendarDay.parse(trimmed, .either),
              let moment = dayEnd ? day.end(in: timeZone) : day.midnight(in: timeZone) else {
            throw .notADay(option: option, text: trimmed)
        }
        return moment
    }
}

/// An error of a command that reads the journal or a statement, in the person's language: the command line's own
/// problems (a period, an account as typed) and every typed error of the core (``HostMessage/describe(any:_:)``).
enum CommandError {
    static func text(_ error: any Error, _ language: HostLanguage) -> String {
        if let problem = error as? StatementQuery.Problem { return problem.text(language) }
        return HostMessage.describe(any: error, language)
    }
}
