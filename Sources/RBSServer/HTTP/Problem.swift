import Foundation

/// An error answer as RFC 9457 problem details (`application/problem+json`): a type URI per kind of problem, a
/// title, the HTTP status, a detail a person can act on and, where there is one, the atom it is about.
package struct Problem: Error, Sendable, Encodable, Equatable {
    package var type: String
    package var title: String
    package var status: Int
    package var detail: String
    /// The atom the problem is about (a refused value, a missing field), when there is one.
    package var atom: String?
    /// Every atom that needs attention (a refused submit).
    package var errors: [Issue]?
    /// Wrong codes still allowed before signing locks.
    package var attemptsLeft: Int?
    /// Seconds to wait (also sent as `Retry-After`).
    package var retryAfter: Int?
    /// The earlier payment a document repeats (problem `duplicate`: sign again with `confirmDuplicate: true`).
    package var duplicate: API.Duplicate?

    package struct Issue: Sendable, Encodable, Equatable {
        package var atom: String?
        package var message: String
    }

    package init(_ name: String, _ title: String, status: Int, detail: String, atom: String? = nil,
                 errors: [Issue]? = nil, attemptsLeft: Int? = nil, retryAfter: Int? = nil) {
        type = "urn:rbs-host:problem:\(name)"
        self.title = title
        self.status = status
        self.detail = detail
        self.atom = atom
        self.errors = errors
        self.attemptsLeft = attemptsLeft
        self.retryAfter = retryAfter
    }

    static func badJSON(_ detail: String) -> Problem {
        Problem("bad-json", "The request body is not the JSON this endpoint takes", status: 400, detail: detail)
    }

    static let unauthorized = Problem("unauthorized", "Not logged in", status: 401,
                                      detail: "log in first (POST /api/v1/session); sessions end after a while without requests")

    static func notFound(_ what: String) -> Problem {
        Problem("not-found", "Not found", status: 404, detail: what)
    }

    static func tooManyAttempts(_ seconds: Int, what: String) -> Problem {
        Problem("rate-limited", "Too many attempts", status: 429,
                detail: "too many failed \(what) from this customer or address; try again in \(seconds) s", retryAfter: seconds)
    }

    static func internalError(_ detail: String) -> Problem {
        Problem("internal", "The server could not do this", status: 500, detail: detail)
    }
}
