import Foundation
import RBSLedger

/// The publisher keys this host trusts: `<data>/trusted-keys`, one key a line:
/// ```
/// # comments and blank lines are ignored
/// <64 hex digits: Ed25519 public key> [name]
/// ```
/// The file is written 0600 and refused when other users can write to it, or when it belongs to another user.
public struct TrustedKeys: Sendable {
    /// One trusted key.
    public struct Entry: Sendable, Equatable, Codable {
        /// Lowercase hex.
        public var key: String
        public var name: String?
    }

    public let path: String
    public private(set) var entries: [Entry]

    /// The file in a data directory.
    public static func path(in dataDirectory: URL) -> String {
        dataDirectory.appendingPathComponent("trusted-keys").path
    }

    /// Reads the file (no file: no trusted keys).
    public init(dataDirectory: URL) throws(TrustError) {
        try self.init(path: Self.path(in: dataDirectory))
    }

    public init(path: String) throws(TrustError) {
        self.path = path
        guard FileManager.default.fileExists(atPath: path) else {
            entries = []
            return
        }
        if let status = TrustFile.status(path), status.mode & 0o022 != 0 {
            throw .trustStoreExposed(path: path, mode: status.mode)
        }
        // Owned by this user and private: a file another user could have put there names keys nobody chose.
        if let exposure = SecureFile.exposure(of: path) { throw .notPrivate(exposure) }
        var entries: [Entry] = []
        for (number, raw) in try TrustFile.read(path).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let parts = line.split(separator: " ", maxSplits: 1)
            let key = String(parts[0]).lowercased()
            guard Hex.isPublicKey(key) else {
                throw .malformedTrustStore(path: path, line: number + 1, reason: "'\(parts[0].prefix(20))' is not a public key")
            }
            let name = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : nil
            entries.append(Entry(key: key, name: name?.isEmpty == true ? nil : name))
        }
        self.entries = entries
    }

    /// Whether `key` (hex) is trusted.
    public func contains(_ key: String) -> Bool { entries.contains { $0.key == key.lowercased() } }

    /// Adds a key (a name given again replaces the old one). Returns false when it was already trusted under that name.
    @discardableResult
    public mutating func add(_ key: String, name: String?) throws(TrustError) -> Bool {
        let key = key.lowercased()
        if let index = entries.firstIndex(where: { $0.key == key }) {
            guard let name, entries[index].name != name else { return false }
            entries[index].name = name
        } else {
            entries.append(Entry(key: key, name: name))
        }
        try save()
        return true
    }

    /// Removes a key given as hex, by its name, or as a key or .pub file. Returns the removed entry.
    @discardableResult
    public mutating func remove(_ reference: String) throws(TrustError) -> Entry {
        let matches = Self.matcher(reference)
        guard let index = entries.firstIndex(where: { matches($0.key, $0.name) }) else { throw .notTrusted(reference) }
        let entry = entries.remove(at: index)
        try save()
        return entry
    }

    /// What `trust remove REFERENCE` removes: the key it resolves to (hex, a key file or a .pub file), or the key
    /// trusted under that name.
    static func matcher(_ reference: String) -> (_ key: String, _ name: String?) -> Bool {
        let resolved = try? resolve(reference)
        return { key, name in key == resolved?.hex || (name != nil && name == reference) }
    }

    private func save() throws(TrustError) {
        let directory = TrustFile.directory(of: path)
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw .io(path: directory, reason: (error as NSError).localizedDescription)
        }
        let lines = ["# Publisher keys trusted to sign rbs-host plugins (rbs-host trust add|list|remove)."]
            + entries.map { entry in entry.name.map { "\(entry.key) \($0)" } ?? entry.key }
        try TrustFile.write(lines.joined(separator: "\n") + "\n", to: path, mode: 0o600)
    }

    /// A public key given as 64 hex digits, as a key file (`plugin keygen`), or as its `.pub` file (`<hex> [name]`).
    public static func resolve(_ reference: String) throws(TrustError) -> (hex: String, name: String?) {
        if Hex.isPublicKey(reference) { return (reference.lowercased(), nil) }
        guard FileManager.default.fileExists(atPath: reference) else { throw .notAKey(reference) }
        let text = try TrustFile.read(reference)
        if text.hasPrefix(PublisherKey.header) { return try PublisherKey.publicPart(of: reference) }
        let line = text.split(separator: "\n").first { !$0.hasPrefix("#") && !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        let parts = line.map { $0.trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 1) } ?? []
        guard let first = parts.first, Hex.isPublicKey(String(first)) else { throw .notAKey(reference) }
        return (String(first).lowercased(), parts.count > 1 ? String(parts[1]) : nil)
    }
}
