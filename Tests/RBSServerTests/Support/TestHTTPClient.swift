import HTTPTypes
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import NIOPosix
import NIOSSL
import RBSServer
import ServiceLifecycle

/// The tests' HTTP/1.1 client of a server on a loopback socket: one request, one connection, the whole answer.
///
/// Hummingbird's test module did this before, and brought AsyncHTTPClient, HTTP/2, SOCKS and compression into every
/// clean build of the tests for the few requests a test sends. What the tests need is small: concurrent requests (a
/// connection each, so 40 logins at once are 40 connections, as a browser or an attacker would open), https with the
/// test's self-signed certificate, and the status, headers and body.
struct TestHTTPClient: Sendable {
    /// How the client reaches the server: plain HTTP, or TLS for a server given a certificate (`HTTPOptions.tls`).
    enum Scheme: String, Sendable {
        case http
        case https
    }

    /// One answer, read to its end.
    struct Response: Sendable {
        let status: HTTPResponse.Status
        let headers: HTTPFields
        let body: ByteBuffer
    }

    /// The port the server listens on (on 127.0.0.1): the raw-socket tests connect there too.
    let port: Int
    let scheme: Scheme
    /// The client side of TLS; it trusts any certificate, as the test's own self-signed one is all it meets.
    private let tls: NIOSSLContext?
    /// How long a request may take from connecting to its last byte before it fails (a hung server fails the test).
    private let timeout: TimeAmount

    init(port: Int, scheme: Scheme, timeout: TimeAmount = .seconds(20)) throws {
        self.port = port
        self.scheme = scheme
        self.timeout = timeout
        switch scheme {
        case .http:
            tls = nil
        case .https:
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.certificateVerification = .none
            tls = try NIOSSLContext(configuration: configuration)
        }
    }

    /// Sends one request on a connection of its own and reads the answer to its end; the connection is closed then.
    /// `Host` is `localhost` (no port): the server's same-origin check compares `Origin` with it.
    func execute(_ method: HTTPRequest.Method, _ path: String, headers: HTTPFields = [:], body: ByteBuffer? = nil)
        async throws -> Response {
        let tls = self.tls
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(timeout)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    if let tls { try pipeline.addHandler(NIOSSLClientHandler(context: tls, serverHostname: "localhost")) }
                    try pipeline.addHTTPClientHandlers()
                    try pipeline.addHandler(HTTP1ToHTTPClientCodec())
                    return try NIOAsyncChannel<HTTPResponsePart, HTTPRequestPart>(wrappingChannelSynchronously: channel)
                }
            }
        // Closing the channel at the deadline ends the read below with an error instead of waiting forever.
        let deadline = channel.channel.eventLoop.scheduleTask(in: timeout) { channel.channel.close(promise: nil) }
        defer { deadline.cancel() }
        let request = HTTPRequest(method: method, scheme: scheme.rawValue, authority: "localhost", path: path, headerFields: headers)
        return try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(.head(request))
            if let body { try await outbound.write(.body(body)) }
            try await outbound.write(.end(nil))
            var head: HTTPResponse?
            var received = ByteBuffer()
            for try await part in inbound {
                switch part {
                case .head(let response):
                    head = response
                case .body(var bytes):
                    received.writeBuffer(&bytes)
                case .end:
                    guard let head else { throw TestFailure("\(method) \(path): the answer ended before its head") }
                    return Response(status: head.status, headers: head.headerFields, body: received)
                }
            }
            throw TestFailure("\(method) \(path): the connection closed before the answer ended (or after \(timeout))")
        }
    }

    /// Serves `server`'s application on an ephemeral port of 127.0.0.1 while `body` runs with a client of it, then
    /// shuts the server down gracefully (it waits for requests in flight), whether `body` returned or threw.
    static func serving<Value: Sendable>(_ server: Server, _ scheme: Scheme,
                                         _ body: @Sendable (TestHTTPClient) async throws -> Value) async throws -> Value {
        let (ports, listening) = AsyncStream.makeStream(of: Int.self)
        let application = server.application(host: "127.0.0.1", port: 0) { port in
            listening.yield(port)
            listening.finish()
        }
        var logger = Logger(label: "rbs-host.test")
        logger.logLevel = .warning
        let services = ServiceGroup(configuration: .init(services: [application], logger: logger))
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                // A server that fails to start (its port taken, say) ends the wait for its port with its error.
                defer { listening.finish() }
                try await services.run()
            }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else {
                try await group.next()
                throw TestFailure("the server stopped before it listened")
            }
            do {
                let value = try await body(TestHTTPClient(port: port, scheme: scheme))
                await services.triggerGracefulShutdown()
                try await group.waitForAll()
                return value
            } catch {
                await services.triggerGracefulShutdown()
                throw error
            }
        }
    }
}
