import Crypto
import Foundation
import RBSLedger

/// Who is logged in: a random 256-bit token per login, kept only in memory (a restart logs everyone out), ending
/// after `idle` seconds without a request or at logout. The token travels as the `rbs_session` cookie (HttpOnly,
/// SameSite=Strict) for the web client, or as `Authorization: Bearer TOKEN` for other clients.
final class LoginSessions: @unchecked Sendable {
    struct Session: Sendable {
        let customer: Customer
        var expires: Date
    }

    let idle: TimeInterval
    private let lock = NSLock()
    private var sessions: [String: Session] = [:]

    init(idle: TimeInterval) { self.idle = idle }

    /// Starts a session for `customer`; returns its token and when it expires.
    func start(_ customer: Customer, now: Date) -> (token: String, expires: Date) {
        let token = Data(SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        let expires = now.addingTimeInterval(idle)
        lock.withLock {
            sessions = sessions.filter { $0.value.expires > now }
            sessions[token] = Session(customer: customer, expires: expires)
        }
        return (token, expires)
    }

    /// The customer of `token` if the session is live (and extends it), nil otherwise.
    func customer(token: String, now: Date) -> Customer? {
        lock.withLock {
            guard var session = sessions[token] else { return nil }
            guard session.expires > now else {
                sessions[token] = nil
                return nil
            }
            session.expires = now.addingTimeInterval(idle)
            sessions[token] = session
            return session.customer
        }
    }

    /// Ends `token`'s session.
    func end(token: String) {
        lock.withLock { sessions[token] = nil }
    }

    /// Ends every session of customer (or user) `id`: their login is gone.
    func end(customer id: Int64) {
        lock.withLock { sessions = sessions.filter { $0.value.customer.id != id } }
    }
}
