/// The checks a host asks every plugin load to pass, registered in its `ServiceLocator` (so a `Runtime` built by the
/// command line gets them without changing how the runtime is made). A `PluginLoader` with its own `verifier` uses
/// that instead; a locator without a policy loads every well-formed plugin (library use and tests).
public struct PluginLoadPolicy: Sendable {
    /// Called with the bytes of the unique copy before `dlopen`.
    public var verify: PluginLoader.Verifier?
    /// Called with the validated manifest after the descriptors are read, before anything is registered.
    public var checkManifest: PluginLoader.ManifestCheck?

    public init(verify: PluginLoader.Verifier?, checkManifest: PluginLoader.ManifestCheck? = nil) {
        self.verify = verify
        self.checkManifest = checkManifest
    }
}
