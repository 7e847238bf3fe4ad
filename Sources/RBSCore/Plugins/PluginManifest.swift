/// What a plugin offers, read from its C descriptors and validated: plain data, so the registry can list it,
/// compare it and cache it without keeping the image open.
public struct PluginManifest: Codable, Hashable, Sendable {
    public var id: String
    public var name: String
    public var version: String
    public var vendor: String
    public var description: String?
    /// The ABI version the plugin was compiled against.
    public var abi: ABIVersion
    public var operations: [OperationDescriptor]
}

