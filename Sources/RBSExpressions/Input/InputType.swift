/// The kinds of input the plugin ABI's atoms accept.
public enum InputType: Sendable, Hashable {
    /// Any text without control characters.
    case text
    /// ASCII digits only, kept as a string (leading zeros matter: accounts, BICs).
    case digits
    /// A decimal number, possibly negative, with the grouping rules of ``Money``.
    case number
    /// A positive amount in an ISO 4217 currency.
    case amount(currency: String)
    /// A calendar date written `YYYY-MM-DD`.
    case date
}
