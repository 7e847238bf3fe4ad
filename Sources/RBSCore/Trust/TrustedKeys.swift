import Foundation
import RBSLedger
import RBSMoney

/// The publisher keys this host trusts: `<data>/trusted-keys`, one key a line:
/// ```
/// # comments and blank lines are ignored
/// <64 hex digits: Ed25519 public key> [ids=PATTERN,…] [expires=YYYY-MM-DD] [revoked=YYYY-MM-DD [reason=TEXT]] [name]
/// ```
/// `ids=` limits the plugin ids the key may sign (``PluginIDPattern``; none: every id), `expires=` is the last day
/// (UTC) it is trusted, `revoked=` marks a key never to be trusted again (its `reason=` percent-encoded). A line of a
/// file written before these existed (`<hex> [name]`) reads as before.
/// The file is written 0600 and refused when other users can write to it, or when it belongs to another user.
public struct TrustedKeys: Sendable {
    /// One trusted key.
    public struct Entry: Sendable, Equatable, Codable {
        /// Lowercase hex.
        public var key: String
        public var name: String?
        /// The plugin id patterns it may sign (``PluginIDPattern``); empty: every id.
        public var ids: [String] = []
        /// The last day (ISO, UTC) it is trusted; nil: no expiry.
        public var expires: String?
        /// The day (ISO, UTC) it was revoked; a revoked key stays listed and is never trusted again.
        public var revoked: String?
        /// Why it was revoked.
        public var revokedReason: String?

        public init(key: String, name: String?, ids: [String] = [], expires: String? = nil, revoked: String? = nil,
                    revokedReason: String? = nil) {
            self.key = key
            self.name = name
            self.ids = ids
            self.expires = expires
            self.revoked = revoked
            self.revokedReason = revokedReason
        }

        /// The line of the file that holds this entry.
        var line: String {
            var fields = [key]
            if !ids.isEmpty { fields.append("ids=" + ids.joined(separator: ",")) }
            if let expires { fields.append("expires=" + expires) }
            if let revoked { fields.append("revoked=" + revoked) }
            if let reason = revokedReason?.addingPercentEncoding(withAllowedCharacters: Self.plain) {
                fields.append("reason=" + reason)
            }
            if let name { fields.append(name) }
            return fields.joined(separator: " ")
        }

        /// Reads a line of the file (comments and blank lines already passed over); the reason says what is wrong.
        static func read(_ line: String) -> Result<Entry, LineError> {
            var rest = Substring(line)
            func field() -> Substring {
                let word = rest.prefix { $0 != " " }
                rest = rest.dropFirst(word.count).drop { $0 == " " }
                return word
            }
            let key = field()
            guard Hex.isPublicKey(String(key)) else { return .failure(LineError("'\(key.prefix(20))' is not a public key")) }
            var entry = Entry(key: key.lowercased(), name: nil)
            while let equals = rest.prefix(while: { $0 != " " }).firstIndex(of: "="),
                  let label = Label(rawValue: String(rest[..<equals])) {
                let value = String(field().dropFirst(label.rawValue.count + 1))
                switch label {
                case .ids:
                    do { entry.ids = try PluginIDPattern.list(value).map(\.text) } catch {
                        return .failure(LineError(error.description))
                    }
                case .expires, .revoked:
                    guard (try? CalendarDay.parse(value, .iso)) != nil else {
                        return .failure(LineError("\(label.rawValue)=\(value) is not a day (YYYY-MM-DD)"))
                    }
                    if label == .expires { entry.expires = value } else { entry.revoked = value }
                case .reason:
                    entry.revokedReason = value.removingPercentEncoding ?? value
                }
            }
            let name = rest.trimmingCharacters(in: .whitespaces)
            entry.name = name.isEmpty ? nil : name
            return .success(entry)
        }

        /// The fields a line may hold before its name.
        private enum Label: String { case ids, expires, revoked, reason }
        /// What a revocation's reason keeps unencoded in the file.
        private static let plain = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_.,:;()"))
    }

    /// Why a line of the file cannot be read.
    struct LineError: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
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
            switch Entry.read(line) {
            case .success(let entry): entries.append(entry)
            case .failure(let error): throw .malformedTrustStore(path: path, line: number + 1, reason: error.reason)
            }
        }
        self.entries = entries
    }

    /// Whether `key` (hex) is listed and not revoked (its scope and term are the trust policy's to check).
    public func contains(_ key: String) -> Bool {
        entries.contains { $0.key == key.lowercased() && $0.revoked == nil }
    }

    /// Adds a key (a name given again replaces the old one; ids and expiry given replace theirs). Returns what changed.
    /// A revoked key is refused.
    @discardableResult
    public mutating func add(_ key: String, name: String?, grant: TrustGrant = TrustGrant()) throws(TrustError) -> TrustAddition {
        let key = key.lowercased()
        let addition: TrustAddition
        if let index = entries.firstIndex(where: { $0.key == key }) {
            let current = entries[index]
            if let revoked = current.revoked { throw .revoked(key: key, on: revoked, reason: current.revokedReason) }
            var changed = current
            if let name { changed.name = name }
            if let ids = grant.ids { changed.ids = ids.map(\.text) }
            if let expires = grant.expires { changed.expires = expires?.iso }
            guard changed != current else { return .unchanged }
            entries[index] = changed
            addition = .updated
        } else {
            entries.append(Entry(key: key, name: name, ids: grant.ids?.map(\.text) ?? [], expires: grant.expires??.iso))
            addition = .added
        }
        try save()
        return addition
    }

    /// Removes a key given as hex, by its name, or as a key or .pub file. Returns the removed entry. A revoked key
    /// stays (``TrustError/revokedStays(key:)``), so that it is never trusted again by mistake.
    @discardableResult
    public mutating func remove(_ reference: String) throws(TrustError) -> Entry {
        let matches = Self.matcher(reference)
        guard let index = entries.firstIndex(where: { matches($0.key, $0.name) }) else { throw .notTrusted(reference) }
        guard entries[index].revoked == nil else { throw .revokedStays(key: entries[index].key) }
        let entry = entries.remove(at: index)
        try save()
        return entry
    }

    /// Revokes the key `hex` (listed or not; `name` for one not listed) on `today`. Returns the entry and whether
    /// it was revoked before (the first revocation stands).
    public mutating func revoke(_ hex: String, name: String?, reason: String?, today: CalendarDay) throws(TrustError)
        -> (entry: Entry, already: Bool) {
        let key = hex.lowercased()
        if let index = entries.firstIndex(where: { $0.key == key }) {
            if entries[index].revoked != nil { return (entries[index], true) }
            entries[index].revoked = today.iso
            entries[index].revokedReason = reason
            try save()
            return (entries[index], false)
        }
        let entry = Entry(key: key, name: name, revoked: today.iso, revokedReason: reason)
        entries.append(entry)
        try save()
        return (entry, false)
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
        let lines = ["# Publisher keys trusted to sign rbs-host plugins (rbs-host trust add|list|remove|revoke)."]
            + entries.map(\.line)
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
