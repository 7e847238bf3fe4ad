import CRBSPlugin
import RBSExpressions

/// Serves a plugin's modules in the host's own process: the C callbacks of the `dlopen`ed image are called directly.
/// Fast and easy to debug; a crash in the plugin is a crash of the host (use `WorkerRuntime` to contain it).
final class InProcessRuntime: PluginRuntime {
    private unowned let image: PluginImage

    init(image: PluginImage) { self.image = image }

    /// One lane for the plugin, whatever its version: its code runs in this process, called from one thread at a time.
    func place(_ operation: RegisteredOperation) -> PluginPlacement {
        PluginPlacement(lane: image.id, operation: operation)
    }

    func open(operation id: String, control: any ModuleControl, placement: PluginPlacement?) throws(PluginFault) -> any PluginModule {
        let handle = ModuleHandle(control: control)
        guard let pointer = image.operationPointer(id), let create = pointer.pointee.create,
              let created = create(pointer, UnsafePointer(image.hostTable.pointer), handle.opaque) else {
            throw PluginFault(plugin: image.id, operation: id, call: "create()", cause: "returned NULL",
                              endsModule: false)
        }
        return InProcessModule(callbacks: pointer.pointee, instance: created, handle: handle,
                               functions: image.compiled[id]?.direct ?? [:])
    }
}

/// One instance created in the host's process.
final class InProcessModule: PluginModule {
    private let callbacks: rbs_operation_descriptor_t
    private var instance: UnsafeMutableRawPointer?
    /// Keeps the `rbs_module_t *` the plugin holds alive until destroy().
    private var handle: ModuleHandle?
    /// The operation's functions, called through libffi in this process.
    private let functions: [String: ForeignFunction]

    init(callbacks: rbs_operation_descriptor_t, instance: UnsafeMutableRawPointer, handle: ModuleHandle,
         functions: [String: ForeignFunction]) {
        self.callbacks = callbacks
        self.instance = instance
        self.handle = handle
        self.functions = functions
    }

    func call(function: String, arguments: [ExprValue]) -> ExprValue {
        functions[function]?.call(instance: instance, arguments: arguments) ?? .null
    }

    /// The same steps a worker takes for a commit, in the same order, called directly.
    func commit(_ changes: [ValueChange], calls: [RunFunctions.Call]) -> CommitReply {
        let statuses = changes.map { valueChanged(atom: $0.atom, value: $0.value) }
        return CommitReply(statuses: statuses, results: calls.map { call(function: $0.name, arguments: $0.arguments) })
    }

    func valueChanged(atom: AtomDescriptor, value: ExprValue) -> rbs_status_t? {
        guard let changed = callbacks.value_changed, let instance else { return nil }
        return CValue.with(value, for: atom) { changed(instance, atom.id, $0, true) }
    }

    func valueChangedRaw(atom: String, bytes: [UInt8]) -> rbs_status_t? {
        guard let changed = callbacks.value_changed, let instance else { return nil }
        let terminated = bytes + [0]
        return terminated.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                var raw = rbs_value_t()
                raw.type = UInt32(RBS_VALUE_TEXT)
                raw.as.text.data = chars.baseAddress
                raw.as.text.length = UInt64(bytes.count)
                return changed(instance, atom, &raw, true)
            }
        }
    }

    func action(atom: String) -> rbs_status_t? {
        guard let action = callbacks.action, let instance else { return nil }
        return action(instance, atom)
    }

    func buildDocument() -> BuiltDocument? {
        guard let build = callbacks.build_document, let instance else { return nil }
        let collector = DocumentCollector()
        let status = collector.withBuilder { build(instance, $0) }
        return BuiltDocument(status: status, fields: collector.fields, problem: collector.problem)
    }

    func destroy() {
        if let instance, let destroy = callbacks.destroy { destroy(instance) }
        instance = nil
        handle = nil
    }
}
