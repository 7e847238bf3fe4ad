import Foundation
import HTTPTypes
import Hummingbird
import RBSCore
import RBSLedger
@testable import RBSServer
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Issue #31, item 3: sessions and HTTP that hold under attack (cross-site requests, parallel guessing, restarts,
/// removed customers, slow clients, TLS) and item 6 (a quarantined operation is marked in the API).
@Suite("serve: hardening", .serialized)
struct HardeningTests {
    static let origin = HTTPField.Name("Origin")!
    static let fetchSite = HTTPField.Name("Sec-Fetch-Site")!

    @Test("a method a route does not take is 405 with Allow and a problem; a path no route has stays 404")
    func methodNotAllowed() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let token = try await api.login(bank.alice)
            for (method, path, allow) in [(HTTPRequest.Method.delete, "/api/v1/accounts", "GET"), (.put, "/api/v1/journal", "GET"),
                                          (.post, "/api/v1/journal/1", "GET"), (.get, "/api/v1/runs/abc/submit", "POST"),
                                          (.put, "/api/v1/session", "POST, GET, DELETE"), (.post, "/health", "GET")] {
                let answer = try await api.call(method, path, token: token)
                #expect(answer.status == 405, "\(method) \(path): \(answer.status) \(answer.text)")
                #expect(answer.headers[.allow] == allow, "\(method) \(path)")
                #expect(answer.contentType == "application/problem+json")
                #expect(answer.object["type"] as? String == "urn:rbs-host:problem:method-not-allowed")
                #expect(answer.object["detail"] as? String == "\(method.rawValue) is not allowed on \(path); it takes \(allow)")
            }
            for (method, path) in [(HTTPRequest.Method.get, "/api/v1/nothing"), (.delete, "/api/v1/accounts/x/y/z")] {
                let answer = try await api.call(method, path, token: token)
                #expect(answer.status == 404, "\(method) \(path): \(answer.status)")
                #expect(answer.headers[.allow] == nil)
                #expect(answer.object["type"] as? String == "urn:rbs-host:problem:not-found")
            }
            // The routes themselves still answer their own methods.
            #expect(try await api.call(.get, "/api/v1/accounts", token: token).status == 200)
        }
    }

    @Test("without --origin, the default origin passkeys are bound to (http://localhost:PORT) may change state, as serve --help says")
    func defaultOrigin() async throws {
        let bank = try TestBank()
        bank.server.bank.useDefaultOrigin(port: 18500)
        try await bank.test { api in
            let token = try await api.login(bank.alice)
            let open = ["operation": "pay.pp.quick"]
            let own = try await api.call(.post, "/api/v1/runs", token: token, json: open, headers: [Self.origin: "http://localhost:18500"])
            #expect(own.status == 201, "\(own.text)")
            let other = try await api.call(.post, "/api/v1/runs", token: token, json: open, headers: [Self.origin: "http://localhost:18501"])
            #expect(other.status == 403)
            #expect(other.object["detail"] as? String == "a POST from origin 'http://localhost:18501' is refused: only pages of "
                    + "'http://localhost' or 'http://localhost:18500' may change state here")
            // A history query with a key it does not know is refused, not answered unfiltered.
            let typo = try await api.call(.get, "/api/v1/journal?accout=40817810438000000001", token: token)
            #expect(typo.status == 400 && typo.object["atom"] as? String == "accout")
            #expect(typo.object["detail"] as? String == "accout is not a key of the history's query: use q, account, from, to, tz, status, lang")
            #expect(try await api.call(.get, "/api/v1/journal?status=posted&lang=ru", token: token).status == 200)
        }
    }

    @Test("a cross-origin or typeless POST is refused with a problem saying why; same-origin and Origin-less JSON pass")
    func crossSite() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let token = try await api.login(bank.alice)
            let open = ["operation": "pay.pp.quick"]
            let evil = try await api.call(.post, "/api/v1/runs", token: token, json: open, headers: [Self.origin: "http://evil.example"])
            #expect(evil.status == 403)
            #expect(evil.contentType == "application/problem+json")
            #expect(evil.object["type"] as? String == "urn:rbs-host:problem:cross-origin")
            // The request's own origin, and the one passkeys are bound to (the test server's port).
            let detail = try #require(evil.object["detail"] as? String)
            #expect(detail.hasPrefix("a POST from origin 'http://evil.example' is refused: only pages of 'http://localhost' or 'http://localhost:"),
                    "\(detail)")
            #expect(detail.hasSuffix("' may change state here"))
            // The no-cors fetch of the probe: no content type, another origin.
            let noCors = try await api.call(.post, "/api/v1/runs", token: token, raw: "{\"operation\":\"pay.pp.quick\"}",
                                            contentType: nil, headers: [Self.origin: "http://evil.example"])
            #expect(noCors.status == 403)
            let opaque = try await api.call(.post, "/api/v1/runs", token: token, json: open, headers: [Self.origin: "null"])
            #expect(opaque.status == 403)
            let sameSite = try await api.call(.post, "/api/v1/runs", token: token, json: open, headers: [Self.fetchSite: "cross-site"])
            #expect(sameSite.status == 403)
            #expect(sameSite.object["detail"] as? String == "a POST sent from another site (Sec-Fetch-Site: cross-site) is refused")

            let typeless = try await api.call(.post, "/api/v1/runs", token: token, raw: "{\"operation\":\"pay.pp.quick\"}", contentType: nil)
            #expect(typeless.status == 415)
            #expect(typeless.object["type"] as? String == "urn:rbs-host:problem:unsupported-media-type")
            #expect(typeless.object["detail"] as? String
                == "a POST under /api/ must send Content-Type: application/json (it has no Content-Type)")
            let text = try await api.call(.post, "/api/v1/runs", token: token, raw: "{\"operation\":\"pay.pp.quick\"}",
                                          contentType: "text/plain")
            #expect(text.object["detail"] as? String == "a POST under /api/ must send Content-Type: application/json, not text/plain")
            let login = try await api.call(.post, "/api/v1/session", raw: "{\"customer\":\"alice\",\"password\":\"correct horse\"}",
                                           contentType: nil)
            #expect(login.status == 415)
            let logout = try await api.call(.delete, "/api/v1/session", token: token, contentType: nil)
            #expect(logout.status == 415)
            #expect(bank.server.bank.openRuns == 0, "no refused request opened a run")

            // The web client's own page (same origin), and a client that is no browser (no Origin): both pass.
            let own = try await api.call(.post, "/api/v1/runs", token: token, json: open, headers: [Self.origin: "http://localhost"])
            #expect(own.status == 201)
            let curl = try await api.call(.post, "/api/v1/runs", token: token, json: open)
            #expect(curl.status == 201)
            let charset = try await api.call(.post, "/api/v1/runs", token: token, json: open, contentType: "application/json; charset=utf-8")
            #expect(charset.status == 201)
            #expect(bank.server.bank.openRuns == 3)
            // Reading is not guarded: a GET with another Origin is answered (the browser keeps the answer from the page).
            #expect(try await api.call(.get, "/api/v1/operations", token: token, headers: [Self.origin: "http://evil.example"]).status == 200)
        }
    }

    @Test("40 wrong passwords sent in parallel for one customer: at most 5 are checked, the rest are 429")
    func parallelLogins() async throws {
        let bank = try TestBank()
        try await bank.test(.http) { api in
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<40 {
                    group.addTask {
                        try await api.call(.post, "/api/v1/session", json: ["customer": "alice", "password": "guess"]).status
                    }
                }
                var statuses: [Int] = []
                for try await status in group { statuses.append(status) }
                return statuses
            }
            #expect(statuses.filter { $0 == 401 }.count == 5, "\(statuses)")
            #expect(statuses.filter { $0 == 429 }.count == 35, "\(statuses)")
            #expect(try await api.call(.post, "/api/v1/session", json: ["customer": "alice", "password": "correct horse"]).status == 429)
        }
    }

    @Test("a login lock-out survives a restart of the server")
    func lockOutSurvivesRestart() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            for _ in 0..<5 {
                let wrong = try await api.call(.post, "/api/v1/session", json: ["customer": "alice", "password": "guess"])
                #expect(wrong.status == 401)
            }
        }
        // A new server over a new connection to the same ledger: nothing of the first one's memory is left.
        let clock = bank.clock
        let runtime = Runtime(paths: HostPaths(plugins: TestBank.plugins.path, data: bank.data), clock: clock)
        let ledger = try Ledger(dataDirectory: bank.data, clock: { clock.now })
        let restarted = try Server(runtime: runtime, ledger: ledger, clock: { clock.now }, log: { _ in })
        try await TestBank.test(restarted, bank: nil) { api in
            let locked = try await api.call(.post, "/api/v1/session", json: ["customer": "alice", "password": "correct horse"])
            #expect(locked.status == 429)
            let wait = try #require(locked.headers[.retryAfter].flatMap(Int.init))
            #expect(wait > 0 && wait <= 300)
            #expect(locked.object["detail"] as? String == "too many failed logins from this customer or address; try again in \(wait) s")
            clock.advance(301)
            #expect(try await api.call(.post, "/api/v1/session", json: ["customer": "alice", "password": "correct horse"]).status == 200)
        }
        try ledger.close()
    }

    @Test("a removed customer's token gets 401 on the next request; another customer's session goes on")
    func removedCustomer() async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let alice = try await api.login(bank.alice)
            let bob = try await api.login(bank.bob)
            #expect(try await api.call(.get, "/api/v1/accounts", token: alice).status == 200)
            // A run opened before the removal: its commits and presses are refused as the other routes are, and a
            // run that does not exist is 401 too, not 404 (the customer is confirmed on the run's lane).
            let opened = try await api.call(.post, "/api/v1/runs", token: alice, json: ["operation": "pay.pp.quick"])
            let run = try #require(opened.object["id"] as? String)
            #expect(try await api.call(.put, "/api/v1/runs/\(run)/atoms/amount", token: alice, json: ["value": "10"]).status == 200)
            try bank.ledger.customers.remove(name: "alice")
            let commit = try await api.call(.put, "/api/v1/runs/\(run)/atoms/amount", token: alice, json: ["value": "20"])
            #expect(commit.status == 401)
            #expect(commit.object["type"] as? String == "urn:rbs-host:problem:unauthorized")
            #expect(try await api.call(.put, "/api/v1/runs/r-none/atoms/amount", token: alice, json: ["value": "20"]).status == 401)
            #expect(try await api.call(.post, "/api/v1/runs/\(run)/atoms/amount/press", token: alice).status == 401)
            let accounts = try await api.call(.get, "/api/v1/accounts", token: alice)
            #expect(accounts.status == 401)
            #expect(accounts.object["type"] as? String == "urn:rbs-host:problem:unauthorized")
            #expect(try await api.call(.post, "/api/v1/runs", token: alice, json: ["operation": "pay.pp.quick"]).status == 401)
            #expect(try await api.call(.get, "/api/v1/journal", token: alice).status == 401)
            // Added again under the same name: a new customer, the old session stays ended.
            _ = try TestBank.add("alice", "correct horse", bank.ledger)
            #expect(try await api.call(.get, "/api/v1/accounts", token: alice).status == 401)
            #expect(try await api.call(.get, "/api/v1/accounts", token: bob).status == 200)
        }
    }

    @Test("a connection that sends half its headers, or nothing, or half its body, is closed within its timeout")
    func slowClients() async throws {
        let bank = try TestBank(http: HTTPOptions(timeouts: ConnectionTimeouts(header: 1, body: 1, idle: 2)))
        try await bank.test { api in
            let port = api.client.port
            let half = await RawConnection.secondsUntilClosed(port: port, sending: "POST /api/v1/session HTTP/1.1\r\nHost: localhost\r\nContent-", limit: 5)
            let halfSeconds = try #require(half, "a half-sent head was kept open for 5 s")
            #expect(halfSeconds >= 0.8 && halfSeconds < 2.5, "closed after \(halfSeconds) s")
            let silent = await RawConnection.secondsUntilClosed(port: port, sending: "", limit: 5)
            let silentSeconds = try #require(silent, "a silent connection was kept open for 5 s")
            #expect(silentSeconds < 2.5)
            let body = await RawConnection.secondsUntilClosed(
                port: port, sending: "POST /api/v1/session HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"cust",
                limit: 5)
            let bodySeconds = try #require(body, "a half-sent body was kept open for 5 s")
            #expect(bodySeconds < 2.5)
        }
    }

    @Test("serve over TLS answers with HSTS and a Secure, HttpOnly, SameSite=Strict cookie")
    func tls() async throws {
        let folder = try TestCertificate.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (certificate, key) = try TestCertificate.make(in: folder, name: "server")
        let bank = try TestBank(http: HTTPOptions(tls: try ServerTLS.load(certificate: certificate, key: key)))
        try await bank.test(.https) { api in
            let login = try await api.call(.post, "/api/v1/session", json: ["customer": "alice", "password": "correct horse"])
            #expect(login.status == 200)
            let token = try #require(login.object["token"] as? String)
            #expect(login.headers[.setCookie] == "rbs_session=\(token); Path=/; HttpOnly; SameSite=Strict; Secure")
            #expect(login.headers[.strictTransportSecurity] == "max-age=31536000")
            let health = try await api.call(.get, "/health")
            #expect(health.headers[.strictTransportSecurity] == "max-age=31536000")
            let logout = try await api.call(.delete, "/api/v1/session", token: token)
            #expect(logout.headers[.setCookie] == "rbs_session=; Path=/; HttpOnly; SameSite=Strict; Secure; Max-Age=0")
        }
        // Served without TLS, no HSTS and no Secure flag (a browser would not send the cookie back over http).
        let plain = try TestBank()
        try await plain.test { api in
            let login = try await api.call(.post, "/api/v1/session", json: ["customer": "alice", "password": "correct horse"])
            #expect(login.headers[.strictTransportSecurity] == nil)
            #expect(login.headers[.setCookie]?.hasSuffix("; Secure") == false)
        }
    }

    @Test("a TLS certificate or key that cannot be used stops serve with a message naming the file")
    func badTLSFiles() throws {
        let folder = try TestCertificate.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (certificate, key) = try TestCertificate.make(in: folder, name: "server")
        let (_, otherKey) = try TestCertificate.make(in: folder, name: "other")
        let missing = folder.appendingPathComponent("missing.pem").path
        func message(_ certificate: String, _ key: String) -> String? {
            do { _ = try ServerTLS.load(certificate: certificate, key: key) } catch { return error.description }
            return nil
        }
        #expect(message(missing, key) == "--tls-cert \(missing): no such file")
        #expect(message(certificate, missing) == "--tls-key \(missing): no such file")
        let junk = folder.appendingPathComponent("junk.pem")
        try Data("not a certificate\n".utf8).write(to: junk)
        #expect(message(junk.path, key) == "--tls-cert \(junk.path) holds no PEM certificate (-----BEGIN CERTIFICATE-----)")
        #expect(message(certificate, junk.path)?.hasPrefix("--tls-key \(junk.path) is not an unencrypted PEM private key") == true)
        #expect(message(certificate, otherKey)?.hasPrefix(
            "--tls-key \(otherKey) is not the private key of the certificate in --tls-cert \(certificate)") == true)
        #expect(message(certificate, key) == nil)
    }

    @Test("GET /api/v1/operations marks a quarantined operation unavailable and says why")
    func quarantinedOperation() async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let worker = root.appendingPathComponent(".build/debug/rbs-host")
        try #require(FileManager.default.isExecutableFile(atPath: worker.path), "build rbs-host first (swift build)")
        let plugins = FileManager.default.temporaryDirectory.appendingPathComponent("rbs-quarantine-\(UUID().uuidString)")
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("rbs-quarantine-data-\(UUID().uuidString)")
        for folder in [plugins, data] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        defer { for folder in [plugins, data] { try? FileManager.default.removeItem(at: folder) } }
        // The fault corpus's plugin that crashes in create(): its worker fails, and one failure quarantines it here.
        let compile = Process()
        compile.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        compile.arguments = ["cc", "-std=c11", "-shared", "-fPIC", "-I", root.appendingPathComponent("SDK/Sources/CRBSPlugin/include").path,
                             "-DFAULT=1", "-DWHERE=1", "-o", plugins.appendingPathComponent("fault.so").path,
                             root.appendingPathComponent("Tests/Fixtures/faults/fault.c").path]
        try compile.run()
        compile.waitUntilExit()
        try #require(compile.terminationStatus == 0, "cc failed")
        try Ledger.create(dataDirectory: data).ledger.close()
        let clock = TestClock()
        let runtime = Runtime(paths: HostPaths(plugins: plugins.path, data: data), clock: clock, log: StandardErrorLog(minimum: .error),
                              isolation: IsolationSettings(mode: .plugin, workerExecutable: worker.path, quarantineAfter: 1))
        runtime.loadPlugins()
        #expect(throws: (any Error).self) { _ = try runtime.open("fault.op") }
        let ledger = try runtime.ledger()
        let server = try Server(runtime: runtime, ledger: ledger, clock: { clock.now }, log: { _ in })
        let person = try TestBank.add("carol", "correct horse", ledger)
        try await TestBank.test(server, bank: nil) { api in
            let token = try await api.login(person)
            let operations = try await api.call(.get, "/api/v1/operations", token: token)
            #expect(operations.status == 200)
            let fault = try #require(operations.array.first { $0["id"] as? String == "fault.op" })
            let reason = try #require(fault["unavailable"] as? String)
            #expect(reason.hasPrefix("plugin test.fault quarantined: its worker failed 1 times"), "\(reason)")
            let opened = try await api.call(.post, "/api/v1/runs", token: token, json: ["operation": "fault.op"])
            #expect(opened.status == 422)
        }
        runtime.registry.unloadAll()
        try ledger.close()
    }
}

/// A self-signed certificate for `localhost` made by the openssl command for a test.
enum TestCertificate {
    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rbs-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return folder
    }

    /// Writes `NAME.crt` and `NAME.key` (P-256) into `folder`; answers their paths.
    static func make(in folder: URL, name: String) throws -> (certificate: String, key: String) {
        let certificate = folder.appendingPathComponent("\(name).crt").path
        let key = folder.appendingPathComponent("\(name).key").path
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        openssl.arguments = ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                             "-keyout", key, "-out", certificate, "-days", "2", "-subj", "/CN=localhost",
                             "-addext", "subjectAltName=DNS:localhost"]
        openssl.standardOutput = FileHandle.nullDevice
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        openssl.waitUntilExit()
        guard openssl.terminationStatus == 0 else { throw TestFailure("openssl req failed (\(openssl.terminationStatus))") }
        return (certificate, key)
    }
}

/// A client that speaks raw TCP, to be as slow as an attacker.
enum RawConnection {
    /// Connects to 127.0.0.1:`port`, sends `text` and waits (off the test's threads) for the server to close the
    /// connection: the seconds it took, or nil when it was still open after `limit` seconds.
    static func secondsUntilClosed(port: Int, sending text: String, limit: Double) async -> Double? {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: waitForClose(port: port, text: text, limit: limit)) }
        }
    }

    private static func waitForClose(port: Int, text: String, limit: Double) -> Double? {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return nil }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return nil }
        let started = ContinuousClock.now
        if !text.isEmpty {
            let bytes = Array(text.utf8)
            guard send(socket, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else { return nil }
        }
        var buffer = [UInt8](repeating: 0, count: 1024)
        while true {
            let elapsed = ContinuousClock.now - started
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            if seconds >= limit { return nil }
            var ready = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 50) > 0 else { continue }
            if recv(socket, &buffer, buffer.count, 0) <= 0 { return seconds }
        }
    }
}
