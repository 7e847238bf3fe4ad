import Foundation

/// What an expression may refer to: fields (each with a slot index into the values array and a type) and
/// plugin functions. The built-in functions (`len`, `trim`, `upper`, `lower`, `isInn`, `isKpp`, `isBic`,
/// `accountKeyOk`, `isIban`, `luhn`, `isCard`, `isUin`) are always available; a plugin function with the same name takes precedence.
public struct ExpressionScope: Sendable {
    struct Field: Sendable {
        var slot: Int
        var type: ValueType
        var domain: FieldDomain?
    }

    private(set) var fields: [String: Field] = [:]
    private(set) var functions: [String: ForeignFunction] = [:]

    /// An empty scope: only the built-in functions.
    public init() {}

    /// A scope whose fields take slots 0, 1, 2, ... in the order given.
    public init(fields: [(name: String, type: ValueType)]) {
        for (slot, field) in fields.enumerated() { declareField(field.name, slot: slot, type: field.type) }
    }

    /// Declares field `name` (referenced as `$name` or `name`), read from `values[slot]` at evaluation.
    /// Declare an enum atom whose option values are all integers as `.int`. A negative slot always reads null.
    public mutating func declareField(_ name: String, slot: Int, type: ValueType) {
        fields[name] = Field(slot: slot, type: type)
    }

    /// Declares field `name` whose values are limited to `domain`: comparing it (`==`, `!=`, IN) with a literal
    /// outside the domain is refused at compile time, since such a comparison could never be true.
    public mutating func declareField(_ name: String, slot: Int, type: ValueType, domain: FieldDomain?) {
        fields[name] = Field(slot: slot, type: type, domain: domain)
    }

    /// Declares a plugin function, callable by its `name`.
    public mutating func declareFunction(_ function: ForeignFunction) {
        functions[function.name] = function
    }

    /// The slot of field `name`, if declared.
    public func slot(of name: String) -> Int? {
        fields[name]?.slot
    }
}

/// The values a field can ever hold, beyond its type.
public enum FieldDomain: Sendable, Equatable {
    /// One of an enum atom's option values.
    case options([String])
    /// Text of the digits 0-9 only (a digits-only input: INN, account numbers).
    case digits
    /// An ISO 8601 calendar date "YYYY-MM-DD" (a date input).
    case date

    /// Whether a field of this domain can ever equal `literal`.
    func admits(_ literal: ExprValue) -> Bool {
        switch (self, literal) {
        case (_, .null): true
        case (.options(let values), .string(let text)): values.contains(text)
        case (.options(let values), .int(let number)): values.contains { Int64($0) == number }
        case (.options(let values), .decimal(let number)):
            values.contains { Decimal(string: $0, locale: Locale(identifier: "en_US_POSIX")) == number }
        case (.options, _): false
        case (.digits, .string(let text)): Self.isDigits(text)
        case (.digits, _): true
        case (.date, .string(let text)): text.isEmpty || Self.isISODate(text)
        case (.date, _): true
        }
    }

    /// Whether a field of this domain can ever begin with, end with or contain `part` (`operator` says which).
    func admits(part: String) -> Bool {
        switch self {
        case .options: true // checked against each option by the caller
        case .digits: Self.isDigits(part)
        case .date: part.unicodeScalars.allSatisfy { ("0"..."9").contains($0) || $0 == "-" }
        }
    }

    private static func isDigits(_ text: String) -> Bool { text.unicodeScalars.allSatisfy { ("0"..."9").contains($0) } }

    private static func isISODate(_ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars)
        guard scalars.count == 10 else { return false }
        return scalars.enumerated().allSatisfy { index, scalar in
            index == 4 || index == 7 ? scalar == "-" : ("0"..."9").contains(scalar)
        }
    }

    /// What the field can hold, for a message.
    var explanation: String {
        switch self {
        case .options(let values): "its options are " + values.map { "'\($0)'" }.joined(separator: ", ")
        case .digits: "it holds digits only"
        case .date: "it holds a date written YYYY-MM-DD"
        }
    }
}
