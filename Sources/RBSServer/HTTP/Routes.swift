import Foundation
import Hummingbird
import HTTPTypes
import NIOCore
import RBSCore
import RBSLedger
import RBSMoney

/// The HTTP face of ``OnlineBank``: /api/v1 (JSON, described by `openapi.json`), the web client at `/`, `/health`
/// and `/metrics`. Each handler reads what it needs from the request, calls the bank, and answers JSON or a problem.
enum Routes {
    static let cookie = "rbs_session"
    static let maxBody = 64 * 1024
    /// `POST /api/v1/qr` may carry a phone's photo of a QR code (base64).
    static let maxPicture = 12 * 1024 * 1024

    /// - Parameter tls: served over TLS: the cookie is `Secure` and every answer carries HSTS.
    /// - Parameter publicOrigin: the origin `--origin` named, from which state-changing requests are accepted too.
    static func build(bank: OnlineBank, web: WebFiles, metrics: ServerMetrics, log: @escaping @Sendable (String) -> Void,
                      tls: Bool = false, publicOrigin: String? = nil) -> Router<APIContext> {
        let router = Router(context: APIContext.self)
        // Every route is registered through `routes`, which records it: a path that exists under other methods is
        // answered 405 with Allow (RequestLog), not 404.
        let table = RouteTable()
        router.add(middleware: RequestLog(write: log, metrics: metrics, tls: tls, routes: table))
        // The origin passkeys are bound to, as `serve --help` says: --origin's, else the default the bank takes once
        // the server listens (http://localhost:PORT).
        router.add(middleware: SameOriginGuard(tls: tls, publicOrigin: { publicOrigin ?? bank.relyingParty?.origin }))
        let routes = RecordedRoutes(base: router, table: table)
        let cookieAttributes = "Path=/; HttpOnly; SameSite=Strict" + (tls ? "; Secure" : "")

        // The web client and the description of the protocol.
        routes.get("/") { _, _ in web.response("index.html") }
        routes.get("/app.js") { _, _ in web.response("app.js") }
        routes.get("/app.css") { _, _ in web.response("app.css") }
        routes.get("/api/v1/openapi.json") { _, _ in web.response("openapi.json") }
        routes.get("/favicon.ico") { _, _ in Response(status: .noContent) }

        // The ledger's real state (its data folder and its tables, PostgreSQL's when shared), asked off the event loop:
        // 503 when either cannot be used, so nothing routes payments to a host that would refuse them.
        routes.get("/health") { _, _ in
            await bank.expireIdleRuns()
            let ledger = bank.ledger
            let health = (try? await OnlineBank.blocking { ledger.health() })
                ?? LedgerHealth(folder: nil, place: ledger.location.description,
                                database: .database(path: ledger.location.description, detail: "the check did not finish"))
            return json(API.Health(health, plugins: bank.runtime.registry.pluginIDs.count, openRuns: bank.openRuns),
                        status: health.isUsable ? .ok : .serviceUnavailable)
        }
        routes.get("/metrics") { _, _ in
            let text = metrics.text(openRuns: bank.openRuns, streams: bank.events.count, plugins: bank.runtime.registry.pluginIDs.count)
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                            body: .init(byteBuffer: ByteBuffer(string: text)))
        }

        let api = routes.group("/api/v1")
        // The web page's words in one language: `?lang=en|ru`, else the request's Accept-Language. No login needed
        // (the login page is worded too); nothing in it is secret.
        api.get("/messages") { request, _ in
            let asked = request.uri.queryParameters["lang"].flatMap { HostLanguage(rawValue: String($0)) }
            let language = asked ?? Self.language(request)
            return json(API.Messages(lang: language.rawValue, messages: PageText.catalogue(language),
                                     runIdleMinutes: Int(bank.runIdle / 60)))
        }
        api.post("/session") { request, context in
            try await answer {
                let login: API.LoginRequest = try await body(request)
                let session = try await bank.login(name: login.customer, password: login.password, address: context.remoteAddress,
                                                   language: language(request))
                var response = json(API.LoginAnswer(customer: session.customer.name, token: session.token,
                                                    expiresAt: ISO8601DateFormatter().string(from: session.expires)))
                response.headers[values: .setCookie] = ["\(cookie)=\(session.token); \(cookieAttributes)"]
                return response
            }
        }
        api.get("/session") { request, _ in
            try await answer {
                let who = try await customer(request, bank)
                return json(API.Me(customer: who.name, passkey: try await bank.hasPasskey(who)))
            }
        }
        api.delete("/session") { request, _ in
            try await answer {
                _ = try await customer(request, bank)
                if let token = token(request) { bank.logout(token: token) }
                var response = Response(status: .noContent)
                response.headers[values: .setCookie] = ["\(cookie)=; \(cookieAttributes); Max-Age=0"]
                return response
            }
        }
        api.get("/operations") { request, _ in
            try await answer {
                _ = try await customer(request, bank)
                return json(bank.operations(language: language(request)))
            }
        }
        api.get("/accounts") { request, _ in
            try await answer { json(try await bank.accounts(of: try await customer(request, bank))) }
        }
        // The customer's cards, masked, with their states: block and unblock are runs of card.block and card.unblock.
        api.get("/cards") { request, _ in
            try await answer { json(try await bank.cards(of: try await customer(request, bank))) }
        }
        // The customer's history, searched (`q`: payee, purpose or amount) and filtered (`account`, `from`, `to`,
        // `status`) by the core: every key optional, none given lists every entry.
        api.get("/journal") { request, _ in
            try await answer {
                let who = try await customer(request, bank)
                let filter = try historyFilter(request)
                return json(try await bank.presented(try await bank.journal(of: who, matching: filter), for: who, language: language(request)))
            }
        }
        // The receipt of an entry the bank took, as a PDF to keep or share (the one `journal receipt` writes).
        api.get("/journal/:entry/receipt.pdf") { request, context in
            try await answer {
                let who = try await customer(request, bank)
                let sequence = try entry(context)
                return pdf(try await bank.receiptPDF(sequence, language: language(request), for: who), named: "receipt-\(sequence).pdf")
            }
        }
        api.get("/journal/:entry") { request, context in
            try await answer {
                let who = try await customer(request, bank)
                return json(try await bank.presented(try await bank.entry(try entry(context), of: who, language: language(request)), for: who, language: language(request)))
            }
        }
        statementRoutes(api, bank: bank)
        templateRoutes(api, bank: bank)
        api.get("/pending") { request, _ in
            try await answer { json(try await bank.pending(for: try await customer(request, bank))) }
        }
        api.post("/pending/:entry/approve") { request, context in
            try await answer {
                let who = try await customer(request, bank)
                let decide: API.DecideRequest = try await body(request)
                let receipt = try await bank.decide(entry: try entry(context), code: decide.code, reason: nil,
                                                    confirmDuplicate: decide.confirmDuplicate ?? false,
                                                    address: context.remoteAddress, language: language(request), for: who)
                return json(await bank.presented(receipt, for: who, language: language(request)))
            }
        }
        api.post("/pending/:entry/reject") { request, context in
            try await answer {
                let who = try await customer(request, bank)
                let decide: API.DecideRequest = try await body(request)
                let receipt = try await bank.decide(entry: try entry(context), code: decide.code, reason: decide.reason ?? "",
                                                    address: context.remoteAddress, for: who)
                return json(await bank.presented(receipt, for: who, language: language(request)))
            }
        }
        api.get("/events") { request, _ in
            try await answer {
                let who = try await customer(request, bank)
                let stream = bank.events.subscribe(customer: who.id)
                return Response(status: .ok,
                                headers: [.contentType: "text/event-stream", .cacheControl: "no-store"],
                                body: ResponseBody { writer in
                                    try await writer.write(ByteBuffer(string: ": connected\n\n"))
                                    for await event in stream { try await writer.write(ByteBuffer(string: event.wire)) }
                                    try await writer.finish(nil)
                                })
            }
        }
        api.get("/runs") { request, _ in
            try await answer { json(await bank.listRuns(of: try await customer(request, bank), language: language(request))) }
        }
        api.post("/runs") { request, _ in
            try await answer {
                let who = try await customer(request, bank)
                let open: API.OpenRequest = try await body(request)
                let run = try await bank.open(open.operation, language: language(request), for: who)
                var response = json(run, status: .created)
                response.headers[.location] = "/api/v1/runs/\(run.id)"
                return response
            }
        }
        api.post("/qr") { request, _ in
            try await answer {
                _ = try await customer(request, bank)
                let qr: API.QRRequest = try await body(request, upTo: maxPicture)
                return json(try bank.paymentQR(qr, language: language(request)))
            }
        }
        api.get("/runs/:run") { request, context in
            try await answer {
                let who = try await customer(request, bank)
                var run = try await bank.show(try parameter(context, "run"), language: language(request), for: who)
                // A signed run's receipt (a reloaded receipt page) with its presentation, as the sign's answer had it.
                if let receipt = run.receipt { run.receipt = await bank.presented(receipt, for: who, language: language(request)) }
                return json(run)
            }
        }
        api.delete("/runs/:run") { request, context in
            try await answer {
                try await bank.cancel(run: try parameter(context, "run"), for: try await customer(request, bank))
                return Response(status: .noContent)
            }
        }
        api.put("/runs/:run/atoms/:atom") { request, context in
            try await answer {
                let who = try await customer(request, bank)
                let commit = try await commitBody(request)
                return changesJSON(try await bank.commit(commit.value, atom: try parameter(context, "atom"),
                                                         run: try parameter(context, "run"), language: language(request), for: who))
            }
        }
        api.post("/runs/:run/atoms/:atom/press") { request, context in
            try await answer {
                changesJSON(try await bank.press(atom: try parameter(context, "atom"), run: try parameter(context, "run"),
                                                 language: language(request), for: try await customer(request, bank)))
            }
        }
        api.post("/runs/:run/submit") { request, context in
            try await answer {
                json(try await bank.submit(run: try parameter(context, "run"), language: language(request), for: try await customer(request, bank)))
            }
        }
        api.post("/runs/:run/sign") { request, context in
            try await answer {
                let who = try await customer(request, bank)
                let sign: API.SignRequest = try await body(request)
                let authorisation: OnlineBank.Authorisation
                switch (sign.code, sign.passkey) {
                case (let code?, nil): authorisation = .code(code)
                case (nil, let passkey?): authorisation = .passkey(try OnlineBank.assertion(passkey))
                default: throw Problem.badJSON("send exactly one of \"code\" (a one-time code) and \"passkey\" (the passkey's assertion)")
                }
                let receipt = try await bank.sign(run: try parameter(context, "run"), with: authorisation, requestId: sign.requestId,
                                                  confirmDuplicate: sign.confirmDuplicate ?? false, reviewed: sign.documentHash,
                                                  address: context.remoteAddress, language: language(request), for: who)
                return json(await bank.presented(receipt, for: who, language: language(request)))
            }
        }
        api.post("/baskets") { request, _ in
            try await answer {
                let who = try await customer(request, bank)
                let basket: API.BasketRequest = try await body(request)
                return json(try await bank.basket(of: basket.runs, for: who), status: .created)
            }
        }
        api.post("/baskets/:basket/sign") { request, context in
            try await answer {
                let who = try await customer(request, bank)
                let sign: API.BasketSignRequest = try await body(request)
                let receipt = try await bank.signBasket(try parameter(context, "basket"), code: sign.code, requestId: sign.requestId,
                                                        confirmDuplicate: sign.confirmDuplicate ?? false,
                                                        address: context.remoteAddress, for: who)
                return json(await bank.presented(receipt, for: who, language: language(request)))
            }
        }
        api.post("/passkeys/challenge") { request, _ in
            try await answer { json(try bank.passkeyOptions(for: try await customer(request, bank))) }
        }
        api.post("/passkeys") { request, context in
            try await answer {
                let who = try await customer(request, bank)
                let registration: API.PasskeyRegistration = try await body(request)
                return json(try await bank.registerPasskey(registration, address: context.remoteAddress, for: who), status: .created)
            }
        }
        return router
    }

    // MARK: - Reading requests

    /// The session token: the cookie, or `Authorization: Bearer TOKEN` (the scheme in any case, as RFC 9110 has it).
    static func token(_ request: Request) -> String? {
        if let header = request.headers[.authorization], header.utf8.count > 7,
           header.prefix(7).lowercased() == "bearer " {
            return String(SameOriginGuard.trimmed(header.dropFirst(7)))
        }
        return request.cookies[cookie]?.value
    }

    /// The customer of the request's live session; 401 without one (or when the customer was removed since).
    static func customer(_ request: Request, _ bank: OnlineBank) async throws(Problem) -> Customer {
        guard let token = token(request), let customer = try await bank.customer(token: token) else { throw Problem.unauthorized }
        return customer
    }

    /// The `entry` path parameter: a journal entry's number.
    static func entry(_ context: APIContext) throws(Problem) -> Int64 {
        let text = try parameter(context, "entry")
        guard let entry = Int64(text), entry >= 1 else { throw Problem.notFound("'\(text)' is not a journal entry's number") }
        return entry
    }

    static func parameter(_ context: APIContext, _ name: String) throws(Problem) -> String {
        guard let value = context.parameters.get(name) else { throw Problem.notFound("the path has no \(name)") }
        return value
    }

    /// The JSON body as `T`, read up to `limit` bytes; every way it can be wrong is a 400 problem saying which. (Its
    /// content type was checked before: ``SameOriginGuard``.)
    static func body<T: Decodable>(_ request: Request, upTo limit: Int = maxBody) async throws(Problem) -> T {
        try decode(try await collect(request, upTo: limit))
    }

    /// A commit's body (`{"value": …}`): the common shapes — one `"value"` member holding a string without escapes,
    /// true, false or null — read straight from the bytes; any other body goes through ``body(_:upTo:)``'s decoder,
    /// so every refusal (and every value the quick reading does not take) is the decoder's, word for word.
    static func commitBody(_ request: Request) async throws(Problem) -> API.CommitRequest {
        let buffer = try await collect(request, upTo: maxBody)
        if let value = CommitBody.value(in: buffer.readableBytesView) { return API.CommitRequest(value: value) }
        return try decode(buffer)
    }

    private static func collect(_ request: Request, upTo limit: Int) async throws(Problem) -> ByteBuffer {
        var request = request
        do { return try await request.collectBody(upTo: limit) } catch {
            throw Problem("too-large", "The request body is too large", status: 413, detail: "send at most \(limit / 1024) KB")
        }
    }

    private static func decode<T: Decodable>(_ buffer: ByteBuffer) throws(Problem) -> T {
        let data = Data(buffer.readableBytesView)
        // JSON is UTF-8 text: a body that is not says where (the decoder called a value holding byte 0xFF "a string
        // where a dictionary was expected").
        if let offset = UnicodeText.firstInvalidUTF8(in: data) {
            throw .badJSON("the body is not UTF-8 text: byte \(offset + 1) (0x\(String(data[data.startIndex + offset], radix: 16, uppercase: true))) is not part of a character")
        }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch let DecodingError.keyNotFound(key, _) {
            throw .badJSON("the field \"\(key.stringValue)\" is missing")
        } catch let DecodingError.typeMismatch(type, context) {
            throw .badJSON("\(path(context)) has the wrong type: " + expectation(type, context))
        } catch let DecodingError.valueNotFound(_, context) {
            throw .badJSON("\(path(context)) must not be null")
        } catch {
            // Where the text stops being JSON, as the parser found it ("Invalid value around character 10.").
            throw .badJSON("the body is not valid JSON" + (Self.whyNotJSON(data).map { ": " + $0 } ?? ""))
        }
    }

    /// What JSONSerialization says of `data` when it is not JSON, or nil.
    private static func whyNotJSON(_ data: Data) -> String? {
        guard case .failure(let error) = Result(catching: { try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) })
        else { return nil }
        let why = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
        return why?.isEmpty == false ? why : nil
    }

    /// What JSON value was expected, in JSON's words ("an object"), and what was found when the decoder says it (its
    /// own words name Swift's types: "Expected to decode Dictionary<String, Any> but found an array instead.").
    static func expectation(_ type: Any.Type, _ context: DecodingError.Context) -> String {
        let name = String(describing: type)
        let expected = name.hasPrefix("Dictionary") ? "an object"
            : name.hasPrefix("Array") ? "an array"
            : name == "String" ? "a string"
            : name == "Bool" ? "true or false"
            : ["Int", "Int64", "Int32", "UInt", "UInt64", "Double", "Float", "Decimal"].contains(name) ? "a number"
            : "another kind of value"
        let description = context.debugDescription
        guard let range = description.range(of: "but found ") else { return "expected \(expected)" }
        var found = description[range.upperBound...]
        if found.hasSuffix(" instead.") { found = found.dropLast(" instead.".count) }
        let words: [Substring: String] = ["a dictionary": "an object", "an array": "an array", "a string": "a string",
                                          "number": "a number", "a number": "a number", "bool": "true or false",
                                          "a bool": "true or false", "null": "null", "a null value": "null"]
        guard let foundWords = words[found] else { return "expected \(expected)" }
        return "expected \(expected), found \(foundWords)"
    }

    private static func path(_ context: DecodingError.Context) -> String {
        let path = context.codingPath.map(\.stringValue).joined(separator: ".")
        return path.isEmpty ? "the body" : "\"\(path)\""
    }

    // MARK: - Answers

    static func answer(_ body: () async throws -> Response) async throws -> Response {
        do {
            return try await body()
        } catch let problem as Problem {
            return Self.problem(problem)
        }
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    static func json<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok) -> Response {
        do {
            let data = try encoder.encode(value)
            return Response(status: status, headers: [.contentType: "application/json"],
                            body: .init(byteBuffer: ByteBuffer(bytes: data)))
        } catch {
            return problem(.internalError("the answer could not be encoded: \(error)"))
        }
    }

    /// A commit's or a press's answer: the same JSON as ``json(_:status:)`` writes, written by ``ChangesJSON``.
    static func changesJSON(_ changes: API.Changes) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json"],
                 body: .init(byteBuffer: ByteBuffer(bytes: ChangesJSON.bytes(changes))))
    }

    /// A problem as its answer; an internal error's detail goes to the server's standard error under a reference,
    /// not to the client (``Problem/forClient(reference:)``).
    static func problem(_ problem: Problem) -> Response {
        let (problem, logLine) = problem.forClient()
        if let logLine { FileHandle.standardError.write(Data((logLine + "\n").utf8)) }
        let data = (try? encoder.encode(problem)) ?? Data("{\"title\":\"error\",\"status\":\(problem.status)}".utf8)
        var headers: HTTPFields = [.contentType: "application/problem+json"]
        if let wait = problem.retryAfter { headers[.retryAfter] = String(wait) }
        if problem.status == 401 { headers[.wwwAuthenticate] = "Bearer realm=\"rbs-host\"" }
        return Response(status: .init(code: problem.status), headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
