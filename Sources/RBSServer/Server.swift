import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import RBSCore
import RBSLedger
import ServiceLifecycle

/// `rbs-host serve`: the same plugin operations as the REPL, served over HTTP to customers' web and mobile clients.
///
/// Built from the host's ``Runtime`` (plugins listed with trust and cache, as the REPL) and its ``Ledger``; the
/// routes are in ``Routes``, what they do in ``OnlineBank``. `run` serves until SIGTERM or SIGINT, then shuts down
/// gracefully: open clients are told, signings in progress finish, open runs are closed, then the HTTP server
/// stops after the requests in flight.
package final class Server: Sendable {
    package let bank: OnlineBank
    let web: WebFiles
    let metrics = ServerMetrics()
    let log: @Sendable (String) -> Void
    /// TLS and the slow-client deadlines.
    let http: HTTPOptions
    /// The origin `--origin` named (state-changing requests may come from it as well as from the request's own).
    let publicOrigin: String?

    /// - Parameter log: where the request log's lines go (one per request).
    /// - Parameter origin: the origin passkeys are bound to; nil: `http://localhost:PORT` of the listening port.
    /// - Parameter note: the operator's notes apart from the request log (why a passkey was refused).
    /// - Parameter http: TLS (`--tls-cert`, `--tls-key`) and the slow-client deadlines.
    package init(runtime: Runtime, ledger: Ledger, limits: OnlineBank.Limits = .init(), origin: RelyingParty? = nil,
                 http: HTTPOptions = .init(), clock: @escaping @Sendable () -> Date = { Date() },
                 log: @escaping @Sendable (String) -> Void = { print($0) },
                 note: @escaping @Sendable (String) -> Void = { _ in }) throws(ServerError) {
        bank = OnlineBank(runtime: runtime, ledger: ledger, limits: limits, origin: origin, clock: clock, note: note)
        web = try WebFiles.bundled()
        self.log = log
        self.http = http
        publicOrigin = origin?.origin
    }

    /// The router with every route; `hello` adds `GET /hello` (a constant answer: the ceiling the benchmark compares with).
    package func router(hello: Bool = false) -> Router<APIContext> {
        let router = Routes.build(bank: bank, web: web, metrics: metrics, log: log, tls: http.tls != nil, publicOrigin: publicOrigin)
        if hello { router.get("/hello") { _, _ in "Hello, world!" } }
        return router
    }

    /// The Hummingbird application listening on `host:port`.
    package func application(host: String, port: Int, hello: Bool = false,
                             onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        var logger = Logger(label: "rbs-host.serve")
        logger.logLevel = .warning
        let scheme = http.tls == nil ? "http" : "https"
        return Application(router: router(hello: hello), server: serverBuilder(),
                           configuration: .init(address: .hostname(host, port: port), serverName: "rbs-host"),
                           onServerRunning: { [bank] channel in
                               let port = channel.localAddress?.port ?? port
                               bank.useDefaultOrigin(port: port, scheme: scheme)
                               await onRunning(port)
                           },
                           logger: logger)
    }

    /// HTTP/1.1, over TLS when configured, with the slow-client deadlines on every connection.
    private func serverBuilder() -> HTTPServerBuilder {
        let timeouts = http.timeouts
        let configuration = HTTP1Channel.Configuration(additionalChannelHandlers: [ConnectionDeadlines(timeouts)])
        guard let tls = http.tls else { return .http1(configuration: configuration) }
        // The configuration was checked when it was loaded (``ServerTLS/load(certificate:key:)``).
        return HTTPServerBuilder { responder in
            try TLSChannel(HTTP1Channel(responder: responder, configuration: configuration), tlsConfiguration: tls)
        }
    }

    /// Serves until SIGTERM or SIGINT, then shuts down gracefully (see the type's description).
    package func run(host: String, port: Int, hello: Bool = false, onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        var logger = Logger(label: "rbs-host.serve")
        logger.logLevel = .warning
        let app = application(host: host, port: port, hello: hello, onRunning: onRunning)
        // Services shut down in reverse order: first the notice (clients told, signings finished, runs closed), then
        // the HTTP server, which waits for the requests in flight — the event streams have ended by then.
        let group = ServiceGroup(services: [app, ShutdownNotice(bank: bank)],
                                 gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        try await group.run()
    }

    /// `HOST:PORT` (`:PORT` listens on every address).
    package static func parse(listen: String) throws(ServerError) -> (host: String, port: Int) {
        guard let colon = listen.lastIndex(of: ":") else { throw .badListen(listen) }
        var host = String(listen[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard let port = Int(listen[listen.index(after: colon)...]), (0...65535).contains(port) else { throw .badListen(listen) }
        return (host.isEmpty ? "0.0.0.0" : host, port)
    }
}

/// Waits for the graceful shutdown, then tells clients and finishes signings (see ``OnlineBank/shutdown(timeout:)``).
struct ShutdownNotice: Service {
    let bank: OnlineBank

    func run() async throws {
        try? await gracefulShutdown()
        await bank.shutdown()
    }
}
