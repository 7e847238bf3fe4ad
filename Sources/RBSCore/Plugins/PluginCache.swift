import Crypto
import Foundation

/// What the host remembers of each plugin file between runs, so unchanged plugins are listed without `dlopen`:
/// keyed by path, size, modification time, content hash and the host's ABI version.
struct PluginCache: Codable {
    struct Fingerprint: Codable, Hashable {
        var size: Int64
        var modified: Int64
        var hash: String
    }

    struct Entry: Codable {
        var fingerprint: Fingerprint
        var result: ScanResult
    }

    var hostABI: String
    var entries: [String: Entry]

    static let fileName = "plugin-cache.json"

    /// The cache in `directory`, or an empty one when it is missing, corrupt or from another ABI.
    static func load(from directory: URL) -> PluginCache {
        let empty = PluginCache(hostABI: ABIVersion.host.description, entries: [:])
        guard let data = try? Data(contentsOf: directory.appendingPathComponent(fileName)),
              let cache = try? JSONDecoder().decode(PluginCache.self, from: data),
              cache.hostABI == ABIVersion.host.description else { return empty }
        return cache
    }

    /// Writes the cache atomically (a temporary file renamed over the old one).
    func save(to directory: URL) {
        guard let data = try? JSONEncoder().encode(self) else { return }
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                 attributes: [.posixPermissions: 0o700])
        try? data.write(to: directory.appendingPathComponent(Self.fileName), options: .atomic)
    }

    /// The fingerprint of the file at `path` now and its bytes, or nil when it cannot be read.
    static func read(_ path: String) -> (fingerprint: Fingerprint, bytes: Data)? {
        var info = stat()
        guard stat(path, &info) == 0, let data = FileManager.default.contents(atPath: path) else { return nil }
        let modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        return (Fingerprint(size: Int64(info.st_size), modified: modified, hash: hexHash(data)), data)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// SHA-256 as lowercase hex, without a formatter per byte (start-up hashes every plugin file).
    static func hexHash(_ data: Data) -> String {
        var text = [UInt8]()
        text.reserveCapacity(64)
        for byte in SHA256.hash(data: data) {
            text.append(hexDigits[Int(byte >> 4)])
            text.append(hexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
