import CRBSPlugin
import Foundation
import RBSExpressions

/// Loads one plugin file: checks that it is a whole ELF shared object for this machine, copies it to a unique file
/// in the data directory, opens the copy, finds the entry, checks the ABI version and validates every descriptor
/// before the caller registers anything.
public struct PluginLoader: Sendable {
    public static let entrySymbol = RBS_ENTRY_SYMBOL

    /// Checks the very bytes that will be opened (the unique copy) before `dlopen` sees them: the trust policy.
    public typealias Verifier = @Sendable (_ bytes: [UInt8], _ path: String) throws(PluginProblem) -> Void
    /// Checks the validated manifest (e.g. against the signed id and version) before anything is registered;
    /// `sha256` is the hash of the bytes that were verified and opened.
    public typealias ManifestCheck = @Sendable (_ manifest: PluginManifest, _ path: String, _ sha256: String)
        throws(PluginProblem) -> Void

    /// Where the unique copies that are opened live.
    public let imagesDirectory: URL
    let locator: ServiceLocator
    /// The checks every load must pass (the host's trust policy); nil opens every well-formed plugin (library use
    /// and tests).
    public let policy: PluginLoadPolicy?
    /// Whether plugins run in workers (nil: always in this process).
    public var isolation: IsolationSettings?

    public init(imagesDirectory: URL, locator: ServiceLocator, policy: PluginLoadPolicy? = nil,
                isolation: IsolationSettings? = nil) {
        self.imagesDirectory = imagesDirectory
        self.locator = locator
        self.policy = policy
        self.isolation = isolation
    }

    /// Loads the plugin at `path` (not yet started: see `PluginRegistry`). `pluginID` (when the registry already
    /// knows it from a listing) picks the plugin's pinned isolation mode.
    public func load(path: String, pluginID: String? = nil) throws(PluginLoadError) -> PluginImage {
        func fail(_ problem: PluginProblem) -> PluginLoadError { PluginLoadError(path: path, problem: problem) }
        let bytes: [UInt8]
        do {
            bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw fail(.unreadable((error as NSError).localizedDescription))
        }
        let elf: ELFImage
        do { elf = try ELFImage(bytes: bytes) } catch { throw fail(.image(error)) }
        let hash = ContentHash.sha256(bytes)
        let copy: URL
        do { copy = try uniqueCopy(of: bytes, path: path, hash: hash) } catch {
            throw fail(.unreadable("cannot copy it to \(imagesDirectory.path): \(error.localizedDescription)"))
        }
        if let verifier = policy?.verify {
            // Verify the copy that will be opened, not the file in the plugin folder, so nothing can be swapped in
            // between the check and dlopen.
            guard let copied = try? [UInt8](Data(contentsOf: copy)) else {
                throw fail(.unreadable("cannot read back its copy \(copy.path)"))
            }
            do { try verifier(copied, path) } catch { throw fail(error) }
        }
        if let isolation, isolation.mode(for: pluginID) == .plugin,
           let image = try loadInWorker(path: path, pluginID: pluginID, copy: copy, hash: hash, isSwift: elf.isSwift,
                                        settings: isolation, policy: policy) {
            return image
        }
        if let beforeOpening = policy?.beforeOpening {
            do { try beforeOpening(copy.path) } catch { throw fail(error) }
        }
        var options: DLHandle.Options = [.now, .local]
        if elf.isSwift { options.insert(.noDelete) }
        let handle: DLHandle
        do { handle = try DLHandle(path: copy.path, options: options) } catch {
            throw fail(.dlopen(error.description.replacingOccurrences(of: copy.path, with: path)))
        }
        do throws(PluginProblem) {
            guard let symbol = handle.symbol(Self.entrySymbol) else { throw PluginProblem.noEntry }
            let function = unsafeBitCast(symbol, to: rbs_plugin_entry_fn.self)
            guard let entry = function() else { throw PluginProblem.entryReturnedNull }
            let manifest = try DescriptorReader.read(entry)
            try policy?.checkManifest?(manifest, path, hash)
            var addresses: [String: [String: UnsafeMutableRawPointer]] = [:]
            for operation in manifest.operations {
                for function in operation.functions {
                    guard let address = handle.symbol(function.symbol) else {
                        throw PluginProblem.missingSymbol(location: "operation '\(operation.id)' function '\(function.name)'",
                                                          symbol: function.symbol)
                    }
                    addresses[operation.id, default: [:]][function.name] = address
                }
            }
            var compiled: [String: CompiledOperation] = [:]
            for operation in manifest.operations {
                compiled[operation.id] = try CompiledOperation(operation, addresses: addresses[operation.id] ?? [:])
            }
            return PluginImage(path: path, loadedPath: copy.path, manifest: manifest, isSwift: elf.isSwift,
                               contentHash: hash, handle: handle, entry: entry,
                               hostTable: PluginHostTable(pluginID: manifest.id, locator: locator),
                               compiled: compiled)
        } catch {
            handle.close()
            throw fail(error)
        }
    }

    /// Starts a worker on the verified copy and builds the image from what it answers: nothing of the plugin is
    /// opened in this process, and every function its expressions call is forwarded to the worker.
    /// - Returns: nil when the plugin's id turns out to be pinned to `none` (the caller loads it in-process).
    private func loadInWorker(path: String, pluginID: String?, copy: URL, hash: String, isSwift: Bool,
                              settings: IsolationSettings, policy: PluginLoadPolicy?) throws(PluginLoadError) -> PluginImage? {
        func fail(_ problem: PluginProblem) -> PluginLoadError { PluginLoadError(path: path, problem: problem) }
        func start(_ id: String?) throws(PluginLoadError) -> WorkerRuntime.Started {
            switch WorkerRuntime.start(image: copy.path, pluginID: id, settings: settings, locator: locator) {
            case .failure(let problem): throw fail(problem)
            case .success(let value): return value
            }
        }
        var started = try start(pluginID)
        if settings.mode(for: started.manifest.id) == .none {
            started.runtime.retire()
            return nil
        }
        if pluginID != started.manifest.id, settings.limits(for: started.manifest.id) != settings.limits(for: pluginID) {
            // Limits set for this id in isolation.conf, which the first worker could not know it by: every worker
            // of the plugin runs under them, the first too.
            started.runtime.retire()
            started = try start(started.manifest.id)
        }
        let runtime = started.runtime
        if let warning = started.confinementWarning { WorkerConfinementNotice.once(warning, locator: locator) }
        do {
            try policy?.checkManifest?(started.manifest, path, hash)
            var compiled: [String: CompiledOperation] = [:]
            for operation in started.manifest.operations {
                let id = operation.id
                compiled[id] = try CompiledOperation(operation) { _ in
                    { name, signature, bound throws(FFIError) in
                        // A run's calls go through its RunFunctions (answers kept, the module's worker); a call
                        // without a run (an account filter) goes to the least busy worker.
                        try ForeignFunction(name: name, signature: signature, isInstanceBound: bound) { [weak runtime] token, arguments in
                            if let run = RunFunctions.resolve(token) { return run.call(name, arguments) }
                            return runtime?.callFunction(operation: id, name: name, module: nil, arguments: arguments) ?? .null
                        }
                    }
                }
            }
            let hostTable = PluginHostTable(pluginID: started.manifest.id, locator: locator)
            let image = PluginImage(path: path, loadedPath: copy.path, manifest: started.manifest, isSwift: isSwift,
                                    contentHash: hash, handle: nil, entry: nil, hostTable: hostTable, compiled: compiled,
                                    runtime: runtime)
            image.workerServices = started.services
            return image
        } catch {
            runtime.retire()
            throw fail(error)
        }
    }

    /// The file's bytes at a path named after their hash: a rebuilt plugin gets a new path (and a new image), the
    /// same bytes reuse the same copy. Written to a temporary name and renamed, so a copy is never half-written.
    private func uniqueCopy(of bytes: [UInt8], path: String, hash: String) throws -> URL {
        try FileManager.default.createDirectory(at: imagesDirectory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let stem = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        let target = imagesDirectory.appendingPathComponent("\(stem)-\(hash.prefix(16)).so")
        if let existing = try? Data(contentsOf: target), existing.count == bytes.count,
           ContentHash.sha256(existing) == hash {
            return target
        }
        let temporary = imagesDirectory.appendingPathComponent(".\(stem)-\(UUID().uuidString).tmp")
        try Data(bytes).write(to: temporary)
        try FileManager.default.setAttributes([.posixPermissions: 0o500], ofItemAtPath: temporary.path)
        if FileManager.default.fileExists(atPath: target.path) { try FileManager.default.removeItem(at: target) }
        try FileManager.default.moveItem(at: temporary, to: target)
        return target
    }
}
