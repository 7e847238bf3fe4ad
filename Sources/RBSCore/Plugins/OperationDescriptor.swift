/// An operation (a banking product) as its plugin declares it.
public struct OperationDescriptor: Codable, Hashable, Sendable {
    public var id: String
    public var title: String
    public var category: String
    public var atoms: [AtomDescriptor]
    public var functions: [FunctionDescriptor]
    /// Whether the plugin gave a `value_changed` callback.
    public var observesValues: Bool
    /// Whether the plugin gave an `action` callback.
    public var hasAction: Bool
    /// What the document's fields mean to a person (`rbs.document-labels/1`), by key in the plugin's order; empty
    /// when the plugin does not offer the extension.
    public var documentLabels: [DocumentLabel] = []
}
