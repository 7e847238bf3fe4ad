import Foundation

/// One server-sent event: its name and a JSON object as data.
package struct ServerEvent: Sendable, Equatable {
    package var name: String
    package var data: [String: String]

    /// The event as the `text/event-stream` format writes it.
    var wire: String {
        let json = (try? JSONSerialization.data(withJSONObject: data, options: [.sortedKeys]))
            .map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return "event: \(name)\ndata: \(json)\n\n"
    }
}

/// The open event streams (`GET /api/v1/events`), per customer: captions a plugin set (the bank's name after a
/// BIC), hot-reload notices, and the server's shutdown. A customer's events reach only that customer's streams.
final class EventHub: @unchecked Sendable {
    private let lock = NSLock()
    private var streams: [Int64: [UUID: AsyncStream<ServerEvent>.Continuation]] = [:]
    private var closed = false

    /// A new stream for customer `id`; it ends when the client goes away or the server shuts down.
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
        continuation.onTermination = { [weak self] _ in
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
