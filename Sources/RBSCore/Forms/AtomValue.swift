import Foundation
import RBSMoney
import RBSExpressions

/// A typed value for one atom: what a front end hands the form engine (``FormSession/commit(_:value:)``) after it
/// has turned what a person typed into a value (``FormInput``). The engine never parses human text: it checks the
/// value against the atom's declared kind, type, currency and limits, and refuses a mismatch.
public enum AtomValue: Equatable, Sendable, CustomStringConvertible {
    /// No value (an emptied field).
    case empty
    /// Text (a text or digits input).
    case text(String)
    /// A decimal number (a number input).
    case number(Decimal)
    /// An amount in a currency (an amount input): the currency must be the atom's.
    case money(Decimal, currency: String)
    /// A calendar date (a date input).
    case date(year: Int, month: Int, day: Int)
    /// An enum option, named by its value (never by its list number or title: those are the front end's business).
    case option(value: String)
    /// One of the accounts an account picker offers, by its number.
    case account(number: String)
    /// A toggle's state.
    case toggle(Bool)

    /// The date in ISO 8601 form (`2025-03-31`).
    static func iso(year: Int, month: Int, day: Int) -> String {
        CalendarDay.iso(year: year, month: month, day: day)
    }

    /// What kind of value this is, for messages.
    public var kindName: String {
        switch self {
        case .empty: "an empty value"
        case .text: "text"
        case .number: "a number"
        case .money(_, let currency): "an amount in \(currency)"
        case .date: "a date"
        case .option: "an enum option"
        case .account: "an account"
        case .toggle: "a yes/no value"
        }
    }

    public var description: String {
        switch self {
        case .empty: "(empty)"
        case .text(let text): text
        case .number(let number): number.description
        case .money(let amount, let currency): "\(amount.description) \(currency)"
        case .date(let year, let month, let day): Self.iso(year: year, month: month, day: day)
        case .option(let value): value
        case .account(let number): number
        case .toggle(let flag): flag ? "yes" : "no"
        }
    }
}

/// Limits on what a text atom may hold.
public enum TextLimits {
    /// The most characters a text input holds when its plugin sets no `max_length` (a plugin's `max_length`
    /// overrides it for its atom, up or down). Documented in README "Forms".
    public static let defaultMaximumCharacters = 1000
    /// The most bytes a caption may have, at load (the descriptor) and at run time (`set_caption`): one limit.
    public static var maximumCaptionBytes: Int { DescriptorReader.maxText }
}
