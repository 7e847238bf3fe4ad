import Foundation

/// A filled form: the operation and the values of its atoms as text, in form order. Kept under a name (`template
/// save NAME`, `run @NAME`) and recorded with every journal entry signed from a form (`repeat N`). Secret atoms,
/// card numbers and empty values are never kept (see `FormTemplate.init(session:)` in RBSCore).
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
}
