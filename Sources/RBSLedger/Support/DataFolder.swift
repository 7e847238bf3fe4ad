import Foundation

/// The data folder's privacy rule, checked before the host starts: the folder and the host's files in it
/// (the database and its `-wal`/`-shm`, the key files, `ledger-tip`, `trusted-keys`, `plugin-cache.bin`,
/// `history`, the `images/` folder, the imported `bank-directory.xml`, `isolation.conf`, `plugin-versions`,
/// `allowed-downgrades`) belong to the user the host runs as, and the group and others have no permission bits on any
/// of it. A folder that does not exist yet passes: it is created 0700.
public enum DataFolder {
    /// The host's own entries of a data folder: what it stores there and checks.
    public static let entries = [
        "rbs.sqlite", "rbs.sqlite-wal", "rbs.sqlite-shm", "ledger-tip", "signing.key", "totp.secret", "signing.name",
        "trusted-keys", "plugin-cache.bin", "history", "images", "bank-directory.xml", "isolation.conf",
        "plugin-versions", "allowed-downgrades", "plugin-history", "releases",
    ]

    /// Every problem found, the folder's own first; empty when all is private. Other files someone keeps in the
    /// folder (a publisher key's `.pub`, a plugin folder) are theirs and not looked at.
    public static func exposures(of directory: URL) -> [SecureFile.Exposure] {
        // Fix the folder first: what is inside may have been put there by whoever could write to it.
        if let own = SecureFile.exposure(of: directory.path) { return [own] }
        return entries.compactMap { SecureFile.exposure(of: directory.appendingPathComponent($0).path) }
    }

    /// Throws ``DataFolderError`` naming every problem and the commands that fix them.
    public static func check(_ directory: URL) throws(DataFolderError) {
        let found = exposures(of: directory)
        if !found.isEmpty { throw DataFolderError(directory: directory.path, exposures: found) }
    }
}

/// The data folder, or something in it, is not private to the user the host runs as: the host refuses to start.
public struct DataFolderError: Error, Sendable, Hashable, CustomStringConvertible {
    public let directory: String
    public let exposures: [SecureFile.Exposure]

    public var description: String {
        var lines = ["the data folder \(directory) is not private, so rbs-host refuses to use it "
            + "(its keys, journal and trusted keys must be readable and writable by this user only):"]
        lines += exposures.map { "  \($0.description)" }
        return lines.joined(separator: "\n")
    }
}
