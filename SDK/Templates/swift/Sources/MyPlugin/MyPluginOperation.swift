import RBSPluginKit

/// example.my-plugin: one line per atom; the order of `atoms` is the order of the form.
final class MyPluginOperation: Operation, OperationDefinition {
    static let id = "example.my-plugin"
    static let title = "My plugin"
    static let category = "Examples"

    let note = TextInputAtom(caption: "Note", length: 1...140)
    let send = ButtonAtom(caption: "Send")

    override var atoms: [Atom] { [note, send] }

    /// The document: no "amount", so the core acknowledges it without moving money (the contract: rbs/operation.h).
    override func document() throws(DocumentRefusal) -> [(key: String, value: String)] {
        [("purpose", note.stringValue)]
    }
}

@_cdecl("rbs_plugin_entry")
public func rbsPluginEntry() -> UnsafeRawPointer? {
    Plugin.entry(id: "com.example.my-plugin", name: "My plugin", version: "0.1.0", vendor: "Example",
                 operations: [MyPluginOperation.self])
}
