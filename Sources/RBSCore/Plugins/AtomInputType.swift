/// What an input atom accepts (`RBS_INPUT_*`).
public enum AtomInputType: UInt32, Codable, Hashable, Sendable, CustomStringConvertible {
    case text = 0, digits, number, amount, date

    public var description: String {
        switch self {
        case .text: "text"
        case .digits: "digits"
        case .number: "number"
        case .amount: "amount"
        case .date: "date"
        }
    }
}
