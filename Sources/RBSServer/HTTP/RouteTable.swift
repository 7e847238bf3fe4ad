import Foundation
import HTTPTypes
import Hummingbird

/// The routes the server registers, each path with its methods: what tells a request for a path that exists under
/// other methods (405, with `Allow`) from one for a path that does not exist (404). Hummingbird's router answers both
/// with the same not-found error and keeps its trie to itself, so the routes are recorded as they are registered
/// (``RecordedRoutes``): the table cannot drift from the router.
final class RouteTable: @unchecked Sendable {
    private let lock = NSLock()
    /// Filled while the router is built, read once it serves.
    private var routes: [(path: RouterPath, method: HTTPRequest.Method)] = []

    func add(_ path: RouterPath, _ method: HTTPRequest.Method) {
        lock.withLock { routes.append((path, method)) }
    }

    /// The methods registered for a route matching `path` (its captures match any segment), in the order they were
    /// registered; empty when no route has that path.
    func methods(for path: String) -> [HTTPRequest.Method] {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        let routes = lock.withLock { self.routes }
        var methods: [HTTPRequest.Method] = []
        for route in routes where Self.matches(route.path, segments) && !methods.contains(route.method) {
            methods.append(route.method)
        }
        return methods
    }

    /// The `Allow` header's value for `methods`.
    static func allow(_ methods: [HTTPRequest.Method]) -> String { methods.map(\.rawValue).joined(separator: ", ") }

    private static func matches(_ route: RouterPath, _ segments: [Substring]) -> Bool {
        let components = route.components
        guard components.count == segments.count else { return false }
        return zip(components, segments).allSatisfy { component, segment in component ~= segment }
    }
}

/// A router (or a group of it) whose every route is recorded in a ``RouteTable`` as it is registered: register
/// through this and the table knows each path's methods. A group made from it (`group("/api/v1")`) registers
/// through it too, with the group's prefix.
struct RecordedRoutes<Base: RouterMethods>: RouterMethods {
    typealias Context = Base.Context

    let base: Base
    let table: RouteTable

    @discardableResult func on<Responder: HTTPResponder>(_ path: RouterPath, method: HTTPRequest.Method,
                                                         responder: Responder) -> Self where Responder.Context == Context {
        table.add(path, method)
        base.on(path, method: method, responder: responder)
        return self
    }

    @discardableResult func add(middleware: any MiddlewareProtocol<Request, Response, Context>) -> Self {
        _ = base.add(middleware: middleware)
        return self
    }
}
