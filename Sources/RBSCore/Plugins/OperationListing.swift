/// An operation as listed: known from its plugin's manifest, whether or not the plugin is loaded yet.
public struct OperationListing: Sendable {
    public let descriptor: OperationDescriptor
    public let pluginID: String
    public let pluginVersion: String
    public let path: String
    /// Why the operation cannot be run now (its plugin is quarantined), or nil.
    public var unavailable: String?

    public var id: String { descriptor.id }
}
