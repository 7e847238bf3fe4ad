import Foundation

/// One plugin file found in the plugin folder, loaded or not: what `rbs-host plugins` shows.
public struct PluginRecord: Codable, Hashable, Sendable {
    public enum Status: String, Codable, Sendable { case loaded, failed }
    public var path: String
    public var id: String?
    public var version: String?
    /// The ABI version the plugin was built against ("1.0.0"), when it could be read.
    public var abi: String?
    public var status: Status
    public var error: String?
    /// The hash of the file that failed, so an unchanged broken file is not tried again.
    var contentHash: String?

    init(path: String, id: String? = nil, version: String? = nil, abi: String? = nil, status: Status, error: String?) {
        self.path = path
        self.id = id
        self.version = version
        self.abi = abi
        self.status = status
        self.error = error
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        path = try container.decode(String.self, forKey: .path)
        id = try container.decodeIfPresent(String.self, forKey: .id)
        version = try container.decodeIfPresent(String.self, forKey: .version)
        abi = try container.decodeIfPresent(String.self, forKey: .abi)
        status = try container.decode(Status.self, forKey: .status)
        error = try container.decodeIfPresent(String.self, forKey: .error)
    }

    private enum CodingKeys: String, CodingKey { case path, id, version, abi, status, error }

    /// Every key is always present (null when unknown), so scripts can rely on the shape.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(path, forKey: .path)
        try container.encode(id, forKey: .id)
        try container.encode(version, forKey: .version)
        try container.encode(abi, forKey: .abi)
        try container.encode(status, forKey: .status)
        try container.encode(error, forKey: .error)
    }
}

/// An operation offered by a loaded plugin.
public struct RegisteredOperation: Sendable {
    public let plugin: PluginImage
    public let compiled: CompiledOperation

    public var descriptor: OperationDescriptor { compiled.descriptor }
    public var id: String { descriptor.id }
}

/// The plugins the host has loaded and the operations they offer. A plugin that fails is recorded with its reason;
/// the rest load regardless.
public final class PluginRegistry: @unchecked Sendable {
    public let loader: PluginLoader
    public let locator: ServiceLocator
    public internal(set) var records: [PluginRecord] = []
    public private(set) var plugins: [PluginImage] = []
    private var operationsByID: [String: RegisteredOperation] = [:]
    /// Versions replaced or removed while modules still ran on them.
    var retired: [PluginImage] = []

    public init(loader: PluginLoader, locator: ServiceLocator) {
        self.loader = loader
        self.locator = locator
    }

    /// The `*.so` files in `directory`, sorted by name, as paths that start with `directory` as given.
    public static func pluginFiles(in directory: String) throws -> [String] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory)
        let prefix = directory.hasSuffix("/") ? directory : directory + "/"
        return names.filter { $0.hasSuffix(".so") && !$0.hasPrefix(".") }.sorted().map { prefix + $0 }
    }

    /// Loads every plugin in `directory`. A folder that cannot be read is one failed record, not a crash.
    public func loadDirectory(_ directory: String) {
        let files: [String]
        do { files = try Self.pluginFiles(in: directory) } catch {
            records.append(PluginRecord(path: directory, status: .failed,
                                        error: "\(directory): cannot read the plugin folder (\((error as NSError).localizedDescription)) — check --plugins or RBS_PLUGINS"))
            return
        }
        for file in files { load(path: file) }
    }

    /// Loads one file and registers it, or records why not.
    @discardableResult
    public func load(path: String) -> PluginImage? {
        do {
            let image = try loader.load(path: path)
            try register(image)
            records.append(PluginRecord(path: path, id: image.id, version: image.version,
                                        abi: image.manifest.abi.description, status: .loaded, error: nil))
            return image
        } catch {
            records.append(PluginRecord(path: path, id: nil, version: nil, abi: nil, status: .failed,
                                        error: error.description))
            return nil
        }
    }

    /// Checks `image` against what is registered (plugin and operation ids), starts it and registers its operations.
    /// - Parameter old: the version of the same file it replaces: its ids do not clash, its state (extension
    ///   rbs.state/1) is handed over, and it is retired once no module runs on it.
    func register(_ image: PluginImage, replacing old: PluginImage? = nil) throws(PluginLoadError) {
        func fail(_ problem: PluginProblem) -> PluginLoadError {
            if image.handle !== old?.handle { image.stop(locator: locator) }
            return PluginLoadError(path: image.path, problem: problem)
        }
        if let other = plugins.first(where: { $0.id == image.id && $0 !== old }) {
            throw fail(.duplicatePlugin(id: image.id, otherPath: other.path))
        }
        for operation in image.manifest.operations {
            if let other = operationsByID[operation.id], other.plugin !== old {
                throw fail(.duplicateOperation(id: operation.id, otherPath: other.plugin.path))
            }
        }
        let state = old.flatMap { PluginState.save(from: $0) }
        // The old version's services make way for the new one's.
        old?.hostTable.withdrawServices()
        do { try image.start() } catch {
            if let old { old.reregisterServices() }
            throw fail(error)
        }
        if let state { PluginState.load(state, into: image) }
        if let old { withdraw(old) }
        plugins.append(image)
        for operation in image.manifest.operations {
            if let compiled = image.compiled[operation.id] {
                operationsByID[operation.id] = RegisteredOperation(plugin: image, compiled: compiled)
            }
        }
    }

    /// Takes a plugin's operations out of service; its image is stopped once no module runs on it.
    func withdraw(_ image: PluginImage) {
        plugins.removeAll { $0 === image }
        for operation in image.manifest.operations where operationsByID[operation.id]?.plugin === image {
            operationsByID[operation.id] = nil
        }
        retired.append(image)
    }

    /// Every operation, in the order of the plugin files and, within a plugin, as it declares them.
    public var operations: [RegisteredOperation] {
        plugins.flatMap { plugin in plugin.manifest.operations.compactMap { operationsByID[$0.id] } }
    }

    public func operation(id: String) -> RegisteredOperation? { operationsByID[id] }

    /// Stops every plugin (deinit; C images are closed).
    public func unloadAll() {
        for plugin in plugins.reversed() { plugin.stop(locator: locator) }
        plugins.removeAll()
        operationsByID.removeAll()
    }
}
