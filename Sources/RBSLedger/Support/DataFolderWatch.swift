import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What happened to a data folder while a host had its ledger open, found by ``DataFolderWatch``.
public enum DataFolderChange: Sendable, Hashable, CustomStringConvertible {
    /// The folder is no longer at its path (deleted or moved away).
    case folderMissing(path: String)
    /// Another folder is at its path now (deleted and made again, or another moved over it).
    case folderReplaced(path: String)
    /// The ledger's database file is no longer in the folder.
    case ledgerMissing(path: String)
    /// Another file is at the database's path now (a copy put back, another ledger moved over it).
    case ledgerReplaced(path: String)
    /// The folder or one of its files changed owner or lets others read or write it.
    case exposed(SecureFile.Exposure)

    /// What happened, as one clause: "the data folder /srv/rbs was deleted or moved away".
    public var description: String {
        switch self {
        case .folderMissing(let path): "the data folder \(path) was deleted or moved away"
        case .folderReplaced(let path): "the data folder \(path) was replaced by another folder"
        case .ledgerMissing(let path): "the ledger's database \(path) was deleted or moved away"
        case .ledgerReplaced(let path): "the ledger's database \(path) was replaced by another file"
        case .exposed(let exposure): exposure.description
        }
    }
}

/// Watches a data folder while its ledger is open, so that a ledger whose files vanish, are replaced or stop being
/// private stops signing at once instead of acknowledging payments nobody will find again: an SQLite file deleted
/// under an open connection keeps taking commits (into an unlinked inode), and a folder opened to others exposes the
/// keys it holds.
///
/// The folder's and the database file's identity (device and inode) are taken when the ledger opens; ``check()``
/// compares them, and the privacy of the files that hold the ledger and its secrets, with what is on disk now —
/// a handful of `stat` calls, cheap beside a transaction's fsync, so it runs before and after every transaction.
/// The first change found is kept: from then on every check fails with it, whatever is put back, until the host is
/// started again (and so checks the folder as it does at every start).
final class DataFolderWatch: Sendable {
    private struct Identity: Equatable {
        let device: UInt64
        let inode: UInt64

        init(_ info: stat) {
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
        }
    }

    let directory: String
    /// The SQLite database's path, or nil when the tables are elsewhere (PostgreSQL): the folder still holds the keys.
    let ledgerFile: String?
    private let folderIdentity: Identity?
    private let ledgerIdentity: Identity?
    /// The files whose privacy is checked besides the folder and the database (those present; a missing one is fine).
    private let privateFiles: [String]
    private let change = Mutex<DataFolderChange?>(nil)

    /// Files kept private besides the database: its journal files, the tip record and the local key's secrets.
    private static let watchedEntries = ["rbs.sqlite-wal", "rbs.sqlite-shm", LedgerTip.fileName, "signing.key", "totp.secret"]

    /// Takes the identity of `directory` and of `ledgerFile` (already open) now.
    init(directory: URL, ledgerFile: String?) {
        self.directory = directory.path
        self.ledgerFile = ledgerFile
        folderIdentity = Self.identity(of: directory.path)
        ledgerIdentity = ledgerFile.flatMap(Self.identity(of:))
        privateFiles = Self.watchedEntries.map { directory.appendingPathComponent($0).path }
    }

    /// The change that stopped this ledger, or nil while its folder is as it was opened.
    var stopped: DataFolderChange? { change.withLock { $0 } }

    /// Throws ``LedgerError/dataFolderChanged(_:)`` when the folder or the ledger's file is not the one opened, or
    /// is no longer private; once thrown, it always throws that first change.
    func check() throws(LedgerError) {
        if let found = stopped { throw .dataFolderChanged(found) }
        guard let found = look() else { return }
        let first = change.withLock { stored in
            if stored == nil { stored = found }
            return stored ?? found
        }
        throw .dataFolderChanged(first)
    }

    /// What is different on disk now, the folder first (what is inside may be someone else's once it is).
    /// The folder and the database are each stat'ed once for their identity and their privacy (the session check
    /// runs this on every request).
    private func look() -> DataFolderChange? {
        if let expected = folderIdentity {
            guard let now = Self.status(of: directory) else { return .folderMissing(path: directory) }
            if Identity(now) != expected { return .folderReplaced(path: directory) }
            if let exposure = SecureFile.exposure(of: directory, now) { return .exposed(exposure) }
        } else if let exposure = SecureFile.exposure(of: directory) {
            return .exposed(exposure)
        }
        if let ledgerFile, let expected = ledgerIdentity {
            guard let now = Self.status(of: ledgerFile) else { return .ledgerMissing(path: ledgerFile) }
            if Identity(now) != expected { return .ledgerReplaced(path: ledgerFile) }
            if let exposure = SecureFile.exposure(of: ledgerFile, now) { return .exposed(exposure) }
        }
        for file in privateFiles {
            if let exposure = SecureFile.exposure(of: file) { return .exposed(exposure) }
        }
        return nil
    }

    private static func identity(of path: String) -> Identity? {
        status(of: path).map(Identity.init)
    }

    private static func status(of path: String) -> stat? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info
    }
}
