/// The checks a host asks every plugin load to pass: given to the `Runtime`, which hands it to its `PluginLoader`
/// (the registry reads it there). Without one, every well-formed plugin is loaded (library use and tests).
public struct PluginLoadPolicy: Sendable {
    /// Checks the plugin folder itself before any file in it is considered.
    public typealias FolderCheck = @Sendable (_ directory: String) throws(PluginProblem) -> Void
    /// Checks a plugin file's permission bits and owner, as one `stat` read them.
    public typealias FileStatusCheck = @Sendable (_ path: String, _ mode: UInt32, _ owner: UInt32) throws(PluginProblem) -> Void

    /// Called with the bytes of the unique copy before `dlopen`.
    public var verify: PluginLoader.Verifier?
    /// Called with the validated manifest after the descriptors are read, before anything is registered.
    public var checkManifest: PluginLoader.ManifestCheck?
    /// Called with the plugin folder at every scan: a refused folder is one failed record, and nothing in it loads.
    public var checkFolder: FolderCheck?
    /// Whether `verify` looks at the bytes (signatures). When it does not (development mode: permissions only), the
    /// registry may list an unchanged file from its cache without reading it, passing no bytes.
    public var readsBytes: Bool
    /// What `verify` checks when it reads no bytes, given the file's status as the registry read it for the file's
    /// fingerprint, the file's folder having passed `checkFolder` in the same scan. The registry then checks an
    /// unchanged file with the one `stat` it makes anyway instead of three (the fingerprint's, the file's and its
    /// folder's): on a machine where a `stat` costs microseconds, most of a warm `list` of 500 plugins.
    public var checkFileStatus: FileStatusCheck?
    /// Called with the unique copy's path as the last step before it is opened in this process (never for a plugin
    /// served by a worker): `plugin check`'s child confines itself here, so the plugin's code never runs unconfined
    /// while everything before it (reading the folder, copying the file) still could.
    public var beforeOpening: (@Sendable (_ copy: String) throws(PluginProblem) -> Void)?

    public init(verify: PluginLoader.Verifier?, checkManifest: PluginLoader.ManifestCheck? = nil,
                checkFolder: FolderCheck? = nil, readsBytes: Bool = true, checkFileStatus: FileStatusCheck? = nil,
                beforeOpening: (@Sendable (_ copy: String) throws(PluginProblem) -> Void)? = nil) {
        self.beforeOpening = beforeOpening
        self.verify = verify
        self.checkManifest = checkManifest
        self.checkFolder = checkFolder
        self.readsBytes = readsBytes
        self.checkFileStatus = checkFileStatus
    }
}
