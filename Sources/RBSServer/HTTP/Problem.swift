import Foundation
import RBSCore
import RBSLedger

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
    /// An internal error's reference (problem `internal`): the server's log names its cause under it.
    package var reference: String?

    package struct Issue: Sendable, Encodable, Equatable {
        package var atom: String?
        package var message: String
    }

    package init(_ name: String, _ title: String, status: Int, detail: String, atom: String? = nil,
                 errors: [Issue]? = nil, attemptsLeft: Int? = nil, retryAfter: Int? = nil) {
        type = Self.type(name)
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

    /// What too many failures were of.
    enum Attempts { case logins, codes }

    /// The refusal of a login or a signing after too many failures, in the person's language (a Russian page said it
    /// in English between Russian wrong-code messages).
    static func tooManyAttempts(_ seconds: Int, what: Attempts, language: HostLanguage = .en) -> Problem {
        let detail = switch what {
        case .logins: language.pick("too many failed logins from this customer or address; try again in \(seconds) s",
                                    "слишком много неудачных входов этого клиента или с этого адреса; попробуйте снова через \(seconds) с")
        case .codes: language.pick("too many failed signing attempts from this customer or address; try again in \(seconds) s",
                                   "слишком много неудачных попыток подписи этого клиента или с этого адреса; попробуйте снова через \(seconds) с")
        }
        return Problem("rate-limited", "Too many attempts", status: 429, detail: detail, retryAfter: seconds)
    }

    static func internalError(_ detail: String) -> Problem {
        Problem("internal", "The server could not do this", status: 500, detail: detail)
    }

    /// What a client is told of this problem, and the line the server's log keeps of it (nil when nothing is kept).
    ///
    /// An internal error's detail is the server's own: a database's address, user and name, a data folder's path, a
    /// library's words. A client gets none of it — only that the server could not do this, how to send a payment again
    /// safely, and a reference (8 random bytes in hex) — and the server's standard error gets the detail under that
    /// reference, where the operator looks. Every other problem is the client's to act on and goes as is.
    func forClient(reference: @autoclosure () -> String = Problem.newReference()) -> (problem: Problem, logLine: String?) {
        guard type == Problem.internalType else { return (self, nil) }
        let reference = reference()
        var answer = self
        answer.detail = "the server's log names the cause under reference \(reference); a payment sent again with the "
            + "same requestId is answered with its first outcome if it was made"
        answer.reference = reference
        return (answer, "rbs-host serve: internal error \(reference): \(RequestLog.clean(detail))")
    }

    /// The type URI of the problem `name`.
    static func type(_ name: String) -> String { "urn:rbs-host:problem:\(name)" }

    static let internalType = type("internal")

    static func newReference() -> String {
        Hex.encode((0..<8).map { _ in UInt8.random(in: 0...255) })
    }
}
