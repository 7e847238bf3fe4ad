import Foundation
import RBSLedger

/// What the host remembers of each plugin file between runs, so unchanged plugins are listed without `dlopen`:
/// keyed by path, size, modification time, content hash and the host's ABI version. (The file also records the
/// inode and status-change time: while those and the size and mtime are unchanged, the content is, and the hash is
/// not computed again — unless the bytes are read anyway, to check a signature.)
struct PluginCache {
    struct Fingerprint: Hashable {
        var size: Int64
        var modified: Int64
        /// ctime: changes on every write, rename into place and chmod, and cannot be set back by a user.
        var changed: Int64
        var inode: UInt64
        var hash: String

        /// Whether the file's status says it is the same file, unchanged.
        func sameStatus(as other: Fingerprint) -> Bool {
            size == other.size && modified == other.modified && changed == other.changed && inode == other.inode
        }
    }

    struct Entry {
        var fingerprint: Fingerprint
        var result: ScanResult
    }

    var hostABI: String
    var entries: [String: Entry]
    /// The files that were in service when the registry last changed: when two new files claim one id, the one
    /// that was in service keeps it.
    var inService: Set<String> = []

    static let fileName = "plugin-cache.bin"

    /// The cache in `directory`, or an empty one when it is missing, corrupt or from another ABI.
    static func load(from directory: URL) -> PluginCache {
        let empty = PluginCache(hostABI: ABIVersion.host.description, entries: [:])
        guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent(fileName).path),
              let cache = try? data.withUnsafeBytes({ raw throws(PluginCacheCodec.Malformed) in
                  try PluginCacheCodec.decode(raw.bindMemory(to: UInt8.self))
              }),
              cache.hostABI == ABIVersion.host.description else { return empty }
        return cache
    }

    /// Writes the cache atomically (a temporary file renamed over the old one), mode 0600.
    func save(to directory: URL) {
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                 attributes: [.posixPermissions: 0o700])
        // 0600 like every file of the data folder (the host refuses to start with a file others can read).
        try? SecureFile.write(Data(PluginCacheCodec.encode(self)), to: directory.appendingPathComponent(Self.fileName))
    }

    /// The status part of the fingerprint of the file at `path` now (hash empty), or nil when it cannot be read.
    static func status(_ path: String) -> Fingerprint? {
        fileStatus(path)?.fingerprint
    }

    /// The status part of the fingerprint of the file at `path` now (hash empty), with its permission bits and
    /// owner from the same `stat`, or nil when it cannot be read.
    static func fileStatus(_ path: String) -> (fingerprint: Fingerprint, mode: UInt32, owner: UInt32)? {
        guard let stamp = FileStamp(path: path) else { return nil }
        let fingerprint = Fingerprint(size: stamp.size,
                                      modified: stamp.modified * 1_000_000_000 + Int64(stamp.modifiedNanoseconds),
                                      changed: stamp.changed * 1_000_000_000 + Int64(stamp.changedNanoseconds),
                                      inode: stamp.inode, hash: "")
        return (fingerprint, stamp.mode & 0o7777, stamp.owner)
    }

    /// The fingerprint of the file at `path` now and its bytes, or what keeps it from being read: a plugin file
    /// must be a readable regular file (a directory, a dangling or looping link, a FIFO is refused, never waited on).
    static func read(_ path: String) -> Result<(fingerprint: Fingerprint, bytes: Data), PluginProblem> {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let error = errno
            var link = stat()
            if lstat(path, &link) == 0, link.st_mode & S_IFMT == S_IFLNK {
                if error == ELOOP { return .failure(.notAFile(.linkLoop)) }
                let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "?"
                return .failure(.notAFile(.danglingLink(target: target)))
            }
            return .failure(.unreadable(String(cString: strerror(error))))
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: return .failure(.notAFile(.directory))
        default: return .failure(.notAFile(.special))
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return .failure(.unreadable(String(cString: strerror(errno)))) }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        let data: Data
        do { data = try handle.readToEnd() ?? Data() } catch {
            return .failure(.unreadable((error as NSError).localizedDescription))
        }
        guard var fingerprint = status(path) else { return .failure(.unreadable("it went away while it was read")) }
        fingerprint.hash = ContentHash.sha256(data)
        return .success((fingerprint, data))
    }
}
