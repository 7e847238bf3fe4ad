/// The checks a host asks every plugin load to pass, registered in its `ServiceLocator` (so a `Runtime` built by the
/// command line gets them without changing how the runtime is made). A `PluginLoader` with its own `verifier` uses
/// that instead; a locator without a policy loads every well-formed plugin (library use and tests).
public struct PluginLoadPolicy: Sendable {
    /// Called with the bytes of the unique copy before `dlopen`.
    public var verify: PluginLoader.Verifier?
    /// Called with the validated manifest after the descriptors are read, before anything is registered.
    public var checkManifest: PluginLoader.ManifestCheck?
    /// Whether `verify` looks at the bytes (signatures). When it does not (development mode: permissions only), the
    /// registry may list an unchanged file from its cache without reading it, passing no bytes.
    public var readsBytes: Bool

    public init(verify: PluginLoader.Verifier?, checkManifest: PluginLoader.ManifestCheck? = nil,
                readsBytes: Bool = true) {
        self.verify = verify
        self.checkManifest = checkManifest
        self.readsBytes = readsBytes
    }
}
