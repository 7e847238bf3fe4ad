import CRBSPlugin
import Foundation

/// A plugin loaded into the host: its image, its validated manifest and its host table.
///
/// A Swift image is never closed (see `DLHandle`); a C image is closed when the plugin is stopped and no module
/// uses it any more.
public final class PluginImage: @unchecked Sendable {
    /// The plugin file as found in the plugin folder.
    public let path: String
    /// The unique copy that was opened (so a rebuilt file never replaces bytes a running module executes).
    public let loadedPath: String
    public let manifest: PluginManifest
    public let isSwift: Bool
    /// SHA-256 of the file's bytes, hex.
    public let contentHash: String

    /// The image opened in the host; nil when the plugin runs in workers (it is never opened in the host then).
    let handle: DLHandle?
    let entry: UnsafePointer<rbs_plugin_entry_t>?
    let hostTable: PluginHostTable
    /// The C descriptor of each operation, by id.
    private let operationPointers: [String: UnsafePointer<rbs_operation_descriptor_t>]
    /// Each operation's compiled expressions and bound functions, by operation id.
    let compiled: [String: CompiledOperation]
    private(set) var started = false
    /// Where this plugin's modules run (see `PluginRuntime`).
    lazy var runtime: any PluginRuntime = InProcessRuntime(image: self)
    /// The services the plugin registered in its worker's init() (not offered to other plugins from there).
    var workerServices: [String] = []
    /// Modules of this plugin that are open now.
    public internal(set) var liveModules = 0

    init(path: String, loadedPath: String, manifest: PluginManifest, isSwift: Bool, contentHash: String,
         handle: DLHandle?, entry: UnsafePointer<rbs_plugin_entry_t>?, hostTable: PluginHostTable,
         compiled: [String: CompiledOperation], runtime: (any PluginRuntime)? = nil) {
        self.path = path
        self.loadedPath = loadedPath
        self.manifest = manifest
        self.isSwift = isSwift
        self.contentHash = contentHash
        self.handle = handle
        self.entry = entry
        self.hostTable = hostTable
        self.compiled = compiled
        var pointers: [String: UnsafePointer<rbs_operation_descriptor_t>] = [:]
        if let descriptor = entry?.pointee.descriptor, let operations = descriptor.pointee.operations {
            for index in 0..<Int(descriptor.pointee.operation_count) {
                let pointer = operations + index
                if let id = pointer.pointee.id { pointers[String(cString: id)] = pointer }
            }
        }
        operationPointers = pointers
        if let runtime { self.runtime = runtime }
    }

    public var id: String { manifest.id }
    public var version: String { manifest.version }

    func operationPointer(_ id: String) -> UnsafePointer<rbs_operation_descriptor_t>? { operationPointers[id] }

    /// Calls the plugin's init() once, with its host table.
    func start() throws(PluginProblem) {
        guard !started else { return }
        // A worker's plugin ran its init() in the worker before it answered.
        if let initialize = entry?.pointee.`init`, !initialize(UnsafePointer(hostTable.pointer)) {
            throw .initFailed
        }
        started = true
    }

    /// Calls deinit(), withdraws the services the plugin registered, and closes a C image.
    func stop(locator: ServiceLocator) {
        if started, let deinitialize = entry?.pointee.deinit { deinitialize() }
        started = false
        hostTable.withdrawServices()
        if let worker = runtime as? WorkerRuntime { worker.retire() }
        if !isSwift, liveModules == 0 { handle?.close() }
    }

    func reregisterServices() { hostTable.restoreServices() }

    /// Why this version's runs are refused (its workers failed again and again), or nil.
    public var quarantine: String? { (runtime as? WorkerRuntime)?.quarantine }

    /// The plugin's table for an extension ("rbs.state/1"), or nil.
    func extensionTable(_ id: String) -> UnsafeRawPointer? {
        guard let lookup = entry?.pointee.get_extension else { return nil }
        return id.withCString { lookup($0) }
    }
}
