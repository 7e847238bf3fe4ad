/// What an expression may refer to: fields (each with a slot index into the values array and a type) and
/// plugin functions. The built-in functions (`len`, `trim`, `upper`, `lower`, `isInn`, `isKpp`, `isBic`,
/// `accountKeyOk`, `isIban`, `luhn`) are always available; a plugin function with the same name takes precedence.
public struct ExpressionScope: Sendable {
    struct Field: Sendable {
        var slot: Int
        var type: ValueType
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

    /// Declares a plugin function, callable by its `name`.
    public mutating func declareFunction(_ function: ForeignFunction) {
        functions[function.name] = function
    }

    /// The slot of field `name`, if declared.
    public func slot(of name: String) -> Int? {
        fields[name]?.slot
    }
}
