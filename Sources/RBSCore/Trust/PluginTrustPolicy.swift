import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The trust policy of the command-line host: a plugin is loaded only when it is signed (`<plugin>.so.sig`) by a
/// publisher key in `<data>/trusted-keys`, its bytes are the ones signed, and its manifest's id and version are the
/// signed ones. In development mode (`--dev`, `RBS_DEV=1`) signatures are not required.
///
/// Always, even in development mode: a plugin file or plugin folder that other users can write to (mode & 022) or
/// that another non-root user owns is refused — anyone who can change it can run code in the host.
public final class PluginTrustPolicy: @unchecked Sendable {
    /// The trusted-keys file.
    public let trustedKeysPath: String
    /// Whether unsigned plugins are accepted (development).
    public let development: Bool
    private let lock = NSLock()
    /// The signatures accepted by `verify`, by the SHA-256 of the bytes they cover, for the manifest check.
    private var accepted: [String: PluginSignature] = [:]

    public init(dataDirectory: URL, development: Bool) {
        trustedKeysPath = TrustedKeys.path(in: dataDirectory)
        self.development = development
    }

    /// The loader hooks of this policy, for `Runtime(policy:)`.
    public var loadPolicy: PluginLoadPolicy {
        PluginLoadPolicy(verify: { [self] bytes, path throws(PluginProblem) in try verify(bytes, path: path) },
                         checkManifest: { [self] manifest, path, hash throws(PluginProblem) in
                             try checkManifest(manifest, path: path, sha256: hash)
                         },
                         checkFolder: { directory throws(PluginProblem) in try Self.checkFolder(directory) },
                         readsBytes: !development)
    }

    // MARK: - Before dlopen

    /// Checks the bytes that will be opened against the file's place on disk and its signature.
    public func verify(_ bytes: [UInt8], path: String) throws(PluginProblem) {
        try Self.checkPermissions(path: path)
        guard !development else { return }
        let signaturePath = path + ".sig"
        guard FileManager.default.fileExists(atPath: signaturePath) else { throw .untrusted(.notSigned(path: path)) }
        let signature: PluginSignature
        do { signature = try PluginSignature.parse(try TrustFile.read(signaturePath), path: signaturePath) } catch {
            throw .untrusted(.unusableSignature(error))
        }
        guard signature.isValid else { throw .untrusted(.badSignature(path: path, signaturePath: signaturePath)) }
        let trusted: TrustedKeys
        do { trusted = try TrustedKeys(path: trustedKeysPath) } catch {
            throw .untrusted(.unreadableTrustedKeys(error))
        }
        guard trusted.contains(signature.publicKey) else { throw .untrusted(.untrustedKey(publicKey: signature.publicKey)) }
        let hash = PluginSignature.sha256(bytes)
        guard hash == signature.fileSHA256 else {
            throw .untrusted(.changedAfterSigning(path: path, fileSHA256: hash, signedSHA256: signature.fileSHA256))
        }
        lock.withLock { accepted[hash] = signature }
    }

    // MARK: - After the descriptors are read

    /// Checks that the manifest's id and version are the signed ones.
    public func checkManifest(_ manifest: PluginManifest, path: String, sha256: String) throws(PluginProblem) {
        guard !development else { return }
        guard let signature = lock.withLock({ accepted[sha256] }) else { throw .untrusted(.notVerifiedBeforeOpening) }
        guard signature.pluginID == manifest.id, signature.version == manifest.version else {
            throw .untrusted(.signedForAnother(path: path, signedID: signature.pluginID, signedVersion: signature.version,
                                               id: manifest.id, version: manifest.version))
        }
    }

    // MARK: - Permissions

    /// Refuses a plugin file, or its folder, that other users can write to or that another non-root user owns.
    public static func checkPermissions(path: String) throws(PluginProblem) {
        let folder = TrustFile.directory(of: path)
        try check([(path, .pluginFile), (folder, .pluginFolder(folder))])
    }

    /// Refuses a plugin folder that other users can write to or that another non-root user owns.
    public static func checkFolder(_ directory: String) throws(PluginProblem) {
        try check([(directory, .pluginFolder(directory))])
    }

    private static func check(_ items: [(path: String, item: TrustRefusal.Item)]) throws(PluginProblem) {
        for (path, item) in items {
            guard let status = TrustFile.status(path) else { continue }
            if status.mode & 0o022 != 0 { throw .untrusted(.writableByOthers(item, path: path, mode: status.mode)) }
            if status.owner != 0, status.owner != getuid() { throw .untrusted(.ownedByAnother(item, owner: UInt32(status.owner))) }
        }
    }
}
