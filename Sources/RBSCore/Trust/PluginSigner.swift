import Foundation

/// Writes `<plugin>.so.sig` for a plugin file: reads its id and version from its manifest, which a sandboxed worker
/// reads (`isolation`, as every other command loads plugins: the plugin's code, its constructors included, never
/// runs in the signing process, which holds the publisher's private key), and signs them with the file's SHA-256.
public enum PluginSigner {
    /// Signs the plugin at `path` with `key` and writes `path + ".sig"`. Returns the signature written.
    /// - Parameter isolation: how the plugin is opened to read its manifest (`rbs-host plugin sign`: a worker).
    @discardableResult
    public static func sign(pluginAt path: String, key: PublisherKey,
                            isolation: IsolationSettings) throws(TrustError) -> PluginSignature {
        let bytes: Data
        do { bytes = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw .io(path: path, reason: (error as NSError).localizedDescription)
        }
        let hash = PluginSignature.sha256(bytes)
        let manifest = try readManifest(path: path, expectedSHA256: hash, isolation: isolation)
        let signature = try PluginSignature.make(fileSHA256: hash, pluginID: manifest.id, version: manifest.version,
                                                 key: key)
        try TrustFile.write(signature.text, to: path + ".sig", mode: 0o644)
        return signature
    }

    /// The validated manifest of a plugin file, read by loading it (from a temporary images folder) as `isolation`
    /// says; the image is stopped at once (`init` is never called).
    static func readManifest(path: String, expectedSHA256: String,
                             isolation: IsolationSettings) throws(TrustError) -> PluginManifest {
        let manifest: (value: PluginManifest, contentHash: String)
        do { manifest = try openManifest(path: path, isolation: isolation) } catch {
            throw .unloadable(error.description)
        }
        guard manifest.contentHash == expectedSHA256 else { throw .changedWhileSigning(path: path) }
        return manifest.value
    }

    /// The validated manifest of a plugin file and the hash of the bytes that were opened, read as ``readManifest``
    /// reads it (`plugin install` reads a package's object so, to hold it to the package's manifest).
    static func openManifest(path: String, isolation: IsolationSettings) throws(PluginLoadError)
        -> (value: PluginManifest, contentHash: String) {
        let images = FileManager.default.temporaryDirectory.appendingPathComponent("rbs-sign-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: images) }
        let loader = PluginLoader(imagesDirectory: images, locator: ServiceLocator(), isolation: isolation)
        let image = try loader.load(path: path)
        defer { image.stop(locator: ServiceLocator()) }
        return (image.manifest, image.contentHash)
    }
}
