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
    /// The plugin's translations of this operation's texts (`rbs.texts/1`), by ISO 639-1 language code; empty when
    /// the plugin does not offer the extension (its texts are then in one language). See ``localized(_:)``.
    public var texts: [String: OperationTexts] = [:]
    /// The atoms whose `value_changed` only records the value (`rbs.recorded-atoms/1`, ABI 1.5), in the plugin's
    /// order; empty when the plugin does not say. See ``CompiledOperation/recordedSlots``.
    public var recordedAtoms: [String] = []
}
