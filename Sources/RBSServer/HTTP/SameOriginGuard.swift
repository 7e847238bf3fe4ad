import Foundation
import Hummingbird
import HTTPTypes

/// Cross-site request forgery: a page on another site can make a browser send a POST with the customer's cookie, but
/// only a "simple" one (a form's or `fetch`'s no-cors content types, never `application/json` without asking this
/// server first), and the browser says where the page came from in `Origin`. So every POST, PUT, PATCH and DELETE
/// under /api/ must say `Content-Type: application/json` (415 otherwise) and, when it has an `Origin`, come from this
/// server's own origin — the request's scheme and `Host`, or the public origin `serve --origin` names (403
/// otherwise). A client that is no browser (curl, an app) sends no `Origin` and passes with its JSON.
struct SameOriginGuard: RouterMiddleware {
    typealias Context = APIContext

    /// `https` when served over TLS.
    let scheme: String
    /// The origin passkeys are bound to (`--origin`, a proxy's, or by default `http://localhost:PORT` of the port the
    /// server listens on, known only once it listens), asked at each request; nil: only the request's own.
    let publicOrigin: @Sendable () -> String?

    init(tls: Bool, publicOrigin: @escaping @Sendable () -> String?) {
        scheme = tls ? "https" : "http"
        self.publicOrigin = publicOrigin
    }

    static let originField = HTTPField.Name("Origin")!
    static let fetchSiteField = HTTPField.Name("Sec-Fetch-Site")!

    func handle(_ request: Request, context: APIContext, next: (Request, APIContext) async throws -> Response) async throws -> Response {
        if Self.changesState(request.method), request.uri.path.hasPrefix("/api/"), let refusal = refusal(of: request) {
            return Routes.problem(refusal)
        }
        return try await next(request, context)
    }

    static func changesState(_ method: HTTPRequest.Method) -> Bool {
        method == .post || method == .put || method == .patch || method == .delete
    }

    /// Why `request` is refused, or nil when it may go on.
    func refusal(of request: Request) -> Problem? {
        if let origin = request.headers[Self.originField] {
            let own = Self.normalised("\(scheme)://\(request.head.authority ?? "")")
            let sent = Self.normalised(origin)
            let publicOrigin = self.publicOrigin().map(Self.normalised)
            if sent != own, sent != publicOrigin {
                let allowed = [own] + (publicOrigin.map { [$0] } ?? [])
                return Problem("cross-origin", "Cross-origin request refused", status: 403,
                               detail: "a \(request.method.rawValue) from origin '\(origin)' is refused: only pages of "
                                   + allowed.map { "'\($0)'" }.joined(separator: " or ") + " may change state here")
            }
        } else if let site = request.headers[Self.fetchSiteField]?.lowercased(), site == "cross-site" || site == "same-site" {
            // A browser that sends no Origin still says the request came from another site.
            return Problem("cross-origin", "Cross-origin request refused", status: 403,
                           detail: "a \(request.method.rawValue) sent from another site (Sec-Fetch-Site: \(site)) is refused")
        }
        guard let type = request.headers[.contentType] else {
            return Problem("unsupported-media-type", "The request must be JSON", status: 415,
                           detail: "a \(request.method.rawValue) under /api/ must send Content-Type: application/json (it has no Content-Type)")
        }
        let media = type.split(separator: ";", maxSplits: 1).first.map { Self.trimmed($0).lowercased() } ?? ""
        guard media == "application/json" else {
            return Problem("unsupported-media-type", "The request must be JSON", status: 415,
                           detail: "a \(request.method.rawValue) under /api/ must send Content-Type: application/json, not \(type)")
        }
        return nil
    }

    /// `text` without the spaces and tabs around it (what `trimmingCharacters(in: .whitespaces)` does to a header's
    /// value, without its round trip through NSString on every request).
    static func trimmed(_ text: Substring) -> Substring {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = text.firstIndex(where: { !blank($0) }), let last = text.lastIndex(where: { !blank($0) }) else { return "" }
        return text[first...last]
    }

    /// `scheme://host[:port]` in lower case, without a trailing slash or the scheme's default port.
    static func normalised(_ origin: String) -> String {
        var text = trimmed(Substring(origin)).lowercased()
        while text.hasSuffix("/") { text.removeLast() }
        if text.hasPrefix("http://"), text.hasSuffix(":80") { text.removeLast(3) }
        if text.hasPrefix("https://"), text.hasSuffix(":443") { text.removeLast(4) }
        return text
    }
}
