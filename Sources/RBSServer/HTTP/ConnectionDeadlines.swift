import Foundation
import NIOCore
import NIOHTTPTypes

/// How long `serve` waits for a client before it closes the connection (`--header-timeout`, `--body-timeout`,
/// `--idle-timeout`): a client that sends half its headers, or nothing, or trickles a body, holds a connection only
/// that long.
package struct ConnectionTimeouts: Sendable, Equatable {
    /// Seconds from a new connection to the end of its first request's head (request line and headers).
    package var header: TimeInterval = 10
    /// Seconds from the end of a request's head to the end of its body.
    package var body: TimeInterval = 30
    /// Seconds a kept-alive connection may wait, after an answer, for the next request's head to be complete.
    package var idle: TimeInterval = 60

    package init() {}

    package init(header: TimeInterval, body: TimeInterval, idle: TimeInterval) {
        self.header = header
        self.body = body
        self.idle = idle
    }

    static func amount(_ seconds: TimeInterval) -> TimeAmount { .milliseconds(Int64((seconds * 1000).rounded(.up))) }
}

/// Closes a connection whose client is too slow (see ``ConnectionTimeouts``). It sits after the HTTP decoder, so it
/// sees whole request parts: a head not complete in time (bytes that never finish a request line and headers count
/// as nothing), a body not ended in time, or no next request after an answer. While the server is answering (a
/// signing, an event stream) no deadline runs: the server, not the client, is taking the time.
final class ConnectionDeadlines: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let timeouts: ConnectionTimeouts
    /// Requests whose head was read and whose answer has not ended yet.
    private var unanswered = 0
    private var readingBody = false
    private var deadline: Scheduled<Void>?

    init(_ timeouts: ConnectionTimeouts) { self.timeouts = timeouts }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(timeouts.header, context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) { disarm() }

    func channelActive(context: ChannelHandlerContext) {
        if deadline == nil { arm(timeouts.header, context) }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        disarm()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            unanswered += 1
            readingBody = true
            arm(timeouts.body, context)
        case .body:
            break
        case .end:
            readingBody = false
            disarm()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            unanswered = max(0, unanswered - 1)
            // Answered before the body was read (a refusal): the body's deadline keeps running.
            if unanswered == 0, !readingBody { arm(timeouts.idle, context) }
        }
        context.write(data, promise: promise)
    }

    private func arm(_ seconds: TimeInterval, _ context: ChannelHandlerContext) {
        disarm()
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: ConnectionTimeouts.amount(seconds)) {
            self.deadline = nil
            context.close(promise: nil)
        }
    }

    private func disarm() {
        deadline?.cancel()
        deadline = nil
    }
}
