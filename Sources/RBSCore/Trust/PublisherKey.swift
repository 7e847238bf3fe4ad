import Crypto
import Foundation
import RBSLedger

/// A plugin publisher's Ed25519 key pair, kept in a key file (mode 0600) made by `rbs-host plugin keygen`.
///
/// This key signs plugins; it is not the customer's document-signing key (`rbs-host keys`).
///
/// The key file:
/// ```
/// rbs-publisher-key 1
/// name <name>
/// public <64 hex digits>
/// private <64 hex digits>
/// ```
/// Next to it, `<file>.pub` holds one line `<public key hex> <name>` — the line `rbs-host trust add` expects.
public struct PublisherKey {
    public static let header = "rbs-publisher-key 1"

    public let name: String
    let privateKey: Curve25519.Signing.PrivateKey

    /// The public key as 64 lowercase hex digits.
    public var publicKeyHex: String { Hex.encode(privateKey.publicKey.rawRepresentation) }

    /// A new random key pair.
    public static func generate(name: String) -> PublisherKey {
        PublisherKey(name: name, privateKey: Curve25519.Signing.PrivateKey())
    }

    init(name: String, privateKey: Curve25519.Signing.PrivateKey) {
        self.name = name
        self.privateKey = privateKey
    }

    /// Writes the key file (0600) and its `.pub` file (0644). Refuses an existing key file unless `force`.
    public func write(to path: String, force: Bool = false) throws(TrustError) {
        let text = """
            \(Self.header)
            name \(name)
            public \(publicKeyHex)
            private \(Hex.encode(privateKey.rawRepresentation))

            """
        try TrustFile.write(text, to: path, mode: 0o600, exclusive: !force)
        try TrustFile.write("\(publicKeyHex) \(name)\n", to: path + ".pub", mode: 0o644)
    }

    /// Reads a key file; refuses one other users can read.
    public static func load(from path: String) throws(TrustError) -> PublisherKey {
        if let status = TrustFile.status(path), status.mode & 0o077 != 0 {
            throw .keyExposed(path: path, mode: status.mode)
        }
        let fields = try parse(try TrustFile.read(path), path: path)
        guard let privateHex = fields["private"], let raw = Hex.decode(privateHex), raw.count == 32,
              let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: raw) else {
            throw .malformedKey(path: path, reason: "no 'private' line of 64 hex digits")
        }
        let loaded = PublisherKey(name: fields["name"] ?? "", privateKey: key)
        if let publicHex = fields["public"], publicHex.lowercased() != loaded.publicKeyHex {
            throw .malformedKey(path: path, reason: "its public key does not belong to its private key")
        }
        return loaded
    }

    /// The public key (hex) and name of a key file, without requiring it to be private: for `trust add FILE`.
    static func publicPart(of path: String) throws(TrustError) -> (hex: String, name: String?) {
        let fields = try parse(try TrustFile.read(path), path: path)
        if let publicHex = fields["public"], Hex.isPublicKey(publicHex) {
            return (publicHex.lowercased(), fields["name"].flatMap { $0.isEmpty ? nil : $0 })
        }
        guard let privateHex = fields["private"], let raw = Hex.decode(privateHex),
              let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: raw) else {
            throw .malformedKey(path: path, reason: "no 'public' line")
        }
        return (Hex.encode(key.publicKey.rawRepresentation), fields["name"])
    }

    /// Signs `message`.
    func sign(_ message: [UInt8]) throws(TrustError) -> [UInt8] {
        do { return Array(try privateKey.signature(for: message)) } catch {
            throw .io(path: "(signing)", reason: "\(error)")
        }
    }

    private static func parse(_ text: String, path: String) throws(TrustError) -> [String: String] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        guard lines.first == header else { throw .malformedKey(path: path, reason: "the first line is not '\(header)'") }
        lines.removeFirst()
        var fields: [String: String] = [:]
        for line in lines {
            let parts = line.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
            fields[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
        }
        return fields
    }
}
