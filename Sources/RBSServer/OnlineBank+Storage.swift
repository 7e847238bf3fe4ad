import Foundation
import RBSCore
import RBSLedger

/// The ledger's failures as the API answers them (503 when the shared database is down or the data folder changed,
/// 500 otherwise), and blocking work run off the event loops.
extension OnlineBank {
    /// The shared database is down or cut off (`--database postgres://…`): 503 with the failure (which server, and
    /// that nothing was acknowledged), so a client retries — with the same request id, safely.
    static func unavailable(_ failure: PostgresFailure) -> Problem {
        Problem("database-unavailable", "The bank's database cannot be reached", status: 503, detail: failure.description,
                retryAfter: 5)
    }

    /// The shared database's failure (`--database postgres://…`) behind `error`, when that is what it is.
    static func databaseFailure(_ error: any Error) -> PostgresFailure? {
        if let failure = error as? PostgresFailure { return failure }
        if let error = error as? LedgerError, case .server(let failure) = error { return failure }
        if let error = error as? CustomerError, case .storage(let inner) = error, case .server(let failure) = inner { return failure }
        return nil
    }

    /// The ledger stopped because its data folder was deleted, replaced or opened to others while serving
    /// (``LedgerError/dataFolderChanged(_:)``): 503 `ledger-stopped` saying what happened. No retry time: it lasts
    /// until the operator puts the folder back and starts the server again.
    static func stopped(_ change: DataFolderChange) -> Problem {
        Problem("ledger-stopped", "The ledger has stopped", status: 503, detail: LedgerError.dataFolderChanged(change).description)
    }

    /// The 503 problem for a ledger that cannot be used at all now (the shared database unreachable, or the data
    /// folder changed under the server), whatever wraps the error; nil for every other failure.
    static func unusableLedger(_ error: any Error) -> Problem? {
        if let failure = databaseFailure(error) { return unavailable(failure) }
        var ledgerError = error as? LedgerError
        if let error = error as? CustomerError, case .storage(let inner) = error { ledgerError = inner }
        if case .dataFolderChanged(let change) = ledgerError { return stopped(change) }
        return nil
    }

    /// Reading or writing the ledger failed: 503 `database-unavailable` naming the server when the shared database
    /// cannot be reached (a login, the accounts or a review during an outage are said as the outage, not as an
    /// internal error), 503 `ledger-stopped` when the data folder changed under the server, else 500 saying `what`
    /// failed.
    static func storageProblem(_ what: String, _ error: any Error) -> Problem {
        if let unusable = unusableLedger(error) { return unusable }
        return .internalError("\(what): \(error)")
    }

    /// Runs blocking work (the database, the password KDF) off the event loops.
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
        }
    }

    static func iso(_ date: Date) -> String { iso(milliseconds: Timestamp.milliseconds(date)) }

    static func iso(milliseconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Timestamp.date(milliseconds: milliseconds))
    }
}
