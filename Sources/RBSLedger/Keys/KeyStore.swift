import Crypto
import Foundation

/// The user's signing key and TOTP secret, as files in the data directory (mode 0600, directory 0700).
///
/// Files: `signing.key` (the raw 32-byte Ed25519 private key), `totp.secret` (the raw 20-byte TOTP secret),
/// `signing.name` (the enrolment name, UTF-8).
public struct KeyStore: Sendable {
    public let dataDirectory: URL

    public init(dataDirectory: URL) {
        self.dataDirectory = dataDirectory
        // Made once: building a URL is a noticeable part of loading the keys, which every batch does.
        signingKeyURL = dataDirectory.appendingPathComponent("signing.key")
        totpSecretURL = dataDirectory.appendingPathComponent("totp.secret")
        nameURL = dataDirectory.appendingPathComponent("signing.name")
    }

    let signingKeyURL: URL
    let totpSecretURL: URL
    let nameURL: URL

    /// Creates a new Ed25519 key and a random 20-byte TOTP secret; refuses to replace existing keys unless `force`.
    public func initialize(name: String, force: Bool) throws(KeyStoreError) -> Enrolment {
        guard !name.isEmpty, !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw .invalidName(name)
        }
        if !force, FileManager.default.fileExists(atPath: signingKeyURL.path) {
            throw .keysExist(path: signingKeyURL.path)
        }
        let privateKey = Curve25519.Signing.PrivateKey()
        var generator = SystemRandomNumberGenerator()
        let secret = Data((0..<20).map { _ in UInt8.random(in: 0...255, using: &generator) })
        do {
            try SecureFile.ensureDirectory(dataDirectory)
            try SecureFile.write(secret, to: totpSecretURL)
            try SecureFile.write(Data(name.utf8), to: nameURL)
            // The key last: its presence is what says "initialised".
            try SecureFile.write(privateKey.rawRepresentation, to: signingKeyURL)
        } catch {
            switch error { case .system(let detail): throw .io(detail) }
        }
        return Enrolment(
            name: name, keyId: SigningIdentity.keyId(of: privateKey.publicKey),
            publicKey: privateKey.publicKey.rawRepresentation, totpSecret: secret)
    }

    /// Loads the key and secret, checking that each file exists, is private (no group/other bits) and is whole.
    public func load() throws(KeyStoreError) -> SigningIdentity {
        let keyBytes = try read(signingKeyURL, length: 32)
        let secret = try read(totpSecretURL, length: 20)
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
        return SigningIdentity(name: name, privateKey: privateKey, totpSecret: secret)
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
