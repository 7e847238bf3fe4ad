/// One atom of a form as the dependency engine sees it.
public struct FormSlot: Sendable {
    /// The atom's id, used in error messages.
    public var name: String
    public var type: ValueType
    /// Shown while true; compiled against a scope whose slots are the form's slot indices.
    /// Without it, visibility is set manually (``FormModel/setManualVisibility(_:_:instance:)``).
    public var showIf: CompiledExpression?
    /// Must be true for submit while the slot is visible; hidden slots are always valid.
    public var validIf: CompiledExpression?

    public init(name: String, type: ValueType, showIf: CompiledExpression? = nil,
                validIf: CompiledExpression? = nil) {
        self.name = name
        self.type = type
        self.showIf = showIf
        self.validIf = validIf
    }
}
