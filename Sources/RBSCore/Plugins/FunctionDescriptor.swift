/// A C function a plugin exports for expressions.
public struct FunctionDescriptor: Codable, Hashable, Sendable {
    public var name: String
    public var symbol: String
    public var signature: String
    /// The first C parameter is the instance pointer (`RBS_FUNCTION_INSTANCE`).
    public var takesInstance: Bool
}
