import Foundation

/// One server-sent event: its name and a JSON object as data.
package struct ServerEvent: Sendable, Equatable {
    package var name: String
    package var data: [String: String]

    /// A comment line that keeps an idle stream open through proxies (clients ignore it).
    static let keepAlive = ServerEvent(name: "", data: [:])

    /// The event as the `text/event-stream` format writes it (``keepAlive`` as the comment `: keep-alive`).
    var wire: String {
        if name.isEmpty { return ": keep-alive\n\n" }
        let json = (try? JSONSerialization.data(withJSONObject: data, options: [.sortedKeys]))
            .map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return "event: \(name)\ndata: \(json)\n\n"
    }
}

/// The open event streams (`GET /api/v1/events`), per customer: captions a plugin set (the bank's name after a
/// BIC), hot-reload notices, and the server's shutdown. A customer's events reach only that customer's streams.
final class EventHub: @unchecked Sendable {
    /// Seconds between keep-alive comments on a stream with nothing to say, so proxies (which drop connections
    /// idle for 30–60 s) keep it open.
    let keepAlive: TimeInterval
    private let lock = NSLock()
    private var streams: [Int64: [UUID: AsyncStream<ServerEvent>.Continuation]] = [:]
    private var closed = false

    init(keepAlive: TimeInterval = 15) { self.keepAlive = keepAlive }

    /// A new stream for customer `id`; it ends when the client goes away or the server shuts down. Every
    /// ``keepAlive`` seconds it carries ``ServerEvent/keepAlive``.
    func subscribe(customer id: Int64) -> AsyncStream<ServerEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: ServerEvent.self, bufferingPolicy: .bufferingNewest(256))
        let key = UUID()
        let accepted = lock.withLock { () -> Bool in
            guard !closed else { return false }
            streams[id, default: [:]][key] = continuation
            return true
        }
        guard accepted else {
            continuation.yield(ServerEvent(name: "shutdown", data: ["message": "the server is shutting down"]))
            continuation.finish()
            return stream
        }
        let nanoseconds = UInt64(keepAlive * 1_000_000_000)
        let ticker = Task {
            while true {
                try await Task.sleep(nanoseconds: nanoseconds)
                continuation.yield(.keepAlive)
            }
        }
        continuation.onTermination = { [weak self] _ in
            ticker.cancel()
            self?.lock.withLock { _ = self?.streams[id]?.removeValue(forKey: key) }
        }
        return stream
    }

    /// Sends `event` to every stream of customer `id`.
    func publish(_ event: ServerEvent, to id: Int64) {
        for continuation in lock.withLock({ Array((streams[id] ?? [:]).values) }) { continuation.yield(event) }
    }

    /// Sends `event` to every stream.
    func broadcast(_ event: ServerEvent) {
        for continuation in lock.withLock({ streams.values.flatMap(\.values) }) { continuation.yield(event) }
    }

    /// The number of open streams.
    var count: Int { lock.withLock { streams.values.reduce(0) { $0 + $1.count } } }

    /// Tells every stream the server is going and ends them; later subscriptions end at once.
    func shutdown(message: String) {
        let all = lock.withLock { () -> [AsyncStream<ServerEvent>.Continuation] in
            closed = true
            defer { streams = [:] }
            return streams.values.flatMap(\.values)
        }
        for continuation in all {
            continuation.yield(ServerEvent(name: "shutdown", data: ["message": message]))
            continuation.finish()
        }
    }
}
