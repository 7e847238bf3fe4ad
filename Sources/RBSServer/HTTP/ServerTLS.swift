import Foundation
import HummingbirdTLS
import NIOSSL

/// How `serve` speaks HTTP: TLS or not, and the slow-client deadlines.
package struct HTTPOptions: Sendable {
    /// The certificate and key of `serve --tls-cert --tls-key` (see ``ServerTLS/load(certificate:key:)``); nil: plain HTTP.
    package var tls: TLSConfiguration?
    package var timeouts = ConnectionTimeouts()

    package init(tls: TLSConfiguration? = nil, timeouts: ConnectionTimeouts = ConnectionTimeouts()) {
        self.tls = tls
        self.timeouts = timeouts
    }
}

/// `serve --tls-cert FILE --tls-key FILE`: TLS 1.2 and 1.3 by swift-nio-ssl (BoringSSL) through Hummingbird's TLS
/// channel. Both files are read and checked at start, so a wrong one stops `serve` with a message naming it instead
/// of failing every handshake later.
package enum ServerTLS {
    /// The answers' `Strict-Transport-Security`: browsers use https for this host for a year.
    static let hsts = "max-age=31536000"

    /// The server configuration of a PEM certificate chain (the server's certificate first) and its PEM private key.
    package static func load(certificate: String, key: String) throws(ServerError) -> TLSConfiguration {
        let pem = try read(certificate, "--tls-cert")
        guard String(decoding: pem, as: UTF8.self).contains("-----BEGIN CERTIFICATE-----") else {
            throw .tls("--tls-cert \(certificate) holds no PEM certificate (-----BEGIN CERTIFICATE-----)")
        }
        let chain: [NIOSSLCertificate]
        do { chain = try NIOSSLCertificate.fromPEMBytes(pem) } catch {
            throw .tls("--tls-cert \(certificate) is not a readable PEM certificate: \(error)")
        }
        guard !chain.isEmpty else {
            throw .tls("--tls-cert \(certificate) holds no PEM certificate (-----BEGIN CERTIFICATE-----)")
        }
        let keyBytes = try read(key, "--tls-key")
        let privateKey: NIOSSLPrivateKey
        do { privateKey = try NIOSSLPrivateKey(bytes: keyBytes, format: .pem) } catch {
            throw .tls("--tls-key \(key) is not an unencrypted PEM private key (-----BEGIN PRIVATE KEY-----): \(error)")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) },
                                                                     privateKey: .privateKey(privateKey))
        configuration.minimumTLSVersion = .tlsv12
        // BoringSSL checks here that the key belongs to the certificate.
        do { _ = try NIOSSLContext(configuration: configuration) } catch {
            throw .tls("--tls-key \(key) is not the private key of the certificate in --tls-cert \(certificate) (\(error))")
        }
        return configuration
    }

    private static func read(_ path: String, _ option: String) throws(ServerError) -> [UInt8] {
        guard FileManager.default.fileExists(atPath: path) else { throw .tls("\(option) \(path): no such file") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .tls("\(option) \(path): cannot be read (check its permissions)")
        }
        return Array(data)
    }
}
