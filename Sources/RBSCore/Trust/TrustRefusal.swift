/// Why the trust policy refused a plugin: the facts, with the one description a person acts on.
public enum TrustRefusal: Error, Codable, Hashable, Sendable, CustomStringConvertible {
    /// Which item a permission refusal is about.
    public enum Item: Codable, Hashable, Sendable, CustomStringConvertible {
        case pluginFile
        case pluginFolder(String)

        public var description: String {
            switch self {
            case .pluginFile: "the plugin file"
            case .pluginFolder(let path): "the plugin folder \(path)"
            }
        }
    }

    /// There is no `<plugin>.sig` beside the plugin at `path`.
    case notSigned(path: String)
    /// The signature file is there but cannot be used.
    case unusableSignature(TrustError)
    /// The signature in `signaturePath` does not verify for its key (damaged or forged).
    case badSignature(path: String, signaturePath: String)
    /// The trusted-keys file cannot be read.
    case unreadableTrustedKeys(TrustError)
    /// The signing key is not in the trusted keys.
    case untrustedKey(publicKey: String)
    /// The signing key is not in the shared database's trusted keys (`--database`).
    case untrustedSharedKey(publicKey: String)
    /// The file's bytes are not the ones signed.
    case changedAfterSigning(path: String, fileSHA256: String, signedSHA256: String)
    /// The manifest check ran for bytes whose signature was never checked (a loader without the verifier).
    case notVerifiedBeforeOpening
    /// The signature names another plugin id or version than the file's manifest.
    case signedForAnother(path: String, signedID: String, signedVersion: String, id: String, version: String)
    /// Other users can write to the file or its folder (`mode & 022`).
    case writableByOthers(Item, path: String, mode: UInt32)
    /// Another non-root user owns the file or its folder.
    case ownedByAnother(Item, owner: UInt32)
    /// The signing key was revoked (`trust revoke`).
    case revokedKey(publicKey: String, on: String, reason: String?)
    /// The signing key's last trusted day (`trust add --expires`) has passed.
    case expiredKey(publicKey: String, lastDay: String)
    /// The signing key is trusted for other plugin ids (`trust add --ids`).
    case outsideKeyScope(publicKey: String, pluginID: String, ids: [String])

    public var description: String {
        switch self {
        case .notSigned(let path):
            "not signed — sign it with \(Self.sign(path)) and trust that key with `rbs-host trust add`, or run with --dev"
        case .unusableSignature(let error):
            "its signature file cannot be used (\(error.description)) — or run with --dev"
        case .badSignature(let path, let signaturePath):
            "the signature in \(signaturePath) does not verify (damaged or forged) — sign the plugin again with \(Self.sign(path)), or run with --dev"
        case .unreadableTrustedKeys(let error):
            "cannot read the trusted keys: \(error.description)"
        case .untrustedKey(let key):
            "signed by an untrusted key \(key) — if you trust its publisher, run `rbs-host trust add \(key)`; or run with --dev"
        case .untrustedSharedKey(let key):
            "signed by an untrusted key \(key) — if you trust its publisher, run `rbs-host trust add \(key)` with this host's --database (the shared database's keys are every host's); or run with --dev"
        case .changedAfterSigning(let path, let file, let signed):
            "changed after signing (the file's SHA-256 is \(file.prefix(16))…, the signature is for \(signed.prefix(16))…) — rebuild it and sign it again with \(Self.sign(path)), or run with --dev"
        case .notVerifiedBeforeOpening:
            "its signature was not checked before it was opened — run with the trust policy's verifier installed"
        case .signedForAnother(let path, let signedID, let signedVersion, let id, let version):
            "the signature is for plugin '\(signedID)' \(signedVersion) but the file is '\(id)' \(version) — sign it again with `rbs-host plugin sign \(path) --key KEY`, or run with --dev"
        case .writableByOthers(let item, let path, let mode):
            "other users can write to \(item) (mode \(String(mode, radix: 8))): anyone could swap in code the host runs, so it is never loaded, not even with --dev — run `chmod go-w \(path)`"
        case .revokedKey(let key, let day, let reason):
            "signed by \(key), revoked on \(day)\(reason.map { " (\($0))" } ?? ""): nothing it signed is loaded — ask the publisher for the plugin signed with their new key"
        case .expiredKey(let key, let lastDay):
            "signed by \(key), whose trust ended after \(lastDay) (UTC) — if you still trust its publisher, extend it with `rbs-host trust add \(key) --expires YYYY-MM-DD`"
        case .outsideKeyScope(let key, let id, let ids):
            "signed by \(key), which is trusted only for \(ids.joined(separator: ", ")), not for '\(id)' — a key signs only the ids it is trusted for; widen it with `rbs-host trust add \(key) --ids PATTERN` if that publisher owns '\(id)'"
        case .ownedByAnother(let item, let owner):
            "\(item) is owned by another user (uid \(owner)), who could change it: it is never loaded, not even with --dev — give it to yourself or root (chown)"
        }
    }

    private static func sign(_ path: String) -> String { "`rbs-host plugin sign \(path) --key KEY`" }
}
