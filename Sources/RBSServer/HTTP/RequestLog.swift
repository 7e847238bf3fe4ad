import Foundation
import Hummingbird
import HTTPTypes
import NIOCore
import Prometheus

/// Wraps every request: one line in the Common Log Format (with the duration in seconds appended) on `write`,
/// Prometheus counters and a latency histogram, the security headers (content security policy and friends), and
/// errors the router or Hummingbird throw (no such route, method not allowed, body too large) turned into RFC 9457
/// problems like the API's own.
struct RequestLog: RouterMiddleware {
    typealias Context = APIContext

    let write: @Sendable (String) -> Void
    let metrics: ServerMetrics
    /// Served over TLS: every answer tells the browser to use https only (HSTS).
    var tls = false
    /// The routes registered, to tell a path under another method (405) from no path at all (404).
    var routes: RouteTable? = nil

    func handle(_ request: Request, context: APIContext, next: (Request, APIContext) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = Self.problem(for: error, request: request, allowed: routes?.methods(for: request.uri.path) ?? [])
        } catch let problem as Problem {
            response = Routes.problem(problem)
        } catch {
            response = Routes.problem(.internalError("\(error)"))
        }
        Self.secure(&response.headers)
        if tls { response.headers[.strictTransportSecurity] = ServerTLS.hsts }
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let route = Self.route(request.uri.path)
        metrics.observe(method: request.method.rawValue, route: route, status: response.status.code, seconds: seconds)
        let size = response.body.contentLength.map(String.init) ?? "-"
        write("\(context.remoteAddress) - - [\(Self.timestamp())] \"\(request.method.rawValue) \(Self.clean(request.uri.description)) HTTP/1.1\" \(response.status.code) \(size) \(Self.seconds(elapsed))")
        return response
    }

    /// `elapsed` in seconds with six decimals, as `String(format: "%.6f")` wrote it (without Foundation's printf on
    /// every request).
    static func seconds(_ elapsed: Duration) -> String {
        let micro = max(0, elapsed.components.seconds) * 1_000_000
            + (max(0, elapsed.components.attoseconds) + 500_000_000_000) / 1_000_000_000_000
        let fraction = String(micro % 1_000_000)
        return "\(micro / 1_000_000)." + String(repeating: "0", count: 6 - fraction.count) + fraction
    }

    /// The headers every answer carries: the web client's scripts and styles come from this server only.
    static func secure(_ headers: inout HTTPFields) {
        headers[HTTPField.Name("Content-Security-Policy")!] =
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        if headers[.cacheControl] == nil { headers[.cacheControl] = "no-store" }
    }

    /// The problem of `error`; a 404 for a path registered under other methods only (`allowed`) is the 405 it is,
    /// naming them in `Allow` (RFC 9110, 15.5.6).
    static func problem(for error: any HTTPResponseError, request: Request, allowed: [HTTPRequest.Method] = []) -> Response {
        var status = Int(error.status.code)
        if status == 404, !allowed.isEmpty, !allowed.contains(request.method) { status = 405 }
        let problem: Problem
        switch status {
        case 404: problem = .notFound("there is nothing at \(clean(request.uri.path))")
        case 405:
            let allow = RouteTable.allow(allowed)
            problem = Problem("method-not-allowed", "Method not allowed", status: 405,
                              detail: "\(request.method.rawValue) is not allowed on \(clean(request.uri.path))"
                                + (allow.isEmpty ? "" : "; it takes \(allow)"))
            var response = Routes.problem(problem)
            if !allow.isEmpty { response.headers[.allow] = allow }
            return response
        case 413: problem = Problem("too-large", "The request body is too large", status: 413, detail: "send at most 64 KB")
        case 400..<500: problem = Problem("bad-request", "Bad request", status: status, detail: "\(error)")
        default: problem = .internalError("\(error)")
        }
        return Routes.problem(problem)
    }

    /// The path with ids replaced, so metrics have few series: /api/v1/runs/{run}/atoms/{atom}.
    static func route(_ path: String) -> String {
        var parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        for index in parts.indices.dropFirst() {
            if parts[index - 1] == "runs", index > 0 { parts[index] = "{run}" }
            if parts[index - 1] == "atoms", index > 0 { parts[index] = "{atom}" }
        }
        let known = ["/", "/health", "/metrics", "/app.js", "/app.css", "/api/v1/openapi.json", "/api/v1/session",
                     "/api/v1/operations", "/api/v1/accounts", "/api/v1/cards", "/api/v1/journal", "/api/v1/events", "/api/v1/runs"]
        let joined = parts.joined(separator: "/")
        return known.contains(joined) || joined.hasPrefix("/api/v1/runs/{run}") ? joined : "other"
    }

    /// Control characters and quotes out of what a client wrote, so one request is one log line.
    static func clean(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.prefix(2000).map {
            $0.value < 0x20 || $0.value == 0x7F || $0 == "\"" ? "?" : $0
        }))
    }

    /// The Common Log Format's time in UTC, `25/Nov/2026:14:53:49 +0000`. Written from the calendar fields
    /// (`gmtime_r`), not through a `DateFormatter`: making one for every request cost more than many of the requests
    /// themselves (a few percent of the server's time under load), and one shared formatter is not safe to use from
    /// several threads at once.
    static func timestamp(_ date: Date = Date()) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var fields = tm()
        gmtime_r(&seconds, &fields)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let month = months[Int(max(0, min(11, fields.tm_mon)))]
        return "\(two(fields.tm_mday))/\(month)/\(fields.tm_year + 1900):\(two(fields.tm_hour)):\(two(fields.tm_min)):\(two(fields.tm_sec)) +0000"
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
}

/// The server's Prometheus metrics (`GET /metrics`): requests by method, route and status, their durations, and
/// gauges read at scrape time (open runs, event streams).
package final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private nonisolated(unsafe) static let requests = MetricNameDescriptor(namespace: "rbs", subsystem: "http", metricName: "requests", unitName: "total",
                                                       helpText: "HTTP requests answered, by method, route and status")
    private nonisolated(unsafe) static let durations = MetricNameDescriptor(namespace: "rbs", subsystem: "http", metricName: "request_duration", unitName: "seconds",
                                                        helpText: "Time from the request to the answer's head, by route")
    /// `rbs_<name>`, a count with no unit.
    private static func gauge(_ name: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "rbs", metricName: name, unitName: "", helpText: help)
    }
    private static let buckets: [Duration] = [.microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5),
                                               .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
                                               .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(5)]

    func observe(method: String, route: String, status: Int, seconds: Double) {
        registry.makeCounter(descriptor: Self.requests, labels: [("method", method), ("route", route), ("status", String(status))])
            .increment()
        registry.makeDurationHistogram(descriptor: Self.durations, labels: [("route", route)], buckets: Self.buckets)
            .recordNanoseconds(Int64(seconds * 1e9))
    }

    /// The text exposition format.
    func text(openRuns: Int, streams: Int, plugins: Int) -> String {
        registry.makeGauge(descriptor: Self.gauge("open_runs", "Runs of operations open now")).set(Double(openRuns))
        registry.makeGauge(descriptor: Self.gauge("event_streams", "Server-sent event streams open now")).set(Double(streams))
        registry.makeGauge(descriptor: Self.gauge("plugins", "Plugin files listed")).set(Double(plugins))
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }
}
