import Foundation

/// One plugin file found in the plugin folder, in service or not: what `rbs-host plugins` shows.
public struct PluginRecord: Codable, Hashable, Sendable {
    /// Where the file stands. `plugins --json` writes the raw value.
    public enum Status: String, Codable, Sendable {
        /// In service from its manifest (scanned, or from the cache), not loaded into the host yet: it is loaded
        /// when one of its operations is first run or one of its services is first looked up.
        case listed
        /// Loaded into the host and started.
        case loaded
        /// Not in service; `error` says why.
        case failed
    }

    public var path: String
    public var id: String?
    public var version: String?
    /// The ABI version the plugin was built against ("1.0.0"), when it could be read.
    public var abi: String?
    public var status: Status
    public var error: String?
    /// Why the file is not in service, as typed facts (for the person's language); `error` is its English text.
    public var problem: PluginLoadError?

    init(path: String, id: String? = nil, version: String? = nil, abi: String? = nil, status: Status, error: String?) {
        self.path = path
        self.id = id
        self.version = version
        self.abi = abi
        self.status = status
        self.error = error
    }

    /// A file that is not in service, with why.
    init(failed error: PluginLoadError) {
        self.init(path: error.path, status: .failed, error: error.description)
        problem = error
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
