import Foundation
import RBSLedger
import RBSMoney
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The trust policy of the command-line host: a plugin is loaded only when it is signed (`<plugin>.so.sig`) by a
/// trusted publisher key (``TrustStore``: `<data>/trusted-keys`, or the shared database's `trusted_keys` with
/// `--database`), its bytes are the ones signed, and its manifest's id and version are the signed ones. In
/// development mode (`--dev`, `RBS_DEV=1`) signatures are not required.
///
/// Always, even in development mode: a plugin file or plugin folder that other users can write to (mode & 022) or
/// that another non-root user owns is refused — anyone who can change it can run code in the host.
public final class PluginTrustPolicy: @unchecked Sendable {
    /// Where the trusted keys are.
    public let store: TrustStore
    /// Whether unsigned plugins are accepted (development).
    public let development: Bool
    private let lock = NSLock()
    /// The signatures accepted by `verify`, by the SHA-256 of the bytes they cover, for the manifest check.
    private var accepted: [String: PluginSignature] = [:]
    /// The shared database's keys as last read, and when: a scan of many plugins asks the server once, and a key
    /// removed on another host is refused here within ``sharedKeysLifetime``.
    private var sharedKeys: (keys: [String: TrustedKeys.Entry], read: ContinuousClock.Instant)?
    /// How long keys read from the shared database are used before they are read again.
    static let sharedKeysLifetime = Duration.seconds(1)

    /// - Parameter location: where the ledger is; a shared database holds the trusted keys too.
    /// The wall clock a key's last trusted day is checked against (a test's own clock).
    let clock: @Sendable () -> Date

    public init(dataDirectory: URL, location: LedgerLocation = .dataFolder, development: Bool,
                clock: @escaping @Sendable () -> Date = Date.init) {
        store = TrustStore(dataDirectory: dataDirectory, location: location)
        self.development = development
        self.clock = clock
    }

    /// The loader hooks of this policy, for `Runtime(policy:)`.
    public var loadPolicy: PluginLoadPolicy {
        PluginLoadPolicy(verify: { [self] bytes, path throws(PluginProblem) in try verify(bytes, path: path) },
                         checkManifest: { [self] manifest, path, hash throws(PluginProblem) in
                             try checkManifest(manifest, path: path, sha256: hash)
                         },
                         checkFolder: { directory throws(PluginProblem) in try Self.checkFolder(directory) },
                         readsBytes: !development,
                         checkFileStatus: { path, mode, owner throws(PluginProblem) in
                             try Self.check(path, .pluginFile, mode: mode, owner: uid_t(owner))
                         })
    }

    // MARK: - Before dlopen

    /// Checks the bytes that will be opened against the file's place on disk and its signature.
    public func verify(_ bytes: [UInt8], path: String) throws(PluginProblem) {
        try Self.checkPermissions(path: path)
        guard !development else { return }
        let signaturePath = path + ".sig"
        guard FileManager.default.fileExists(atPath: signaturePath) else { throw .untrusted(.notSigned(path: path)) }
        let signatures: [PluginSignature]
        do { signatures = try PluginSignature.parseAll(try TrustFile.read(signaturePath), path: signaturePath) } catch {
            throw .untrusted(.unusableSignature(error))
        }
        let hash = PluginSignature.sha256(bytes)
        // The block for these bytes: `plugin install` replacing a plugin leaves the old and the new signature in the
        // file while the new .so is renamed into place, so the .so seen at any moment has its signature there.
        let signature = signatures.first { $0.fileSHA256 == hash } ?? signatures[signatures.count - 1]
        do { try check(signature, contentSHA256: hash, path: path, signaturePath: signaturePath) } catch {
            throw .untrusted(error)
        }
        lock.withLock { accepted[hash] = signature }
    }

    /// The one check a signature passes, a loose plugin's `.sig` and a plugin package's alike: it verifies for its
    /// key, the key is trusted (not revoked, within its term, for the id the signature names) and the signed hash is
    /// `contentSHA256`, the hash of the bytes at hand.
    public func check(_ signature: PluginSignature, contentSHA256 hash: String, path: String,
                      signaturePath: String) throws(TrustRefusal) {
        guard signature.isValid else { throw .badSignature(path: path, signaturePath: signaturePath) }
        let trusted: [String: TrustedKeys.Entry]
        do { trusted = try trustedKeys() } catch {
            throw .unreadableTrustedKeys(error)
        }
        guard let entry = trusted[signature.publicKey.lowercased()] else {
            let key = signature.publicKey
            throw store.isShared ? .untrustedSharedKey(publicKey: key) : .untrustedKey(publicKey: key)
        }
        // The key's scope, term and revocation, checked on the id the signature names (before anything is opened;
        // the manifest check then holds the file to that id).
        if let today = CalendarDay.containing(clock(), in: .gmt),
           let refusal = entry.refusal(signing: signature.pluginID, today: today) {
            throw refusal
        }
        guard hash == signature.fileSHA256 else {
            throw .changedAfterSigning(path: path, fileSHA256: hash, signedSHA256: signature.fileSHA256)
        }
    }

    /// The trusted keys (lowercase hex): the file read at every check, as before; the shared database's kept for
    /// ``sharedKeysLifetime``.
    private func trustedKeys() throws(TrustError) -> [String: TrustedKeys.Entry] {
        func byKey(_ entries: [TrustedKeys.Entry]) -> [String: TrustedKeys.Entry] {
            Dictionary(entries.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        }
        guard store.isShared else { return byKey(try store.entries()) }
        let now = ContinuousClock.now
        if let cached = lock.withLock({ sharedKeys }), now - cached.read < Self.sharedKeysLifetime { return cached.keys }
        let keys = byKey(try store.entries())
        lock.withLock { sharedKeys = (keys, now) }
        return keys
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
        try check(path, .pluginFile)
        let folder = TrustFile.directory(of: path)
        try check(folder, .pluginFolder(folder))
    }

    /// Refuses a plugin folder that other users can write to or that another non-root user owns.
    public static func checkFolder(_ directory: String) throws(PluginProblem) {
        try check(directory, .pluginFolder(directory))
    }

    /// One `stat` of `path`; `item` (what the refusal names) is made only for a refusal, since every plugin file is
    /// checked at every rescan.
    private static func check(_ path: String, _ item: @autoclosure () -> TrustRefusal.Item) throws(PluginProblem) {
        guard let status = TrustFile.status(path) else { return }
        try check(path, item(), mode: status.mode, owner: status.owner)
    }

    /// The same check, on a status already read (`mode`: the permission bits).
    private static func check(_ path: String, _ item: @autoclosure () -> TrustRefusal.Item, mode: UInt32,
                              owner: uid_t) throws(PluginProblem) {
        if mode & 0o022 != 0 { throw .untrusted(.writableByOthers(item(), path: path, mode: mode)) }
        if owner != 0, owner != getuid() { throw .untrusted(.ownedByAnother(item(), owner: UInt32(owner))) }
    }
}
