/// Why a form's dependency graph could not be built.
public enum FormError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Show-if conditions that depend on each other in a circle, in dependency order
    /// (each slot's show-if reads the next one's value; the last reads the first).
    case showIfCycle(slots: [String])
    /// A condition of `slot` reads slot index `index`, which the form does not have.
    case readsMissingSlot(slot: String, index: Int)

    public var description: String {
        switch self {
        case .showIfCycle(let slots):
            "show-if conditions form a cycle: \((slots + [slots.first ?? ""]).joined(separator: " → ")); "
                + "an atom's visibility cannot depend on itself — break the cycle"
        case .readsMissingSlot(let slot, let index):
            "a condition of '\(slot)' reads slot \(index), which this form does not have; "
                + "compile conditions against the form's own scope"
        }
    }
}
