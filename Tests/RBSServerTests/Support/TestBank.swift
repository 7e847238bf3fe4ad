import Foundation
import Testing
import HTTPTypes
import NIOCore
import RBSCore
import RBSLedger
@testable import RBSServer

/// A clock tests move by hand.
final class TestClock: RBSCore.Clock, @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Date
    init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) { stored = start }
    var now: Date { lock.withLock { stored } }
    func advance(_ seconds: TimeInterval) { lock.withLock { stored = stored.addingTimeInterval(seconds) } }
}

/// A server over the example plugins (Plugins/, built by `make plugins`) with a fresh data folder and two customers.
final class TestBank: @unchecked Sendable {
    struct Person {
        let name: String
        let password: String
        let secret: Data
        let customer: Customer
    }

    static let plugins = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Plugins")

    let data: URL
    let clock = TestClock()
    let runtime: Runtime
    let ledger: Ledger
    let server: Server
    let alice: Person
    let bob: Person
    private let lines = LogLines()

    init(limits: OnlineBank.Limits = .init(), http: HTTPOptions = .init()) throws {
        data = FileManager.default.temporaryDirectory.appendingPathComponent("rbs-server-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try Ledger.create(dataDirectory: data).ledger.close()  // the folder's first start
        runtime = Runtime(paths: HostPaths(plugins: Self.plugins.path, data: data), clock: clock)
        runtime.loadPlugins()
        guard runtime.registry.operation(id: "pay.pp.quick") != nil else {
            throw TestFailure("Plugins/ has no pay.pp.quick: run `make plugins` first (`make test` does)")
        }
        ledger = try runtime.ledger()
        let clock = self.clock
        let lines = self.lines
        server = try Server(runtime: runtime, ledger: ledger, limits: limits, http: http, clock: { clock.now }, log: { lines.append($0) })
        alice = try Self.add("alice", "correct horse", ledger)
        bob = try Self.add("bob", "battery staple", ledger)
        // Each customer's cards (issue #29): alice's Visa has the demo card's masked number, bob's Mir is his alone.
        _ = try ledger.issueCard(to: "alice", account: try ledger.customers.accounts(of: alice.customer)[0].number,
                                 number: "4111 1111 1111 1111")
        _ = try ledger.issueCard(to: "bob", account: try ledger.customers.accounts(of: bob.customer)[0].number,
                                 number: "2202 2000 0000 0008")
    }

    deinit { try? FileManager.default.removeItem(at: data) }

    static func add(_ name: String, _ password: String, _ ledger: Ledger) throws -> Person {
        let record = try PasswordRecord.make(password: password, rounds: 1 << 10)
        let (customer, enrolment) = try ledger.customers.add(name: name, passwordRecord: record.text)
        let secret = try #require(enrolment.totpSecret, "a customer of serve is enrolled with TOTP")
        return Person(name: name, password: password, secret: secret, customer: customer)
    }

    /// The code `person`'s authenticator shows now (`steps` periods later).
    func code(_ person: Person, steps: Int = 0) -> String {
        TOTP.code(secret: person.secret, at: clock.now.addingTimeInterval(Double(steps * 30)))
    }

    var log: [String] { lines.all }

    /// Runs `body` with a client of the server listening on a real loopback socket (a connection per request, so
    /// several at once; https with `.https`, for a bank made with `HTTPOptions(tls:)`).
    func test(_ scheme: TestHTTPClient.Scheme = .http, _ body: @escaping @Sendable (API) async throws -> Void) async throws {
        try await Self.test(server, scheme, bank: self, body)
    }

    /// Runs `body` with a client of `server` (another server over this bank's data folder: a restart).
    static func test(_ server: Server, _ scheme: TestHTTPClient.Scheme = .http, bank: TestBank?,
                     _ body: @escaping @Sendable (API) async throws -> Void) async throws {
        try await TestHTTPClient.serving(server, scheme) { client in try await body(API(client: client, bank: bank)) }
    }

    /// A thin JSON client.
    struct API: Sendable {
        let client: TestHTTPClient
        let bank: TestBank?

        struct Answer {
            let status: Int
            let headers: HTTPFields
            let body: ByteBuffer
            var json: Any? { try? JSONSerialization.jsonObject(with: Data(body.readableBytesView), options: [.fragmentsAllowed]) }
            var object: [String: Any] { json as? [String: Any] ?? [:] }
            var array: [[String: Any]] { json as? [[String: Any]] ?? [] }
            var text: String { String(buffer: body) }
            var contentType: String? { headers[.contentType] }
        }

        /// One request; every method but GET says `contentType` (JSON unless told: the server refuses anything
        /// else), body or not, as the web client does; `headers` are added (an `Origin`).
        @discardableResult
        func call(_ method: HTTPRequest.Method, _ path: String, token: String? = nil, json: Any? = nil, raw: String? = nil,
                  bytes: [UInt8]? = nil, contentType: String? = "application/json", headers extra: HTTPFields = [:],
                  language: String? = nil) async throws -> Answer {
            var headers = extra
            if let token { headers[.authorization] = "Bearer \(token)" }
            if let language { headers[.acceptLanguage] = language }
            if method != .get, let contentType { headers[.contentType] = contentType }
            var body: ByteBuffer?
            if let json {
                body = ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: json, options: [.fragmentsAllowed]))
            } else if let raw {
                body = ByteBuffer(string: raw)
            } else if let bytes {
                body = ByteBuffer(bytes: bytes)
            }
            let response = try await client.execute(method, path, headers: headers, body: body)
            return Answer(status: response.status.code, headers: response.headers, body: response.body)
        }

        /// Logs `person` in; returns the token.
        func login(_ person: Person) async throws -> String {
            let answer = try await call(.post, "/api/v1/session", json: ["customer": person.name, "password": person.password])
            guard answer.status == 200, let token = answer.object["token"] as? String else {
                throw TestFailure("login \(person.name): \(answer.status) \(answer.text)")
            }
            return token
        }

        func open(_ operation: String, _ token: String) async throws -> [String: Any] {
            let answer = try await call(.post, "/api/v1/runs", token: token, json: ["operation": operation])
            guard answer.status == 201 else { throw TestFailure("open \(operation): \(answer.status) \(answer.text)") }
            return answer.object
        }

        func commit(_ run: String, _ atom: String, _ value: Any, _ token: String) async throws -> Answer {
            try await call(.put, "/api/v1/runs/\(run)/atoms/\(atom)", token: token, json: ["value": value])
        }

        /// Commits every value, expecting each to be accepted.
        func fill(_ run: String, _ values: [(String, Any)], _ token: String) async throws {
            for (atom, value) in values {
                let answer = try await commit(run, atom, value, token)
                guard answer.status == 200 else { throw TestFailure("commit \(atom): \(answer.status) \(answer.text)") }
            }
        }
    }

    /// The quick payment's values for `person` (debiting their first account).
    func quickPayment(from person: Person, amount: String = "1500.50") throws -> [(String, Any)] {
        let account = try ledger.customers.accounts(of: person.customer)[0].number
        return [("srcAccount", account), ("destName", "ООО Ромашка"), ("destInn", "1234567894"),
                ("destAccount", "40702810638000000123"), ("destBic", "044525225"), ("destDesc", "оплата по счёту 7"),
                ("amount", amount)]
    }
}

final class LogLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The atom `id` in a list of atoms.
func atom(_ id: String, in atoms: Any?) -> [String: Any]? {
    (atoms as? [[String: Any]])?.first { $0["id"] as? String == id }
}
