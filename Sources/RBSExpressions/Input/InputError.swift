import RBSMoney

/// Why an entered value was refused. Every message says what to change.
public enum InputError: Error, Sendable, Equatable, CustomStringConvertible {
    case empty
    /// `position` is 1-based, in characters; `expected` names what the field accepts ("digits only").
    case invalidCharacter(Character, position: Int, expected: String)
    /// An amount or number refused by ``AmountText`` (ambiguous, too many minor digits, ...).
    case amount(AmountInputError)
    /// The atom's currency is not an ISO 4217 currency with minor units.
    case currency(CurrencyError)
    case tooShort(length: Int, minimum: Int)
    case tooLong(length: Int, maximum: Int)
    case invalidDate(text: String, reason: String)
    /// Raw bytes that are not UTF-8; `offset` is the 0-based byte offset of the first bad byte.
    case invalidUTF8(offset: Int)
    /// A control character; `position` is 1-based, in characters.
    case controlCharacter(scalar: UInt32, position: Int)

    public var description: String {
        switch self {
        case .empty:
            "enter a value"
        case .invalidCharacter(let c, let position, let expected):
            "\(expected): \(UnicodeText.quoted(c)) at position \(position) is not allowed"
        case .amount(let error):
            error.description
        case .currency(let error):
            error.description
        case .tooShort(let length, let minimum):
            "too short: \(length) character\(length == 1 ? "" : "s"), at least \(minimum) needed"
        case .tooLong(let length, let maximum):
            "too long: \(length) characters, at most \(maximum) allowed"
        case .invalidDate(let text, let reason):
            "\(text): \(reason); enter the date as YYYY-MM-DD"
        case .invalidUTF8(let offset):
            "the input is not valid UTF-8 (bad byte at offset \(offset)); re-enter the text"
        case .controlCharacter(let scalar, let position):
            "control character \(UnicodeText.codePoint(scalar)) at position \(position) is not allowed"
        }
    }
}
