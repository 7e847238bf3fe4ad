import Foundation
import Hummingbird
@testable import RBSServer
import Testing

@Suite("serve: health, metrics, the web client, the log, shutdown", .serialized)
struct OperationsTests {
    @Test("/health, /metrics (Prometheus), the OpenAPI document as kept in the repo, the web client with a CSP")
    func endpoints() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let health = try await api.call(.get, "/health")
            #expect(health.status == 200 && health.object["status"] as? String == "ok")
            _ = try await api.call(.get, "/nowhere")
            let metrics = try await api.call(.get, "/metrics")
            #expect(metrics.contentType?.hasPrefix("text/plain; version=0.0.4") == true)
            #expect(metrics.text.contains("rbs_http_requests_total{method=\"GET\",route=\"/health\",status=\"200\"} 1"))
            #expect(metrics.text.contains("rbs_http_requests_total{method=\"GET\",route=\"other\",status=\"404\"} 1"))
            #expect(metrics.text.contains("rbs_open_runs 0"))

            let document = try await api.call(.get, "/api/v1/openapi.json")
            let repo = try Data(contentsOf: TestBank.plugins.deletingLastPathComponent().appendingPathComponent("Sources/RBSServer/openapi.json"))
            #expect(Data(document.body.readableBytesView) == repo)
            #expect(document.object["openapi"] as? String == "3.0.3")

            let page = try await api.call(.get, "/")
            #expect(page.contentType == "text/html; charset=utf-8")
            #expect(page.text.contains("<script src=\"/app.js\" defer></script>"))
            #expect(page.headers.first(where: { $0.name.canonicalName == "content-security-policy" })?.value.contains("script-src 'self'") == true)
            #expect(try await api.call(.get, "/app.js").contentType == "text/javascript; charset=utf-8")

            let missing = try await api.call(.get, "/nowhere")
            #expect(missing.status == 404 && missing.contentType == "application/problem+json")
        }
    }

    @Test("one Common Log Format line per request, with the status, size and duration")
    func requestLog() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            _ = try await api.call(.get, "/health")
            _ = try await api.call(.post, "/api/v1/session", json: ["customer": "alice", "password": "nope"])
            _ = try await api.call(.get, "/nowhere?q=%22%0A")
        }
        let lines = bank.log
        #expect(lines.count == 3)
        let pattern = #/^127\.0\.0\.1 - - \[\d{2}/[A-Z][a-z]{2}/\d{4}:\d{2}:\d{2}:\d{2} \+0000\] "(GET|POST) \S+ HTTP/1\.1" \d{3} (\d+|-) \d+\.\d{6}$/#
        for line in lines { #expect(line.wholeMatch(of: pattern) != nil, "\(line)") }
        #expect(lines[0].contains("\"GET /health HTTP/1.1\" 200 "))
        #expect(lines[1].contains("\"POST /api/v1/session HTTP/1.1\" 401 "))
    }

    @Test("shutdown: open event streams are told and end, open runs are closed")
    func shutdown() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let token = try await api.login(bank.alice)
            _ = try await api.open("pay.pp.quick", token)
            let events = bank.server.bank.events.subscribe(customer: bank.alice.customer.id)
            await bank.server.bank.shutdown(timeout: 5)
            var received: [String] = []
            for await event in events { received.append(event.name) }
            #expect(received == ["shutdown"])
            #expect(bank.server.bank.openRuns == 0)
        }
    }

    @Test("a plugin's lane runs one call at a time")
    func laneIsSerial() async throws {
        let lane = PluginLane(label: "test")
        let counter = Concurrency()
        let scope = CustomerScope(customer: try TestBank().alice.customer) { [] }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<32 {
                group.addTask {
                    try await lane.run(for: scope) {
                        counter.enter()
                        usleep(2_000)
                        counter.leave()
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(counter.maximum == 1)
    }
}

final class Concurrency: @unchecked Sendable {
    private let lock = NSLock()
    private var current = 0
    private(set) var maximum = 0
    func enter() { lock.withLock { current += 1; maximum = max(maximum, current) } }
    func leave() { lock.withLock { current -= 1 } }
}
