import Foundation
import Hummingbird
import NIOCore

/// The web client's files and the OpenAPI document, read once from the target's resources (`Web/`,
/// `openapi.json`) and served from memory.
package struct WebFiles: Sendable {
    private let files: [String: (type: String, bytes: ByteBuffer)]

    /// Reads the bundled files; a missing one is an error naming it (the build is incomplete).
    package static func bundled() throws(ServerError) -> WebFiles {
        let names: [(String, String, String?)] = [
            ("index.html", "text/html; charset=utf-8", "Web"), ("app.js", "text/javascript; charset=utf-8", "Web"),
            ("app.css", "text/css; charset=utf-8", "Web"), ("openapi.json", "application/json", nil),
        ]
        var files: [String: (String, ByteBuffer)] = [:]
        for (name, type, folder) in names {
            let url = folder.map { Bundle.module.resourceURL?.appendingPathComponent($0).appendingPathComponent(name) }
                ?? Bundle.module.resourceURL?.appendingPathComponent(name)
            guard let url, let data = try? Data(contentsOf: url) else {
                throw .missingResource(name)
            }
            files[name] = (type, ByteBuffer(bytes: data))
        }
        return WebFiles(files: files)
    }

    func response(_ name: String) -> Response {
        guard let file = files[name] else { return Routes.problem(.notFound("there is no \(name)")) }
        return Response(status: .ok, headers: [.contentType: file.type, .cacheControl: "no-cache"], body: .init(byteBuffer: file.bytes))
    }
}

/// Why `serve` could not start.
package enum ServerError: Error, CustomStringConvertible, Sendable {
    case missingResource(String)
    case badListen(String)
    case ledger(String)
    /// The TLS certificate or key of `serve` cannot be used (the message names the file).
    case tls(String)

    package var description: String {
        switch self {
        case .missingResource(let name): "the server's resource \(name) is missing next to the executable — rebuild rbs-host"
        case .badListen(let text): "--listen '\(text)' is not HOST:PORT (e.g. 127.0.0.1:8080, or :8080 for every address)"
        case .ledger(let detail): detail
        case .tls(let detail): detail
        }
    }
}
