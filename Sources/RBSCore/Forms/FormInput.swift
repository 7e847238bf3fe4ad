import Foundation
import RBSExpressions
import RBSMoney

/// Turns what a person or a script typed into a typed value for one atom — the front end's half of a commit
/// (the REPL, `describe`/`run --set`, and any later client call it; ``FormSession`` itself only takes typed values).
///
/// - Enum: a person chooses by the list number shown (1…n) or by the title (or an unambiguous start of it); a
///   script by the option's value or its title. The internal value is never read as a list number, nor the
///   reverse.
/// - Account: the list number of ``FormSession/accountList`` (the same for the whole run, whichever picker shows
///   it) or the full account number.
/// - Amount: one call site (``amount(_:currency:)``) into the amount parser.
/// - Date: `ДД.ММ.ГГГГ` or ISO `ГГГГ-ММ-ДД`.
public enum FormInput {
    /// Who typed the text: what an enum choice may be.
    public enum Reader: Sendable {
        /// A person at a list: the option's list number or its title.
        case person
        /// A script (`--set`): the option's value or its title.
        case script
    }

    /// What `reader` may type for `atom`, for help and error messages.
    public static func accepted(for atom: AtomDescriptor, reader: Reader) -> String {
        switch atom.kind {
        case .enumeration:
            reader == .person ? "the list number (1–\(atom.options.count)) or the title"
                : "the option's value or its title: " + atom.options.map { "\($0.value) (\($0.title))" }.joined(separator: ", ")
        case .account: "the account's list number or its 20-digit number"
        case .toggle: "yes or no (да/нет)"
        case .input:
            switch atom.inputType {
            case .date: "a date, ДД.ММ.ГГГГ or YYYY-MM-DD"
            case .amount: "an amount in \(atom.currency ?? "RUB")"
            case .number: "a number"
            case .digits: "digits"
            case .text: "text"
            }
        case .text, .button: "no value"
        }
    }

    /// The typed value `text` stands for in atom `atom` of `session`; an empty text is ``AtomValue/empty``.
    /// - Throws: ``FormSessionError/invalid(id:message:)`` saying what was typed and what is accepted.
    public static func value(_ text: String, for atom: AtomDescriptor, in session: FormSession,
                             reader: Reader) throws(FormSessionError) -> AtomValue {
        let trimmed = text.trimmed
        func refuse(_ message: String) -> FormSessionError { .invalid(id: atom.id, message: message) }
        switch atom.kind {
        case .input:
            if atom.inputType == .text { return text.isEmpty ? .empty : .text(text) }
            if trimmed.isEmpty { return .empty }
            switch atom.inputType {
            case .text, .digits: return .text(trimmed)
            case .amount:
                let currency = atom.currency ?? "RUB"
                do { return .money(try amount(trimmed, currency: currency), currency: currency) } catch {
                    throw refuse(HostMessage.describe(error, session.language))
                }
            case .number:
                let parsed: ExprValue
                do { parsed = try InputParser.parse(trimmed, as: .number) } catch { throw refuse(HostMessage.describe(error, session.language)) }
                guard case .decimal(let number) = parsed else { throw refuse("'\(trimmed)' is not a number") }
                return .number(number)
            case .date:
                guard let date = date(trimmed) else {
                    throw refuse(HostMessage.notADate(trimmed).text(session.language))
                }
                return date
            }
        case .enumeration:
            if trimmed.isEmpty { return .empty }
            let options = atom.options
            if reader == .person, let number = Int(trimmed), trimmed.allSatisfy(\.isASCII) {
                guard number >= 1, number <= options.count else {
                    throw refuse(HostMessage.notOnList(number, count: options.count).text(session.language))
                }
                return .option(value: options[number - 1].value)
            }
            if reader == .script, let option = options.first(where: { $0.value == trimmed }) {
                return .option(value: option.value)
            }
            let wanted = trimmed.lowercased()
            if let exact = options.first(where: { $0.title.lowercased() == wanted }) { return .option(value: exact.value) }
            let matches = options.filter { $0.title.lowercased().hasPrefix(wanted) }
            if matches.count == 1 { return .option(value: matches[0].value) }
            // A title as the plugin writes it in another language (`rbs.texts/1`): a template, a script or a person
            // used to the other language still chooses the same option.
            if matches.isEmpty, let value = session.optionValue(titledInAnyLanguage: wanted, atom: atom.id) {
                return .option(value: value)
            }
            if matches.count > 1 {
                throw refuse(HostMessage.startsMoreThanOne(trimmed, titles: matches.map(\.title)).text(session.language))
            }
            if reader == .person {
                throw refuse(HostMessage.notAnOptionByNumber(trimmed, titles: options.map(\.title)).text(session.language))
            }
            throw refuse("'\(trimmed)' is not one of the options — type \(accepted(for: atom, reader: reader))")
        case .toggle:
            switch trimmed.lowercased() {
            case "yes", "y", "on", "true", "1", "да", "д": return .toggle(true)
            case "no", "n", "off", "false", "0", "нет", "н", "": return .toggle(false)
            default: throw refuse(HostMessage.answerYesOrNo(trimmed).text(session.language))
            }
        case .account:
            if trimmed.isEmpty { return .empty }
            let offered = session.offeredAccounts(for: atom.id)
            if let match = offered.first(where: { $0.account.number == trimmed }) { return .account(number: match.account.number) }
            let list = session.accountList
            // One of the person's accounts this field does not offer, by its list number or its own: said as such,
            // and why when it is blocked — the same words either way.
            func notHere(_ index: Int) -> FormSessionError {
                refuse(HostMessage.accountNotHere(index + 1, account: list[index].number, blocked: list[index].blocked,
                                                  offered: offered.map { "\($0.number)) \($0.account.number)" })
                    .text(session.language))
            }
            if let index = list.firstIndex(where: { $0.number == trimmed }) { throw notHere(index) }
            if trimmed.count < 5, let number = Int(trimmed) {
                if let match = offered.first(where: { $0.number == number }) { return .account(number: match.account.number) }
                if number >= 1, number <= list.count { throw notHere(number - 1) }
            }
            throw refuse(offered.isEmpty ? session.noAccountMessage
                : HostMessage.notAnOfferedAccount(trimmed, offered: offered.map { "\($0.number)) \($0.account.number)" })
                    .text(session.language))
        case .text, .button:
            throw .notEditable(id: atom.id, kind: atom.kind)
        }
    }

    /// Amount text → a decimal in `currency`. The one place a typed amount is read: the money module's parser.
    public static func amount(_ text: String, currency: String) throws(InputError) -> Decimal {
        guard case .decimal(let amount) = try InputParser.parse(text, as: .amount(currency: currency)) else {
            throw .empty
        }
        return amount
    }

    /// `ДД.ММ.ГГГГ` or `YYYY-MM-DD` → a date value (whether the day exists is checked by the form, in its words).
    static func date(_ text: String) -> AtomValue? {
        CalendarDay.fields(of: text, .either).map { .date(year: $0.year, month: $0.month, day: $0.day) }
    }
}

extension FormSession {
    /// Turns `text` into a typed value as `reader` means it (``FormInput``) and commits it: the front ends' one call.
    @discardableResult
    public func commit(_ id: String, text: String, reader: FormInput.Reader = .script) throws(FormSessionError) -> FormAnnouncements {
        guard let atom = declaration(of: id) else { throw .unknownAtom(id: id, operation: operation.id) }
        return try commit(id, value: try FormInput.value(text, for: atom, in: self, reader: reader))
    }
}
