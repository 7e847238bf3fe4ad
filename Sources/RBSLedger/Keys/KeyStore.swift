import Crypto
import Foundation
import Synchronization

/// The user's signing key and one-time code secret, as files in the data directory (mode 0600, directory 0700).
///
/// Files: `signing.key` (the raw 32-byte Ed25519 private key), `signing.name` (the enrolment name, UTF-8), and
/// either `totp.secret` (the raw 20-byte TOTP secret) or `ocra.suite` (the OCRA suite, text) with `ocra.secret`
/// (the raw OCRA secret, as long as the suite's hash: 20, 32 or 64 bytes). `ocra.suite` present means OCRA.
public struct KeyStore: Sendable {
    public let dataDirectory: URL

    public init(dataDirectory: URL) {
        self.dataDirectory = dataDirectory
        // Made once: building a URL is a noticeable part of loading the keys, which every batch does.
        signingKeyURL = dataDirectory.appendingPathComponent("signing.key")
        totpSecretURL = dataDirectory.appendingPathComponent("totp.secret")
        nameURL = dataDirectory.appendingPathComponent("signing.name")
        ocraSuiteURL = dataDirectory.appendingPathComponent("ocra.suite")
        ocraSecretURL = dataDirectory.appendingPathComponent("ocra.secret")
    }

    let signingKeyURL: URL
    let totpSecretURL: URL
    let nameURL: URL
    let ocraSuiteURL: URL
    let ocraSecretURL: URL
    /// The identity ``load()`` read last, with what each of its files was then.
    private let loaded = LoadedIdentity()

    /// Creates a new Ed25519 key and a random secret for the method: a 20-byte TOTP secret, or with `ocra` an OCRA
    /// secret as long as the suite's hash (the suite must be one the host can sign with, see
    /// ``OCRASuite/checkSigningUse()``); refuses to replace existing keys unless `force`.
    public func initialize(name: String, force: Bool, ocra: OCRASuite? = nil) throws(KeyStoreError) -> Enrolment {
        guard !name.isEmpty, !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw .invalidName(name)
        }
        if !force, FileManager.default.fileExists(atPath: signingKeyURL.path) {
            throw .keysExist(path: signingKeyURL.path)
        }
        if let ocra {
            do { try ocra.checkSigningUse() } catch { throw .unsupportedSuite(error.description) }
        }
        let privateKey = Curve25519.Signing.PrivateKey()
        var generator = SystemRandomNumberGenerator()
        let secret = Data((0..<(ocra?.secretLength ?? 20)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let authenticator: Authenticator = ocra.map { .ocra(suite: $0, secret: secret) } ?? .totp(secret: secret)
        do {
            try SecureFile.ensureDirectory(dataDirectory)
            // The other method's files go first, so a half-done enrolment never looks like the old method.
            for url in ocra == nil ? [ocraSuiteURL, ocraSecretURL] : [totpSecretURL] where SecureFile.mode(of: url) != nil {
                do { try FileManager.default.removeItem(at: url) } catch { throw KeyStoreError.io("cannot remove \(url.path): \(error.localizedDescription)") }
            }
            if let ocra {
                try SecureFile.write(secret, to: ocraSecretURL)
                try SecureFile.write(Data(ocra.text.utf8), to: ocraSuiteURL)
            } else {
                try SecureFile.write(secret, to: totpSecretURL)
            }
            try SecureFile.write(Data(name.utf8), to: nameURL)
            // The key last: its presence is what says "initialised".
            try SecureFile.write(privateKey.rawRepresentation, to: signingKeyURL)
        } catch let error as KeyStoreError {
            throw error
        } catch let error as SecureFile.Failure {
            switch error { case .system(let detail): throw .io(detail) }
        } catch {
            throw .io(String(describing: error))
        }
        return Enrolment(
            name: name, keyId: SigningIdentity.keyId(of: privateKey.publicKey),
            publicKey: privateKey.publicKey.rawRepresentation, authenticator: authenticator)
    }

    /// Loads the key and secret, checking that each file exists, is private (no group/other bits) and is whole.
    ///
    /// Every batch and every payment loads them. The files are read and the key derived again only when one of them
    /// is not what it was at the last load (its inode, size, times, mode or owner: any write, rename, chmod or chown
    /// changes one) or was changed in the last seconds (``LoadedIdentity/keep(_:_:)``), so an identity is never used
    /// past a change of its files; each call still stats every file.
    public func load() throws(KeyStoreError) -> SigningIdentity {
        // Taken before reading: a file changed while it is read differs from its stamp at the next load.
        let stamps = [signingKeyURL, ocraSuiteURL, ocraSecretURL, totpSecretURL, nameURL].map(FileStamp.init(of:))
        if let identity = loaded.identity(stamps) { return identity }
        let identity = try read()
        loaded.keep(identity, stamps)
        return identity
    }

    /// ``load()`` from the files themselves.
    private func read() throws(KeyStoreError) -> SigningIdentity {
        let keyBytes = try read(signingKeyURL, length: 32)
        let authenticator: Authenticator
        if SecureFile.mode(of: ocraSuiteURL) != nil {
            let suiteText = String(decoding: try read(ocraSuiteURL, length: nil), as: UTF8.self)
            let suite: OCRASuite
            do { suite = try OCRASuite(suiteText) } catch {
                throw .corrupt(path: ocraSuiteURL.path, detail: error.description)
            }
            authenticator = .ocra(suite: suite, secret: try read(ocraSecretURL, length: suite.secretLength))
        } else {
            authenticator = .totp(secret: try read(totpSecretURL, length: 20))
        }
        let nameBytes = try read(nameURL, length: nil)
        let privateKey: Curve25519.Signing.PrivateKey
        do {
            privateKey = try Curve25519.Signing.PrivateKey(rawRepresentation: keyBytes)
        } catch {
            throw .corrupt(path: signingKeyURL.path, detail: "not an Ed25519 private key")
        }
        guard let name = String(data: nameBytes, encoding: .utf8), !name.isEmpty else {
            throw .corrupt(path: nameURL.path, detail: "the name is not UTF-8 text")
        }
        return SigningIdentity(name: name, privateKey: privateKey, authenticator: authenticator)
    }

    private func read(_ url: URL, length: Int?) throws(KeyStoreError) -> Data {
        guard let mode = SecureFile.mode(of: url) else {
            if url == signingKeyURL { throw .notInitialized(path: url.path) }
            throw .corrupt(path: url.path, detail: "the file is missing")
        }
        guard mode & 0o077 == 0 else { throw .insecurePermissions(path: url.path, mode: mode) }
        if let exposure = SecureFile.exposure(of: url.path) { throw .notPrivate(exposure) }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw .io("cannot read \(url.path): \(error.localizedDescription)")
        }
        if let length, data.count != length {
            throw .corrupt(path: url.path, detail: "\(data.count) bytes instead of \(length)")
        }
        return data
    }
}

/// What a file was at one moment, as `stat` says (`nil` for a missing file): two equal stamps of a path mean nothing
/// wrote, replaced, renamed over, chmod-ed or chown-ed it in between (each changes the inode or the change time).
/// The key store's cache of its identity and the plugin cache's fingerprints both read files' status through it.
package struct FileStamp: Equatable, Sendable {
    package let device: UInt64
    package let inode: UInt64
    package let size: Int64
    /// `st_mode` whole: the file's type and its permission bits.
    package let mode: UInt32
    package let owner: UInt32
    package let modified: Int64
    package let modifiedNanoseconds: Int
    package let changed: Int64
    package let changedNanoseconds: Int

    init?(of url: URL) {
        self.init(path: url.path)
    }

    /// The file at `path` (symbolic links followed).
    package init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        mode = UInt32(info.st_mode)
        owner = UInt32(info.st_uid)
        modified = Int64(info.st_mtim.tv_sec)
        modifiedNanoseconds = Int(info.st_mtim.tv_nsec)
        changed = Int64(info.st_ctim.tv_sec)
        changedNanoseconds = Int(info.st_ctim.tv_nsec)
    }
}

/// The identity a ``KeyStore`` loaded last and the stamps of its files then (a successful load only: a refusal is
/// decided again at each load).
final class LoadedIdentity: Sendable {
    private let last = Mutex<(stamps: [FileStamp?], identity: SigningIdentity)?>(nil)

    func identity(_ stamps: [FileStamp?]) -> SigningIdentity? {
        last.withLock { last in
            guard let last, last.stamps == stamps else { return nil }
            return last.identity
        }
    }

    /// Kept only when every file was last changed over a second ago: the kernel stamps files from a coarse clock,
    /// so a file written again within the same tick as the stamp was taken could keep its times and size (as git's
    /// "racily clean" index entries); until the files are that old, each load reads them.
    func keep(_ identity: SigningIdentity, _ stamps: [FileStamp?]) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        guard stamps.allSatisfy({ $0.map { $0.changed < Int64(now.tv_sec) - 1 } ?? true }) else {
            last.withLock { $0 = nil }
            return
        }
        last.withLock { $0 = (stamps, identity) }
    }
}
