import Crypto
import Foundation
import RBSLedger

/// A plugin's signature file, `<plugin>.so.sig`, written by `rbs-host plugin sign`:
/// ```
/// rbs-plugin-signature 1
/// file-sha256 <64 hex digits: SHA-256 of the .so file>
/// plugin <plugin id>
/// version <plugin version>
/// key <64 hex digits: the publisher's Ed25519 public key>
/// signature <128 hex digits>
/// ```
/// The signature is Ed25519 over the canonical message: the first five lines exactly as above, each ending in "\n",
/// hex in lowercase (``canonicalMessage``). Lines are in this order; nothing else is allowed.
public struct PluginSignature: Sendable, Equatable {
    public static let header = "rbs-plugin-signature 1"

    /// SHA-256 of the plugin file, lowercase hex.
    public var fileSHA256: String
    public var pluginID: String
    public var version: String
    /// The publisher's public key, lowercase hex.
    public var publicKey: String
    /// The Ed25519 signature, lowercase hex.
    public var signature: String

    /// The bytes the signature covers.
    public var canonicalMessage: [UInt8] {
        Array("\(Self.header)\nfile-sha256 \(fileSHA256)\nplugin \(pluginID)\nversion \(version)\nkey \(publicKey)\n".utf8)
    }

    /// The file's text.
    public var text: String {
        String(decoding: canonicalMessage, as: UTF8.self) + "signature \(signature)\n"
    }

    /// Signs a plugin file's hash, id and version with `key`.
    public static func make(fileSHA256: String, pluginID: String, version: String,
                            key: PublisherKey) throws(TrustError) -> PluginSignature {
        var unsigned = PluginSignature(fileSHA256: fileSHA256, pluginID: pluginID, version: version,
                                       publicKey: key.publicKeyHex, signature: "")
        unsigned.signature = Hex.encode(try key.sign(unsigned.canonicalMessage))
        return unsigned
    }

    /// Parses a signature file's text (`path` is only used in errors).
    public static func parse(_ text: String, path: String) throws(TrustError) -> PluginSignature {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        let names = ["file-sha256", "plugin", "version", "key", "signature"]
        guard lines.first == header else {
            throw .malformedSignature(path: path, reason: "the first line is not '\(header)'")
        }
        guard lines.count == names.count + 1 else {
            throw .malformedSignature(path: path, reason: "expected \(names.count + 1) lines, found \(lines.count)")
        }
        var values: [String] = []
        for (name, line) in zip(names, lines.dropFirst()) {
            guard line.hasPrefix(name + " ") else {
                throw .malformedSignature(path: path, reason: "expected a '\(name)' line, found '\(line.prefix(40))'")
            }
            values.append(String(line.dropFirst(name.count + 1)))
        }
        let signature = PluginSignature(fileSHA256: values[0].lowercased(), pluginID: values[1], version: values[2],
                                        publicKey: values[3].lowercased(), signature: values[4].lowercased())
        guard signature.fileSHA256.utf8.count == 64, Hex.decode(signature.fileSHA256) != nil else {
            throw .malformedSignature(path: path, reason: "file-sha256 is not 64 hex digits")
        }
        guard Hex.isPublicKey(signature.publicKey) else {
            throw .malformedSignature(path: path, reason: "key is not 64 hex digits")
        }
        guard signature.signature.utf8.count == 128, Hex.decode(signature.signature) != nil else {
            throw .malformedSignature(path: path, reason: "signature is not 128 hex digits")
        }
        return signature
    }

    /// Parses a signature file that may hold several signatures one after another, each starting with ``header``
    /// (`plugin install` replacing a plugin writes the old and the new one while the new file is renamed into place).
    public static func parseAll(_ text: String, path: String) throws(TrustError) -> [PluginSignature] {
        var blocks: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if line == header || blocks.isEmpty { blocks.append("") }
            blocks[blocks.count - 1] += line + "\n"
        }
        guard !blocks.isEmpty else { throw .malformedSignature(path: path, reason: "the file is empty") }
        var signatures: [PluginSignature] = []
        for block in blocks { signatures.append(try parse(block, path: path)) }
        return signatures
    }

    /// Whether the signature is the key's over ``canonicalMessage``.
    public var isValid: Bool {
        guard let keyBytes = Hex.decode(publicKey), let signatureBytes = Hex.decode(signature),
              let key = try? Curve25519.Signing.PublicKey(rawRepresentation: keyBytes) else { return false }
        return key.isValidSignature(signatureBytes, for: canonicalMessage)
    }

    /// SHA-256 of `bytes`, lowercase hex.
    public static func sha256<Bytes: DataProtocol>(_ bytes: Bytes) -> String {
        ContentHash.sha256(bytes)
    }
}
