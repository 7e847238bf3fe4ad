import RBSLedger
/// Why a publisher key, the trusted-keys file, a signature file or a signing could not be used. Each description
/// names the file and says what to do.
public enum TrustError: Error, CustomStringConvertible, Sendable, Hashable, Codable {
    /// A file could not be read or written.
    case io(path: String, reason: String)
    /// A key file exists where a new one would be written.
    case keyExists(path: String)
    /// A key file is not in the `rbs-publisher-key 1` format.
    case malformedKey(path: String, reason: String)
    /// A private key file other users can read.
    case keyExposed(path: String, mode: UInt32)
    /// A signature file is not in the `rbs-plugin-signature 1` format.
    case malformedSignature(path: String, reason: String)
    /// A line of the trusted-keys file is not `<hex public key> [name]`.
    case malformedTrustStore(path: String, line: Int, reason: String)
    /// The trusted-keys file is writable by other users.
    case trustStoreExposed(path: String, mode: UInt32)
    /// The trusted-keys file belongs to another user or others may read it (``SecureFile/exposure(of:)``).
    case notPrivate(SecureFile.Exposure)
    /// What was given as a key is neither hex, nor a key file, nor a .pub file.
    case notAKey(String)
    /// `trust remove` of a key that is not trusted.
    case notTrusted(String)
    /// The plugin could not be loaded to read its id and version.
    case unloadable(String)
    /// The file changed while it was being signed.
    case changedWhileSigning(path: String)
    /// The trusted keys in the shared database (`--database`) could not be read or written: the ledger's
    /// description of why (it names the server and what to do).
    case sharedStore(String)
    /// `trust add --ids` with a pattern that is not a plugin id, an id prefix ending in `.*`, or `*`.
    case badIDPattern(String)
    /// `trust add --expires` with what is not a day.
    case badExpiry(String, reason: String)
    /// `trust add` of a revoked key.
    case revoked(key: String, on: String, reason: String?)
    /// `trust remove` of a revoked key: it stays listed.
    case revokedStays(key: String)

    public var description: String {
        switch self {
        case .io(let path, let reason): "\(path): \(reason) — check the path and its permissions"
        case .keyExists(let path): "\(path) already exists — choose another file, or pass --force to replace it"
        case .malformedKey(let path, let reason):
            "\(path): not a publisher key file (\(reason)) — create one with `rbs-host plugin keygen \(path)`"
        case .keyExposed(let path, let mode):
            "\(path): the private key is readable by other users (mode \(String(mode, radix: 8))) — run `chmod 600 \(path)`"
        case .malformedSignature(let path, let reason):
            "\(path): not a plugin signature (\(reason)) — sign the plugin again with `rbs-host plugin sign`"
        case .malformedTrustStore(let path, let line, let reason):
            "\(path):\(line): \(reason) — each line is a 64-digit hex public key, optional ids=, expires=, revoked= fields and an optional name; fix or remove the line"
        case .trustStoreExposed(let path, let mode):
            "\(path): other users can write to the trusted keys (mode \(String(mode, radix: 8))) — run `chmod 600 \(path)`"
        case .notPrivate(let exposure): "the trusted keys \(exposure.description)"
        case .notAKey(let text):
            "'\(text)' is not a public key — give 64 hex digits, a key file from `rbs-host plugin keygen`, or its .pub file"
        case .notTrusted(let text): "'\(text)' is not a trusted key — see `rbs-host trust list`"
        case .unloadable(let why): "cannot read the plugin's id and version: \(why)"
        case .changedWhileSigning(let path): "\(path) changed while it was being signed — sign it again"
        case .sharedStore(let reason): "the trusted keys in the shared database: \(reason)"
        case .badIDPattern(let text):
            "'\(text)' is not a plugin id pattern — give an id (ru.mybank.topup), every id under a prefix (ru.mybank.*), or * for every id"
        case .badExpiry(let text, let reason):
            "--expires '\(text)': \(reason) — give the last day the key is trusted as YYYY-MM-DD (UTC), or never"
        case .revoked(let key, let day, let reason):
            "\(key) was revoked on \(day)\(reason.map { " (\($0))" } ?? ""): a revoked key is never trusted again — the publisher signs with a new key, which you trust with `rbs-host trust add`"
        case .revokedStays(let key):
            "\(key) is revoked: it stays listed so that nobody trusts it again by mistake (its plugins are refused either way)"
        }
    }
}
