import Foundation

/// A filled form kept under a name (`template save NAME`, `run @NAME`): the operation and the values of its atoms as
/// text, in form order. Secret atoms and empty values are never kept.
public struct FormTemplate: Codable, Sendable, Hashable {
    /// One atom's value.
    public struct Value: Codable, Sendable, Hashable {
        public var id: String
        public var value: String

        public init(id: String, value: String) {
            self.id = id
            self.value = value
        }
    }

    public var operation: String
    /// The plugin version the values were filled with.
    public var pluginVersion: String
    public var values: [Value]

    public init(operation: String, pluginVersion: String, values: [Value]) {
        self.operation = operation
        self.pluginVersion = pluginVersion
        self.values = values
    }

    /// The form's values now: every atom that holds a value, is not secret and is not empty (hidden ones too: a
    /// field shown again later keeps what it held).
    public init(session: FormSession) {
        let operation = session.operation
        self.init(operation: operation.id, pluginVersion: operation.plugin.version, values: session.atoms.compactMap { state in
            guard state.descriptor.holdsValue, !state.descriptor.flags.contains(.secret), !state.value.isEmpty else { return nil }
            return Value(id: state.id, value: state.value)
        })
    }

    /// The values `descriptor` still has an atom for (the prefill), and the ones it no longer has (dropped).
    public func split(for descriptor: OperationDescriptor) -> (kept: [Value], dropped: [Value]) {
        let atoms = Set(descriptor.atoms.filter(\.holdsValue).map(\.id))
        return (values.filter { atoms.contains($0.id) }, values.filter { !atoms.contains($0.id) })
    }
}
