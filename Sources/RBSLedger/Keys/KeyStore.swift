import Crypto
import Foundation

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
    public func load() throws(KeyStoreError) -> SigningIdentity {
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
