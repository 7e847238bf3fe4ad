/// An operation of a loaded plugin, ready to run.
public struct RegisteredOperation: Sendable {
    public let plugin: PluginImage
    public let compiled: CompiledOperation

    public var descriptor: OperationDescriptor { compiled.descriptor }
    public var id: String { descriptor.id }
}
