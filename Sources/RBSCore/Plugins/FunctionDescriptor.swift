/// A C function a plugin exports for expressions.
public struct FunctionDescriptor: Codable, Hashable, Sendable {
    public var name: String
    public var symbol: String
    public var signature: String
    /// The first C parameter is the instance pointer (`RBS_FUNCTION_INSTANCE`).
    public var takesInstance: Bool
    /// The atoms its answer depends on besides its arguments (`rbs.function-reads/1`, ABI 1.3), or nil when the
    /// plugin does not say: then its answer is kept only until the host next calls into the run.
    public var reads: [String]? = nil
}
