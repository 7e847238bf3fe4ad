/// What one commit changed, each list ascending by slot index.
public struct FormChanges: Sendable, Equatable {
    /// Slots that became visible.
    public var appeared: [Int] = []
    /// Slots that became hidden.
    public var disappeared: [Int] = []
    /// Slots whose valid-if became true (or that became hidden while invalid).
    public var becameValid: [Int] = []
    /// Slots whose valid-if became false.
    public var becameInvalid: [Int] = []

    public init() {}

    /// Whether nothing visible changed.
    public var isEmpty: Bool {
        appeared.isEmpty && disappeared.isEmpty && becameValid.isEmpty && becameInvalid.isEmpty
    }

    mutating func sort() {
        appeared.sort()
        disappeared.sort()
        becameValid.sort()
        becameInvalid.sort()
    }
}
