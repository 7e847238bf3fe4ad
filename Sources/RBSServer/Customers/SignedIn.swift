import Foundation
import RBSLedger

/// A request's live session whose customer the ledger has not yet been asked about. A customer or user removed since
/// the login (by another process, `rbs-host customers remove`) must not act through an old token, so every request
/// asks the ledger; this type is the only way from a token to a ``Customer`` besides ``OnlineBank/customer(token:)``,
/// so the question cannot be skipped, only asked where the request already is on a thread that may block (a
/// plugin lane) instead of on one of its own.
struct SignedIn: Sendable {
    /// Who the token was issued to: enough to find their runs, not yet to act.
    let customer: Customer
    let ledger: Ledger
    let sessions: LoginSessions

    /// The customer, after the ledger said they are still there; on a thread that may block (a plugin lane, or
    /// ``OnlineBank/blocking(_:)``). A removed customer's sessions all end and the request is 401.
    func confirmedHere() throws(Problem) -> Customer {
        let active: Bool
        do {
            active = try ledger.customers.isActive(customer)
        } catch {
            throw OnlineBank.storageProblem("the session's customer could not be read", error)
        }
        guard active else {
            sessions.end(customer: customer.id)
            throw Problem.unauthorized
        }
        return customer
    }

    /// ``confirmedHere()`` off the caller's thread, for a request that is not going to a lane.
    func confirmed() async throws(Problem) -> Customer {
        let signedIn = self
        do {
            return try await OnlineBank.blocking { () throws(Problem) -> Customer in try signedIn.confirmedHere() }
        } catch let problem as Problem {
            throw problem
        } catch {
            throw .internalError("\(error)")
        }
    }
}
