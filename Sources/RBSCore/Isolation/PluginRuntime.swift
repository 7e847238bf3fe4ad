import CRBSPlugin
import RBSExpressions

/// Where a plugin's callbacks run: the one boundary between a module (`FormSession`) and its plugin.
///
/// Two implementations serve it: `InProcessRuntime` calls the plugin's C callbacks in the host's process (fast, for
/// debugging), `WorkerRuntime` forwards every call to a worker process (`rbs-host worker`) that has `dlopen`ed the
/// same image. The plugin's calls back into the host (`set_caption`, `get_value`, ...) reach the module through
/// `ModuleControl` either way, so a form session cannot tell which runtime serves it.
protocol PluginRuntime: AnyObject {
    /// Creates the plugin's instance for one run of `operation`. `control` receives the plugin's calls back into its
    /// module for as long as the module lives.
    /// - Parameter placement: where `place` put the run, if it was placed first.
    /// - Throws: `PluginFault` when create() returned NULL or the worker failed.
    func open(operation: String, control: any ModuleControl, placement: PluginPlacement?) throws(PluginFault) -> any PluginModule
    /// Chooses (and holds) where a run of `operation` will be served, before it is opened.
    func place(_ operation: RegisteredOperation) -> PluginPlacement
}

/// One run's instance inside its plugin, however the plugin is served.
protocol PluginModule: AnyObject {
    /// Calls plugin function `function` of this run's operation (with this run's instance when it takes one). A
    /// fault yields null; the module ends with it at its next call (see `WorkerModule.pendingFault`).
    func call(function: String, arguments: [ExprValue]) -> ExprValue
    /// value_changed(atom, value, commit = true); nil when the plugin has no value_changed.
    func valueChanged(atom: AtomDescriptor, value: ExprValue) throws(PluginFault) -> rbs_status_t?
    /// A commit: value_changed(atom, value, commit = true) for each of `changes` in order (the values a run held,
    /// then the one committed; see `FormSession.commit`), then each of `calls` — through a worker, one message there
    /// and one back (issue #33).
    func commit(_ changes: [ValueChange], calls: [RunFunctions.Call]) throws(PluginFault) -> CommitReply
    /// value_changed with a TEXT value of raw bytes that need not be UTF-8 (plugin check's boundary probe).
    func valueChangedRaw(atom: String, bytes: [UInt8]) throws(PluginFault) -> rbs_status_t?
    /// action(atom); nil when the plugin has no action.
    func action(atom: String) throws(PluginFault) -> rbs_status_t?
    /// build_document; nil when the plugin has none.
    func buildDocument() throws(PluginFault) -> BuiltDocument?
    /// destroy(): frees the instance. Called once; never throws (a dead worker has nothing left to free).
    func destroy()
}

/// One value handed to the plugin's value_changed (commit = true).
struct ValueChange {
    var atom: AtomDescriptor
    var value: ExprValue
}

/// What a commit brought back: value_changed's status for each change sent (nil: the plugin has no value_changed)
/// and the answer of each function call sent with it, in order.
struct CommitReply {
    var statuses: [rbs_status_t?]
    var results: [ExprValue]
}

/// What build_document produced: its status, the fields put, and the first malformed put, if any.
struct BuiltDocument {
    var status: rbs_status_t
    var fields: [(key: String, value: String)]
    var problem: String?
}

/// A plugin call that did not come back normally: create() refused, or the worker serving it crashed, exited, hung,
/// or broke the protocol. The module it served is over; nothing is signed or posted for it.
public struct PluginFault: Error, Equatable, Sendable, CustomStringConvertible {
    /// The plugin's id.
    public var plugin: String
    /// The operation whose module made the call.
    public var operation: String
    /// The call, e.g. "value_changed(amount)".
    public var call: String
    /// What happened: "killed by SIGSEGV", "exited with status 0", "no answer in 5 s", "returned NULL".
    public var cause: String
    /// Whether the module is over (a worker fault) rather than just refused (create returned NULL).
    public var endsModule: Bool

    public init(plugin: String, operation: String, call: String, cause: String, endsModule: Bool = true) {
        self.plugin = plugin
        self.operation = operation
        self.call = call
        self.cause = cause
        self.endsModule = endsModule
    }

    public var description: String {
        if !endsModule {
            return "plugin \(plugin), operation \(operation): \(call) \(cause) — see the log"
        }
        return "plugin \(plugin), operation \(operation): \(call) — \(cause); the run was ended, nothing was signed or posted"
    }
}
